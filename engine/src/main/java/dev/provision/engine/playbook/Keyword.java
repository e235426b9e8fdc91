package dev.provision.engine.playbook;

import dev.provision.engine.source.InvalidInputException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BinaryOperator;
import org.yaml.snakeyaml.nodes.Node;

/**
 * A keyword that a play, block, include, role entry or task may set and that the tasks below it
 * inherit, declared once in {@link #ALL}: the name written, how its value is read, how a child's value
 * combines with what it inherits, and the value of one never set. Parsing ({@link Keywords#read}),
 * inheritance ({@link Keywords#inherit}) and defaults ({@link TaskKeywords#get}) derive from it.
 *
 * @param <T> the value's type, as the runner reads it
 */
public final class Keyword<T> {
    /** Conditions that must all hold; the outermost first. */
    public static final Keyword<List<Expression>> WHEN = new Keyword<>("when", List.of(), Keyword::concat,
            (doc, v) -> List.copyOf(Values.conditions(doc, v, "when")));
    /** Tags, united with those above. */
    public static final Keyword<Set<String>> TAGS = new Keyword<>("tags", Set.of(), Keyword::union,
            (doc, v) -> Collections.unmodifiableSet(new LinkedHashSet<>(Values.tags(doc, v))));
    /** The task's own and inherited {@code vars:}; the innermost wins. */
    public static final Keyword<Map<String, Object>> VARS = new Keyword<>("vars", Map.of(), Keyword::merged,
            (doc, v) -> Collections.unmodifiableMap(new LinkedHashMap<>(doc.mapping(v, "'vars'"))));
    public static final Keyword<Optional<Boolean>> BECOME = innermost("become", Optional.empty(),
            (doc, v) -> Optional.of(Values.bool(doc, v, "become")));
    public static final Keyword<Optional<String>> BECOME_USER = innermost("become_user", Optional.empty(),
            (doc, v) -> Optional.of(Values.string(doc, v, "become_user")));
    public static final Keyword<Boolean> IGNORE_ERRORS = innermost("ignore_errors", false,
            (doc, v) -> Values.bool(doc, v, "ignore_errors"));
    public static final Keyword<Boolean> NO_LOG = innermost("no_log", false, (doc, v) -> Values.bool(doc, v, "no_log"));
    public static final Keyword<Boolean> RUN_ONCE = innermost("run_once", false, (doc, v) -> Values.bool(doc, v, "run_once"));
    /** Where the task's commands run instead of its host ({@code connection: local} means localhost: {@link TaskKeywords#delegateTo}). */
    public static final Keyword<Optional<String>> DELEGATE_TO = innermost("delegate_to", Optional.empty(),
            (doc, v) -> Optional.of(Values.string(doc, v, "delegate_to")));
    /** The variables and facts the task sets go to the {@code delegate_to} host instead of the task's host. */
    public static final Keyword<Boolean> DELEGATE_FACTS = innermost("delegate_facts", false,
            (doc, v) -> Values.bool(doc, v, "delegate_facts"));
    /**
     * As Ansible: {@code false} applies the task even under {@code --check}, {@code true} plans it even
     * in a normal run; empty follows the run.
     */
    public static final Keyword<Optional<Boolean>> CHECK_MODE = innermost("check_mode", Optional.empty(),
            (doc, v) -> Optional.of(Values.bool(doc, v, "check_mode")));
    /** The task's time limit on each host, in seconds; empty follows {@code --task-timeout}. */
    public static final Keyword<Optional<Integer>> TIMEOUT = innermost("timeout", Optional.empty(), (doc, v) -> {
        int seconds = Values.count(doc, v, "timeout");
        if (seconds < 1) {
            throw doc.error(v, "'timeout' is the task's time limit in seconds and must be at least 1");
        }
        return Optional.of(seconds);
    });
    /**
     * {@code environment:} layers, the outermost first: each a mapping of variable names to values
     * (templated per host) or an expression that gives one; a later layer's variable wins. The task's
     * programs and probes run with them.
     */
    public static final Keyword<List<Object>> ENVIRONMENT = new Keyword<>("environment", List.of(), Keyword::concat,
            (doc, v) -> Collections.singletonList(Keywords.environment(doc, v)));
    /** A templated {@code become_method:} ({@code ${method}}), to be {@code sudo} on each host; empty when written as {@code sudo} or not at all. */
    public static final Keyword<Optional<String>> BECOME_METHOD = innermost("become_method", Optional.empty(), Keywords::becomeMethod);
    /** {@code connection: local}: the tasks run on the controller, as with {@code delegate_to: localhost}. */
    public static final Keyword<Boolean> CONNECTION_LOCAL = innermost("connection", false, Keywords::connectionIsLocal);
    /**
     * {@code async:} with {@code poll: 0}: the task's commands start detached on the host, stopped
     * after this many seconds, and the task does not wait for them. A task's own (read with
     * {@code poll}, not in {@link #ALL}): never inherited.
     */
    public static final Keyword<Optional<Integer>> BACKGROUND_SECONDS = new Keyword<>("async", Optional.empty(), null,
            (doc, v) -> Optional.of(Values.count(doc, v, "async")));

    /** Every keyword any block, include, role entry or task may carry, in the order they are offered when one is misspelt. */
    static final List<Keyword<?>> ALL = List.of(WHEN, TAGS, VARS, BECOME, BECOME_USER, IGNORE_ERRORS, NO_LOG, RUN_ONCE,
            DELEGATE_TO, CHECK_MODE, TIMEOUT, ENVIRONMENT, BECOME_METHOD, CONNECTION_LOCAL, DELEGATE_FACTS);

    /** Reads a keyword's value where it is written. */
    interface Reader<T> {
        T read(YamlDocument doc, Node value) throws InvalidInputException;
    }

    private final String name;
    private final T unset;
    /** How a child's value combines with its parent's; null: a task's own, never inherited. */
    private final BinaryOperator<T> inherit;
    private final Reader<T> reader;

    private Keyword(String name, T unset, BinaryOperator<T> inherit, Reader<T> reader) {
        this.name = name;
        this.unset = unset;
        this.inherit = inherit;
        this.reader = reader;
    }

    /** A keyword whose innermost setting wins (a task's own, else its block's, ...). */
    private static <T> Keyword<T> innermost(String name, T unset, Reader<T> reader) {
        return new Keyword<>(name, unset, (parent, own) -> own, reader);
    }

    /** The name written in a playbook. */
    public String name() {
        return name;
    }

    /** The value of a keyword set nowhere above a task. */
    T unset() {
        return unset;
    }

    T read(YamlDocument doc, Node value) throws InvalidInputException {
        return reader.read(doc, value);
    }

    /** Whether a child that does not set it sees its parent's value. */
    boolean inherited() {
        return inherit != null;
    }

    /** What a child sees that sets {@code own} below a parent that set {@code parent}. */
    T inherit(T parent, T own) {
        return inherit == null ? own : inherit.apply(parent, own);
    }

    @Override
    public String toString() {
        return name;
    }

    private static <E> List<E> concat(List<E> parent, List<E> own) {
        List<E> all = new ArrayList<>(parent);
        all.addAll(own);
        return Collections.unmodifiableList(all);
    }

    private static Set<String> union(Set<String> parent, Set<String> own) {
        Set<String> all = new LinkedHashSet<>(parent);
        all.addAll(own);
        return Collections.unmodifiableSet(all);
    }

    private static Map<String, Object> merged(Map<String, Object> parent, Map<String, Object> own) {
        Map<String, Object> all = new LinkedHashMap<>(parent);
        all.putAll(own);
        return Collections.unmodifiableMap(all);
    }
}
