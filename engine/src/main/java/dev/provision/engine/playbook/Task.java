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
 * @param when conditions that must all hold (block and include conditions first)
 * @param baseDirectory the playbook's (or role's) directory: {@code templates/} and {@code files/}
 *     are looked up under it first
 * @param checkMode {@code check_mode:} as Ansible: {@code false} applies the task even under
 *     {@code --check} (for read-only commands whose output later tasks need), {@code true} plans it
 *     even in a normal run; empty follows the run
 * @param timeoutSeconds {@code timeout:}, the task's time limit on each host (every probe and
 *     command of it); empty follows the run's {@code --task-timeout}
 * @param listen handler topics ({@code listen:}); for handlers, the name is a topic too
 */
public record Task(
        String name,
        String module,
        Map<String, Object> args,
        Map<String, SourcePosition> argPositions,
        List<Expression> when,
        Optional<Loop> loop,
        Optional<String> register,
        List<String> notifies,
        Set<String> tags,
        Map<String, Object> vars,
        boolean ignoreErrors,
        Optional<Expression> changedWhen,
        Optional<Expression> failedWhen,
        Optional<Expression> until,
        int retries,
        int delaySeconds,
        boolean runOnce,
        Optional<String> delegateTo,
        boolean noLog,
        Optional<Boolean> become,
        Optional<String> becomeUser,
        Optional<Boolean> checkMode,
        Optional<Integer> timeoutSeconds,
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
        when = List.copyOf(when);
        requireNonNull(loop, "loop cannot be null");
        requireNonNull(register, "register cannot be null");
        notifies = List.copyOf(notifies);
        tags = Set.copyOf(tags);
        vars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(vars));
        requireNonNull(changedWhen, "changedWhen cannot be null");
        requireNonNull(failedWhen, "failedWhen cannot be null");
        requireNonNull(until, "until cannot be null");
        requireNonNull(delegateTo, "delegateTo cannot be null");
        requireNonNull(become, "become cannot be null");
        requireNonNull(becomeUser, "becomeUser cannot be null");
        requireNonNull(checkMode, "checkMode cannot be null");
        requireNonNull(timeoutSeconds, "timeoutSeconds cannot be null");
        listen = List.copyOf(listen);
        requireNonNull(baseDirectory, "baseDirectory cannot be null");
        requireNonNull(role, "role cannot be null");
        requireNonNull(position, "position cannot be null");
    }

    /** The name shown in {@code TASK [...]}: the task's name, else the module (with role prefix). */
    public String displayName() {
        String base = name.isEmpty() ? module : name;
        return role.map(r -> r.name() + " : " + base).orElse(base);
    }
}
