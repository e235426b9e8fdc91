package dev.provision.engine.playbook;

import dev.provision.engine.source.InvalidInputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The keywords a block, an include or a role entry pushes down onto the tasks it holds, and that a
 * task may set itself. Mutable only while one mapping is being read; {@link #inherit} makes the
 * combination a child sees.
 */
final class Keywords {
    /** Keywords any block, include, role entry or task may carry. */
    static final List<String> NAMES = List.of("when", "tags", "vars", "become", "become_user",
            "ignore_errors", "no_log", "run_once", "delegate_to", "check_mode", "timeout", "environment", "become_method", "connection", "delegate_facts");

    final List<Expression> when = new ArrayList<>();
    final Set<String> tags = new LinkedHashSet<>();
    final Map<String, Object> vars = new LinkedHashMap<>();
    Optional<Boolean> become = Optional.empty();
    Optional<String> becomeUser = Optional.empty();
    Optional<Boolean> ignoreErrors = Optional.empty();
    Optional<Boolean> noLog = Optional.empty();
    Optional<Boolean> runOnce = Optional.empty();
    Optional<String> delegateTo = Optional.empty();
    Optional<Boolean> delegateFacts = Optional.empty();
    Optional<Boolean> checkMode = Optional.empty();
    Optional<Integer> timeoutSeconds = Optional.empty();
    Optional<Integer> backgroundSeconds = Optional.empty();
    Optional<String> becomeMethod = Optional.empty();
    /** {@code connection: local}: the tasks run on the controller, as with {@code delegate_to: localhost} */
    Optional<Boolean> local = Optional.empty();
    final List<Object> environment = new ArrayList<>();

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
        result.delegateFacts = own.delegateFacts.or(() -> delegateFacts);
        result.checkMode = own.checkMode.or(() -> checkMode);
        result.timeoutSeconds = own.timeoutSeconds.or(() -> timeoutSeconds);
        result.backgroundSeconds = own.backgroundSeconds;
        result.becomeMethod = own.becomeMethod.or(() -> becomeMethod);
        result.local = own.local.or(() -> local);
        result.environment.addAll(environment);
        result.environment.addAll(own.environment);
        return result;
    }

    /** The value a task keeps: these keywords, with the defaults of those never set. */
    TaskKeywords freeze() {
        return new TaskKeywords(when, tags, vars, become, becomeUser, ignoreErrors.orElse(false), noLog.orElse(false),
                runOnce.orElse(false), delegateTo.or(() -> local.orElse(false) ? Optional.of("localhost") : Optional.empty()),
                delegateFacts.orElse(false), checkMode, timeoutSeconds, becomeMethod, backgroundSeconds, environment);
    }

    /** Reads one of {@link #NAMES} into {@code this}; false when the key is not one of them. */
    boolean read(YamlDocument doc, YamlDocument.Entry e) throws InvalidInputException {
        Node v = e.value();
        switch (e.key()) {
            case "when" -> when.addAll(Values.conditions(doc, v, "when"));
            case "tags" -> tags.addAll(Values.tags(doc, v));
            case "vars" -> vars.putAll(doc.mapping(v, "'vars'"));
            case "become" -> become = Optional.of(Values.bool(doc, v, "become"));
            case "become_user" -> becomeUser = Optional.of(Values.string(doc, v, "become_user"));
            case "ignore_errors" -> ignoreErrors = Optional.of(Values.bool(doc, v, "ignore_errors"));
            case "no_log" -> noLog = Optional.of(Values.bool(doc, v, "no_log"));
            case "run_once" -> runOnce = Optional.of(Values.bool(doc, v, "run_once"));
            case "delegate_to" -> delegateTo = Optional.of(Values.string(doc, v, "delegate_to"));
            case "delegate_facts" -> delegateFacts = Optional.of(Values.bool(doc, v, "delegate_facts"));
            case "check_mode" -> checkMode = Optional.of(Values.bool(doc, v, "check_mode"));
            case "timeout" -> {
                int seconds = Values.count(doc, v, "timeout");
                if (seconds < 1) {
                    throw doc.error(v, "'timeout' is the task's time limit in seconds and must be at least 1");
                }
                timeoutSeconds = Optional.of(seconds);
            }
            case "environment" -> environment.add(environment(doc, v));
            case "become_method" -> becomeMethod = becomeMethod(doc, v);
            case "connection" -> local = Optional.of(connectionIsLocal(doc, v));
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Ansible's {@code connection:}: {@code local} runs on the controller; its SSH plugins
     * ({@code ssh}, {@code paramiko}, {@code smart}) are provision's one SSH connection; anything else
     * is refused where it is written.
     */
    static boolean connectionIsLocal(YamlDocument doc, Node v) throws InvalidInputException {
        String connection = Values.string(doc, v, "connection");
        return switch (connection) {
            case "local" -> true;
            case "ssh", "paramiko", "paramiko_ssh", "smart", "ansible.builtin.ssh", "ansible.builtin.paramiko_ssh" -> false;
            default -> throw doc.error(v, "connection '" + YamlDocument.printable(connection) + "' is not supported: provision "
                    + "connects over SSH ('ssh', 'paramiko' and 'smart' all mean it) or runs on the controller ('local')");
        };
    }

    /**
     * Ansible's default, {@code sudo}, is what become is here; another method is refused where it is
     * written. A templated one ({@code ${method}}) is kept, to be checked on each host when the task runs.
     */
    static Optional<String> becomeMethod(YamlDocument doc, Node v) throws InvalidInputException {
        String method = Values.string(doc, v, "become_method");
        if (method.contains("${")) {
            return Optional.of(method);
        }
        if (!method.equals("sudo")) {
            throw doc.error(v, "become_method '" + YamlDocument.printable(method) + "' is not supported: become runs "
                    + "through sudo (write 'become_method: sudo' or leave it out)");
        }
        return Optional.empty();
    }

    /**
     * One {@code environment:} layer: a mapping of variable names to scalar values, or an expression
     * ({@code "${proxy_env}"}) that gives one when the task runs. Names are checked here: one that is
     * not a shell variable name would reach {@code env} as an option or a command.
     */
    private static Object environment(YamlDocument doc, Node v) throws InvalidInputException {
        if (v instanceof org.yaml.snakeyaml.nodes.ScalarNode s && !YamlDocument.isNull(s)) {
            String text = Values.string(doc, v, "environment");
            if (!text.contains("${") && !text.contains("{{")) {
                throw doc.error(v, "'environment' must be a mapping of variable names to values (http_proxy: ...) "
                        + "or an expression that gives one (\"${proxy_env}\"), not the plain string '" + text + "'");
            }
            return text;
        }
        if (!(v instanceof org.yaml.snakeyaml.nodes.MappingNode m)) {
            throw doc.error(v, "'environment' must be a mapping of variable names to values, not " + YamlDocument.describe(v));
        }
        Map<String, Object> layer = new LinkedHashMap<>();
        for (YamlDocument.Entry entry : doc.entries(m)) {
            if (!dev.provision.modules.text.ShellWords.isName(entry.key())) {
                throw doc.error(entry.keyNode(), "'" + YamlDocument.printable(entry.key()) + "' is not an environment "
                        + "variable name (letters, digits and '_', not starting with a digit)");
            }
            Object value = doc.value(entry.value());
            if (value instanceof Map<?, ?> || value instanceof List<?>) {
                throw doc.error(entry.value(), "environment variable '" + entry.key() + "' needs a single value, not "
                        + YamlDocument.describe(entry.value()));
            }
            layer.put(entry.key(), value == null ? "" : value);
        }
        return layer;
    }
}
