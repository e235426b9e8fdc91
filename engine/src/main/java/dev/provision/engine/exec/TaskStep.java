package dev.provision.engine.exec;

import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskContext;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One task's run over the hosts of a batch. What the task's arguments (for one item of its loop)
 * render to on the first host is shared with every other host on which it must render
 * the same: when every variable the first rendering read holds the same value on that host.
 *
 * <p>Why: arguments that span the cluster ({@code groups[...]?map(h -> hostvars[h]...)}) are the
 * same on a thousand hosts, and rendered on each they made a task's cost grow with the square of
 * the cluster. Shared, they are rendered once; what a module derives from them, or from the
 * inventory, it shares the same way ({@link #shared}, {@code TaskContext.sharedByAllHosts}).
 *
 * <p>The same value: the very object, or an equal string, number or boolean (a variable rendered
 * from a template is a new string on each host); {@link SameOnEveryHost} values count as one. A
 * rendering that read every variable (a walk of the whole data model) or failed is not shared.
 * A host that arrives while the first is still rendering waits for it, its fork lent meanwhile
 * (the first may be waiting for other hosts to catch up, and they may need that fork).
 */
final class TaskStep {
    /** A rendering of the task's arguments. */
    interface Rendering<T> {
        T render(Map<String, Object> vars) throws TemplateException, ParamException;
    }

    /** The first host's rendering and what it read. */
    private record Shared(Map<String, Object> read, Object value) {
        boolean holdsFor(Map<String, Object> vars) {
            for (Map.Entry<String, Object> e : read.entrySet()) {
                if (!sameValue(e.getValue(), vars.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    private final Map<Integer, CompletableFuture<Optional<Shared>>> firsts = new ConcurrentHashMap<>();
    /** The first rendering for reads ahead ({@link #renderForReads}), per item: shared among those only. */
    private final Map<Integer, CompletableFuture<Optional<Shared>>> firstsForReads = new ConcurrentHashMap<>();
    /**
     * The most values {@link #shared} keeps: keys may hold a host's file, and where every host's
     * file differs, keeping one derivation per host would hold the whole cluster's files until the
     * play ends.
     */
    static final int MAX_SHARED = 64;

    private final Map<Object, CompletableFuture<Optional<Object>>> derived = new ConcurrentHashMap<>();
    private final RunAhead progress;
    private final SharedContents contents = new SharedContents();

    /** A step outside a run ahead: a host waits for the first one's rendering as it is. */
    TaskStep() {
        this(null);
    }

    /** @param progress the run ahead the step is part of, which lends a waiting host's fork; or null */
    TaskStep(RunAhead progress) {
        this.progress = progress;
    }

    /** The arguments last asked about by {@link #holdsRunTimeOutput}, and the answer. */
    private record PlaceholderCheck(Params params, boolean holds) {
    }

    private volatile PlaceholderCheck lastPlaceholderCheck;

    /**
     * Whether the arguments hold a dry run's placeholder ({@link RunTimeOutput#in}), walked once per
     * rendering: hosts that share the first host's rendering share its {@link Params} (immutable),
     * and walking 1000 {@code ssh_known_hosts} entries on each of 1000 hosts was 14% of a dry run's
     * Java samples.
     */
    boolean holdsRunTimeOutput(Params params) {
        PlaceholderCheck last = lastPlaceholderCheck;
        if (last != null && last.params() == params) {
            return last.holds();
        }
        boolean holds = RunTimeOutput.in(params.asMap());
        lastPlaceholderCheck = new PlaceholderCheck(params, holds);
        return holds;
    }

    /** The larger files the step's hosts read, shared where they are the same (see {@link SharedContents}). */
    SharedContents contents() {
        return contents;
    }

    /**
     * Whether {@code host} plans the task before the tasks before it are applied ({@link TasksTogether}):
     * it never waits for another host's first rendering or derivation (that host may be waiting for
     * this one), nor offers its own as the first (a plan made ahead may be dropped).
     */
    private boolean planningAhead(String host) {
        return progress != null && progress.isPlanningAhead(host);
    }

    /** The first host's outcome; null when this thread was interrupted meanwhile. */
    private <V> V await(String host, CompletableFuture<V> first) {
        return progress == null ? first.join() : progress.whileWaiting(host, first::join);
    }

    /**
     * What a module derives once for all hosts ({@code TaskContext.sharedByAllHosts}): the first
     * host's value for {@code key}, derived now by the first host that asks ({@code host} asks now).
     */
    @SuppressWarnings("unchecked")
    <T> T shared(String host, Object key, TaskContext.Derivation<T> derivation) throws ModuleException {
        if (derived.size() >= MAX_SHARED && !derived.containsKey(key)) {
            return derivation.derive();
        }
        if (planningAhead(host)) {
            CompletableFuture<Optional<Object>> first = derived.get(key);
            Optional<Object> value = first != null && first.isDone() ? first.join() : Optional.empty();
            return value.isPresent() ? (T) value.get() : derivation.derive();
        }
        CompletableFuture<Optional<Object>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<Object>> first = derived.putIfAbsent(key, mine);
        if (first != null) {
            Optional<Object> value = await(host, first);
            return value != null && value.isPresent() ? (T) value.get() : derivation.derive();
        }
        Optional<Object> outcome = Optional.empty();
        try {
            T value = derivation.derive();
            outcome = Optional.ofNullable(value);
            return value;
        } finally {
            mine.complete(outcome);
        }
    }

    /**
     * The arguments of loop item {@code item} (0 without a loop) on {@code host}, whose variables are
     * {@code vars}: the first host's rendering, when it holds here too, else this host's own.
     */
    @SuppressWarnings("unchecked")
    <T> T render(String host, int item, Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        if (planningAhead(host)) {
            return renderAhead(item, vars, rendering);
        }
        CompletableFuture<Optional<Shared>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<Shared>> first = firsts.putIfAbsent(item, mine);
        if (first != null) {
            Optional<Shared> shared = await(host, first);
            if (shared != null && shared.isPresent() && shared.get().holdsFor(vars)) {
                return (T) shared.get().value();
            }
            return rendering.render(vars);
        }
        return renderFirst(vars, rendering, mine);
    }

    /** Renders on this host, noting what it read, and completes {@code mine} with what others may share. */
    private static <T> T renderFirst(Map<String, Object> vars, Rendering<T> rendering, CompletableFuture<Optional<Shared>> mine)
            throws TemplateException, ParamException {
        ReadRecorder recorder = new ReadRecorder(vars);
        Optional<Shared> outcome = Optional.empty();
        try {
            T value = rendering.render(recorder);
            if (!recorder.readEverything && value != null) {
                outcome = Optional.of(new Shared(Map.copyOf(recorder.read), value));
            }
            return value;
        } finally {
            mine.complete(outcome);
        }
    }

    /**
     * The arguments of loop item {@code item} as {@link #render} gives them, for planning ahead of the
     * task's turn ({@link ReadAhead}): the first host's rendering where there is one and it holds,
     * else this host's own, which is never shared (the variables may change before the task's turn:
     * a host that fails leaves {@code play_hosts}).
     */
    <T> T renderAhead(int item, Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        Optional<T> shared = ifDoneAndHolds(firsts.get(item), vars);
        return shared.isPresent() ? shared.get() : rendering.render(vars);
    }

    /**
     * The arguments of loop item {@code item} for a plan made only to learn what the task will read
     * ({@link ReadAheadPlanner}; never applied): as {@link #renderAhead}, else the first such
     * rendering of the item where it holds here, else this host's own, which the next hosts may take
     * (never a plan that is applied: it may have read {@code play_hosts} before a host failed). A
     * stale argument can only make the reads ahead less useful, not wrong. Rendered on each host, an
     * argument that reads every host was 7 % of a 500-host converge's CPU. Never waited for.
     */
    <T> T renderForReads(int item, Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        Optional<T> shared = ifDoneAndHolds(firsts.get(item), vars);
        if (shared.isPresent()) {
            return shared.get();
        }
        CompletableFuture<Optional<Shared>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<Shared>> first = firstsForReads.putIfAbsent(item, mine);
        if (first == null) {
            return renderFirst(vars, rendering, mine);
        }
        shared = ifDoneAndHolds(first, vars);
        return shared.isPresent() ? shared.get() : rendering.render(vars);
    }

    /** The value of a finished rendering that holds for {@code vars}; empty when there is none yet or it does not hold. */
    @SuppressWarnings("unchecked")
    private static <T> Optional<T> ifDoneAndHolds(CompletableFuture<Optional<Shared>> first, Map<String, Object> vars) {
        if (first != null && first.isDone()) {
            Optional<Shared> shared = first.join();
            if (shared.isPresent() && shared.get().holdsFor(vars)) {
                return Optional.of((T) shared.get().value());
            }
        }
        return Optional.empty();
    }

    static boolean sameValue(Object first, Object other) {
        if (first == other) {
            return true;
        }
        if (first instanceof SameOnEveryHost) {
            return other instanceof SameOnEveryHost && other.getClass() == first.getClass();
        }
        if (first instanceof String || first instanceof Number || first instanceof Boolean) {
            return first.equals(other);
        }
        return first == ABSENT && other == null;
    }

    /** Stands for "not defined" among the values read (a map copy holds no null). */
    private static final Object ABSENT = new Object();

    /** The variables as the rendering sees them, with a note of each one it read. */
    private static final class ReadRecorder extends AbstractMap<String, Object> {
        private final Map<String, Object> vars;
        final Map<String, Object> read = new HashMap<>();
        boolean readEverything;

        ReadRecorder(Map<String, Object> vars) {
            this.vars = vars;
        }

        @Override
        public Object get(Object key) {
            Object value = vars.get(key);
            if (key instanceof String name) {
                read.putIfAbsent(name, value == null ? ABSENT : value);
            } else {
                readEverything = true;
            }
            return value;
        }

        @Override
        public boolean containsKey(Object key) {
            get(key);
            return vars.containsKey(key);
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            readEverything = true;
            return vars.entrySet();
        }

        @Override
        public int size() {
            readEverything = true;
            return vars.size();
        }
    }
}
