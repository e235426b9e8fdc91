package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One task (or handler) with everything inherited from enclosing blocks, includes and roles already
 * applied.
 *
 * @param name as written; empty when the task has none (the output then shows the module)
 * @param module the canonical module name ({@code ansible.builtin.copy} becomes {@code copy})
 * @param args raw YAML values; a free-form string ({@code command: ls -l}) sits under
 *     {@link #FREE_FORM}; {@code args:} has been merged in
 * @param argPositions where each key of {@code args} was written
 * @param keywords the inheritable keywords ({@code when}, {@code become}, {@code environment}, ...)
 *     with those of enclosing plays, blocks, includes and roles applied
 * @param baseDirectory the playbook's (or role's) directory: {@code templates/} and {@code files/}
 *     are looked up under it first
 * @param listen handler topics ({@code listen:}); for handlers, the name is a topic too
 */
public record Task(
        String name,
        String module,
        Map<String, Object> args,
        Map<String, SourcePosition> argPositions,
        TaskKeywords keywords,
        Optional<Loop> loop,
        Optional<String> register,
        List<String> notifies,
        Optional<Expression> changedWhen,
        Optional<Expression> failedWhen,
        Optional<Expression> until,
        int retries,
        int delaySeconds,
        List<String> listen,
        Path baseDirectory,
        Optional<RoleContext> role,
        SourcePosition position) implements TaskNode {

    /** The key under which a free-form module argument is kept. */
    public static final String FREE_FORM = "_raw_params";

    public Task {
        requireNonNull(name, "name cannot be null");
        requireNonNull(module, "module cannot be null");
        args = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(args));
        argPositions = Map.copyOf(argPositions);
        requireNonNull(keywords, "keywords cannot be null");
        requireNonNull(loop, "loop cannot be null");
        requireNonNull(register, "register cannot be null");
        notifies = List.copyOf(notifies);
        requireNonNull(changedWhen, "changedWhen cannot be null");
        requireNonNull(failedWhen, "failedWhen cannot be null");
        requireNonNull(until, "until cannot be null");
        listen = List.copyOf(listen);
        requireNonNull(baseDirectory, "baseDirectory cannot be null");
        requireNonNull(role, "role cannot be null");
        requireNonNull(position, "position cannot be null");
    }

    // The keywords, read where the runner needs them (see TaskKeywords for their meaning).
    public List<Expression> when() {
        return keywords.get(Keyword.WHEN);
    }

    public Set<String> tags() {
        return keywords.get(Keyword.TAGS);
    }

    public Map<String, Object> vars() {
        return keywords.get(Keyword.VARS);
    }

    public boolean ignoreErrors() {
        return keywords.get(Keyword.IGNORE_ERRORS);
    }

    public boolean runOnce() {
        return keywords.get(Keyword.RUN_ONCE);
    }

    public Optional<String> delegateTo() {
        return keywords.delegateTo();
    }

    public boolean noLog() {
        return keywords.get(Keyword.NO_LOG);
    }

    public Optional<Boolean> become() {
        return keywords.get(Keyword.BECOME);
    }

    public Optional<String> becomeUser() {
        return keywords.get(Keyword.BECOME_USER);
    }

    public Optional<Boolean> checkMode() {
        return keywords.get(Keyword.CHECK_MODE);
    }

    public Optional<Integer> timeoutSeconds() {
        return keywords.get(Keyword.TIMEOUT);
    }

    /** The name shown in {@code TASK [...]}: the task's name, else the module (with role prefix). */
    public String displayName() {
        String base = name.isEmpty() ? module : name;
        return role.map(r -> r.name() + " : " + base).orElse(base);
    }
}
