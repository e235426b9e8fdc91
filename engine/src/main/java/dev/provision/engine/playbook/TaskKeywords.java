package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The keywords that a play, block, include, role entry or task may set and that its tasks inherit,
 * as one task sees them once everything above it is applied. Declared here once: the parser reads
 * them ({@link Keywords}), the model keeps them ({@link Task#keywords()}) and the runner reads them.
 *
 * @param when conditions that must all hold (the outermost first)
 * @param vars the task's own and inherited {@code vars:} (the innermost wins)
 * @param checkMode {@code check_mode:} as Ansible: {@code false} applies the task even under
 *     {@code --check}, {@code true} plans it even in a normal run; empty follows the run
 * @param timeoutSeconds {@code timeout:}, the task's time limit on each host; empty follows
 *     {@code --task-timeout}
 * @param delegateFacts {@code delegate_facts:}: the variables and facts the task sets go to the
 *     {@code delegate_to} host instead of the task's host
 * @param becomeMethod a templated {@code become_method:} ({@code ${method}}), to be {@code sudo} on each
 *     host when the task runs; empty when written as {@code sudo} or not at all
 * @param backgroundSeconds {@code async:} with {@code poll: 0}: the task's commands start detached on the
 *     host, stopped after this many seconds, and the task does not wait for them
 * @param environment {@code environment:} layers, the outermost first: each a mapping of variable
 *     names to values (templated per host) or an expression that gives one; a later layer's
 *     variable wins. The task's programs and probes run with them.
 */
public record TaskKeywords(
        List<Expression> when,
        Set<String> tags,
        Map<String, Object> vars,
        Optional<Boolean> become,
        Optional<String> becomeUser,
        boolean ignoreErrors,
        boolean noLog,
        boolean runOnce,
        Optional<String> delegateTo,
        boolean delegateFacts,
        Optional<Boolean> checkMode,
        Optional<Integer> timeoutSeconds,
        Optional<String> becomeMethod,
        Optional<Integer> backgroundSeconds,
        List<Object> environment) {

    /** Nothing set: what a task outside any block with no keywords of its own sees. */
    public static final TaskKeywords NONE = new TaskKeywords(List.of(), Set.of(), Map.of(), Optional.empty(),
            Optional.empty(), false, false, false, Optional.empty(), false, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), List.of());

    public TaskKeywords {
        when = List.copyOf(when);
        tags = Set.copyOf(tags);
        vars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(vars));
        requireNonNull(become, "become cannot be null");
        requireNonNull(becomeUser, "becomeUser cannot be null");
        requireNonNull(delegateTo, "delegateTo cannot be null");
        requireNonNull(checkMode, "checkMode cannot be null");
        requireNonNull(timeoutSeconds, "timeoutSeconds cannot be null");
        requireNonNull(becomeMethod, "becomeMethod cannot be null");
        requireNonNull(backgroundSeconds, "backgroundSeconds cannot be null");
        environment = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(environment));
    }
}
