package dev.provision.engine.playbook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The keywords a block, an include or a role entry pushes down onto the tasks it holds, and that a
 * task may set itself. Mutable only while one mapping is being read; {@link #inherit} makes the
 * combination a child sees.
 */
final class Keywords {
    /** Keywords any block, include, role entry or task may carry. */
    static final List<String> NAMES = List.of("when", "tags", "vars", "become", "become_user",
            "ignore_errors", "no_log", "run_once", "delegate_to", "check_mode", "timeout");

    final List<Expression> when = new ArrayList<>();
    final Set<String> tags = new LinkedHashSet<>();
    final Map<String, Object> vars = new LinkedHashMap<>();
    Optional<Boolean> become = Optional.empty();
    Optional<String> becomeUser = Optional.empty();
    Optional<Boolean> ignoreErrors = Optional.empty();
    Optional<Boolean> noLog = Optional.empty();
    Optional<Boolean> runOnce = Optional.empty();
    Optional<String> delegateTo = Optional.empty();
    Optional<Boolean> checkMode = Optional.empty();
    Optional<Integer> timeoutSeconds = Optional.empty();

    /** Nothing inherited (the top of a play). */
    static Keywords none() {
        return new Keywords();
    }

    /**
     * What a child of {@code this} sees when it sets {@code own}: conditions of the parent first, tags
     * united, vars merged with the child's winning, and every other keyword the child's value when it
     * sets one, else the parent's.
     */
    Keywords inherit(Keywords own) {
        Keywords result = new Keywords();
        result.when.addAll(when);
        result.when.addAll(own.when);
        result.tags.addAll(tags);
        result.tags.addAll(own.tags);
        result.vars.putAll(vars);
        result.vars.putAll(own.vars);
        result.become = own.become.or(() -> become);
        result.becomeUser = own.becomeUser.or(() -> becomeUser);
        result.ignoreErrors = own.ignoreErrors.or(() -> ignoreErrors);
        result.noLog = own.noLog.or(() -> noLog);
        result.runOnce = own.runOnce.or(() -> runOnce);
        result.delegateTo = own.delegateTo.or(() -> delegateTo);
        result.checkMode = own.checkMode.or(() -> checkMode);
        result.timeoutSeconds = own.timeoutSeconds.or(() -> timeoutSeconds);
        return result;
    }
}
