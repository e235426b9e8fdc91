package dev.provision.engine.playbook;

import dev.provision.engine.source.InvalidInputException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The keywords ({@link Keyword}) a block, an include or a role entry pushes down onto the tasks it
 * holds, and that a task may set itself. Mutable only while one mapping is being read; {@link #inherit}
 * makes the combination a child sees, {@link #freeze} the value a task keeps.
 */
final class Keywords {
    /** The names of the keywords any block, include, role entry or task may carry. */
    static final List<String> NAMES = Keyword.ALL.stream().map(Keyword::name).toList();
    private static final Map<String, Keyword<?>> BY_NAME = Keyword.ALL.stream()
            .collect(java.util.stream.Collectors.toUnmodifiableMap(Keyword::name, k -> k));

    /** The keywords set here (or inherited), each with its value. */
    private final Map<Keyword<?>, Object> values = new LinkedHashMap<>();

    /** Nothing inherited (the top of a play). */
    static Keywords none() {
        return new Keywords();
    }

    /** {@code keyword}'s value here, or its value when never set. */
    <T> T get(Keyword<T> keyword) {
        return values.containsKey(keyword) ? cast(keyword, values.get(keyword)) : keyword.unset();
    }

    /** Sets {@code keyword} here, as if this mapping had said so. */
    <T> void set(Keyword<T> keyword, T value) {
        values.put(keyword, value);
    }

    /** Adds {@code value} to what {@code keyword} holds here, as a child that sets it would ({@code when}, {@code tags}). */
    <T> void add(Keyword<T> keyword, T value) {
        values.put(keyword, values.containsKey(keyword) ? keyword.inherit(get(keyword), value) : value);
    }

    /** Forgets {@code keyword} here. */
    void clear(Keyword<?> keyword) {
        values.remove(keyword);
    }

    /**
     * What a child of {@code this} sees when it sets {@code own}: each keyword combined as its
     * declaration says (conditions of the parent first, tags united, vars merged with the child's
     * winning, most others the child's value when it sets one, else the parent's).
     */
    Keywords inherit(Keywords own) {
        Keywords result = new Keywords();
        for (Keyword<?> keyword : values.keySet()) {
            if (!own.values.containsKey(keyword) && keyword.inherited()) {
                result.values.put(keyword, values.get(keyword));
            }
        }
        for (Keyword<?> keyword : own.values.keySet()) {
            result.values.put(keyword, combined(keyword, own));
        }
        return result;
    }

    private <T> T combined(Keyword<T> keyword, Keywords own) {
        return values.containsKey(keyword) && keyword.inherited() ? keyword.inherit(get(keyword), own.get(keyword)) : own.get(keyword);
    }

    /** The value a task keeps: these keywords, with the values of those never set. */
    TaskKeywords freeze() {
        return new TaskKeywords(values);
    }

    /** Reads one of {@link #NAMES} into {@code this}; false when the key is not one of them. */
    boolean read(YamlDocument doc, YamlDocument.Entry e) throws InvalidInputException {
        Keyword<?> keyword = BY_NAME.get(e.key());
        if (keyword == null) {
            return false;
        }
        readInto(keyword, doc, e.value());
        return true;
    }

    private <T> void readInto(Keyword<T> keyword, YamlDocument doc, Node value) throws InvalidInputException {
        add(keyword, keyword.read(doc, value));
    }

    @SuppressWarnings("unchecked") // the map holds each keyword's own type: put only through read, set, add and inherit
    private static <T> T cast(Keyword<T> keyword, Object value) {
        return (T) value;
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
    static Object environment(YamlDocument doc, Node v) throws InvalidInputException {
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
