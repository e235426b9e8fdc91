package dev.provision.engine.exec;

import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskContext;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

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
 *
 * <p>Hosts that plan the task before the tasks before it are applied ({@link TasksTogether}) share
 * theirs the same way, among themselves and with the hosts at the task's turn: such a host never
 * waits for another host (a read of one that has not caught up ends its plan), so any host may wait
 * for its rendering; a host planning ahead waits only for such a first, never for one at the task's
 * turn (that one may be waiting for it). What it rendered is offered only where everything it read
 * holds at the task's turn too ({@link RunAhead#readsOnlyShared}). Rendered on each host, a run of
 * 500 hosts planning ahead rendered 12 arguments per host where one per task would do.
 */
final class TaskStep {
    /** A rendering of the task's arguments. */
    interface Rendering<T> {
        T render(Map<String, Object> vars) throws TemplateException, ParamException;
    }

    /**
     * What the first host of a kind makes (a rendering, a derivation) for the hosts that come after
     * it: where that host planned ahead, whether it ended at a host that had not caught up.
     */
    private static final class First<V> {
        final CompletableFuture<Optional<V>> outcome = new CompletableFuture<>();
        volatile boolean notCaughtUp;
    }

    /**
     * The first hosts of each kind, per key (a loop item, a derivation's key): those at the task's
     * turn, and those planning ahead of it. They are kept apart so that each waits only for its own
     * kind: one at the turn may be waiting for hosts that are behind, which may be waiting for a host
     * planning ahead; one planning ahead never waits for a host.
     */
    private static final class Firsts<K, V> {
        final Map<K, First<V>> atTurn = new ConcurrentHashMap<>();
        final Map<K, First<V>> ahead = new ConcurrentHashMap<>();

        Map<K, First<V>> of(boolean planningAhead) {
            return planningAhead ? ahead : atTurn;
        }
    }

    /** The first host's rendering and what it read. */
    private record Shared(Map<String, Object> read, Object value) {
        /** A rendering no other host may take: it read every variable, or gave nothing. */
        static Shared ownOnly(Object value) {
            return new Shared(null, value);
        }

        boolean holdsFor(Map<String, Object> vars) {
            if (read == null) {
                return false;
            }
            for (Map.Entry<String, Object> e : read.entrySet()) {
                if (!sameValue(e.getValue(), vars.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
    }

    private final Firsts<Integer, Shared> renderings = new Firsts<>();
    /** The first rendering for reads ahead ({@link #renderForReads}), per item: shared among those only. */
    private final Map<Integer, First<Shared>> firstsForReads = new ConcurrentHashMap<>();
    /**
     * The most values {@link #shared} keeps: keys may hold a host's file, and where every host's
     * file differs, keeping one derivation per host would hold the whole cluster's files until the
     * play ends.
     */
    static final int MAX_SHARED = 64;

    private final Firsts<SharedKey, Object> derived = new Firsts<>();
    /** The hash codes of the large lists and maps that {@link #shared}'s keys held, by the very object. */
    private final Map<Object, Integer> largeHashes = Collections.synchronizedMap(new IdentityHashMap<>());
    /** A list or map at least this large has its hash code kept ({@link #hashOf}). */
    static final int LARGE = 32;
    /** The most hash codes {@link #largeHashes} keeps (beyond, each is computed again). */
    static final int MAX_LARGE_HASHES = 1024;
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
     * it waits for another host's first rendering or derivation only where that host planned ahead
     * too (one at the task's turn may be waiting for this one).
     */
    private boolean planningAhead(String host) {
        return progress != null && progress.isPlanningAhead(host);
    }

    /** The first host's outcome; null when this thread was interrupted meanwhile. */
    private <V> V await(String host, CompletableFuture<V> first) {
        return progress == null ? first.join() : progress.whileWaiting(host, first::join);
    }

    /** What the first host of {@code host}'s kind made of {@code key}, where it holds here, or this host's own. */
    private <K, V> V share(String host, Firsts<K, V> firsts, K key, Predicate<V> holds, Work<V> make, Work<V> own)
            throws TemplateException, ParamException, ModuleException {
        boolean ahead = planningAhead(host);
        Optional<V> done = doneAndHolding(firsts.of(!ahead).get(key), holds);
        if (done.isPresent()) {
            return done.get(); // the other kind's, made already: safe to take, never to wait for
        }
        Map<K, First<V>> mine = firsts.of(ahead);
        First<V> me = new First<>();
        First<V> first = mine.putIfAbsent(key, me);
        if (first == null) {
            return asFirst(host, ahead, mine, key, me, make);
        }
        Optional<V> outcome = await(host, first.outcome);
        if (outcome != null && outcome.isPresent() && holds.test(outcome.get())) {
            return outcome.get();
        }
        if (ahead && first.notCaughtUp) {
            progress.notCaughtUp(host); // as it would have, after as long: its turn plans it
        }
        return own.run();
    }

    private static <V> Optional<V> doneAndHolding(First<V> first, Predicate<V> holds) {
        if (first == null || !first.outcome.isDone()) {
            return Optional.empty();
        }
        return first.outcome.join().filter(holds);
    }

    /**
     * Runs {@code make} as the first host for {@code me}, the entry for {@code key} in {@code firsts},
     * offering what it gives unless it was planned ahead and read what holds for {@code host} alone
     * ({@link RunAhead#readsOnlyShared}). Where it offers nothing (that, or it failed), the entry
     * goes: the next host to come is the first (a plan made ahead that met a host not caught up
     * would otherwise leave every later host to make its own).
     */
    private <K, V> V asFirst(String host, boolean ahead, Map<K, First<V>> firsts, K key, First<V> me, Work<V> make)
            throws TemplateException, ParamException, ModuleException {
        int mark = ahead ? progress.readMark(host) : 0;
        Optional<V> offered = Optional.empty();
        try {
            V value = make.run();
            if (value != null && (!ahead || progress.readsOnlyShared(host, mark))) {
                offered = Optional.of(value);
            }
            return value;
        } finally {
            if (offered.isEmpty()) {
                firsts.remove(key, me);
                me.notCaughtUp = ahead && progress.metHostNotCaughtUp(host);
            }
            me.outcome.complete(offered);
        }
    }

    /** What a first host does: a rendering or a derivation. */
    private interface Work<V> {
        V run() throws TemplateException, ParamException, ModuleException;
    }

    /**
     * What a module derives once for all hosts ({@code TaskContext.sharedByAllHosts}): the first
     * host's value for {@code key}, derived now by the first host that asks ({@code host} asks now).
     */
    @SuppressWarnings("unchecked")
    <T> T shared(String host, Object key, TaskContext.Derivation<T> derivation) throws ModuleException {
        Object same = sameAsFirst(key);
        SharedKey shared = new SharedKey(same, hashOf(same));
        Map<SharedKey, First<Object>> kept = derived.of(planningAhead(host));
        if (kept.size() >= MAX_SHARED && !kept.containsKey(shared)) {
            return derivation.derive();
        }
        try {
            return (T) share(host, derived, shared, value -> true, derivation::derive, derivation::derive);
        } catch (TemplateException | ParamException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * A key of {@link #shared} with its hash code computed once: every look-up hashes it, and a key
     * holds what a derivation reads (the task's arguments, another derivation), so hashed whole on
     * each host a key with the cluster's 500 known hosts was 6.6 % of a 500-node no-op's samples, a
     * cost that grows with the square of the cluster. Keys still meet by {@code equals}.
     */
    private record SharedKey(Object key, int hash) {
        @Override
        public boolean equals(Object other) {
            return other instanceof SharedKey k && Objects.equals(key, k.key);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * The large lists and maps met in {@link #shared}'s keys, each to the first equal one met (that
     * one to itself), by the very object. Hosts whose arguments came from different renderings (one
     * planned ahead, one at the task's turn) hold equal lists that are not the same object; compared
     * by value at every look-up, a key of the cluster's 1 000 known hosts was 1.4 % of a 1 000-node
     * no-op's CPU and 6 % of what it allocated. Now each such object is compared by value once.
     */
    private final Map<Object, Object> firstEqual = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Map<SharedKey, Object> firstByValue = new ConcurrentHashMap<>();

    /**
     * Whether two renderings of the task's arguments are equal, the large lists and maps in them
     * compared by value once per object ({@link #sameAsFirst}), not at every host: a plan made ahead
     * with one is a plan made with the other ({@link ReadAhead#takeKept}).
     */
    boolean sameArguments(Params a, Params b) {
        if (a == b) {
            return true;
        }
        Map<String, Object> x = a.asMap();
        Map<String, Object> y = b.asMap();
        if (x.size() != y.size()) {
            return false;
        }
        for (Map.Entry<String, Object> e : x.entrySet()) {
            Object other = y.get(e.getKey());
            if (other == null || other != e.getValue() && !Objects.equals(sameAsFirst(e.getValue()), sameAsFirst(other))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code key} with each large list or map in it (the key itself, or an element of a small list)
     * replaced by the first equal one {@link #shared} met: keys that were equal stay equal, and now
     * mostly meet by identity.
     */
    private Object sameAsFirst(Object key) {
        if (key instanceof List<?> list && list.size() < LARGE) {
            Object[] elements = null;
            for (int i = 0; i < list.size(); i++) {
                Object element = list.get(i);
                Object same = sameAsFirst(element);
                if (same != element) {
                    if (elements == null) {
                        elements = list.toArray();
                    }
                    elements[i] = same;
                }
            }
            return elements == null ? list : Collections.unmodifiableList(java.util.Arrays.asList(elements));
        }
        if (key instanceof List<?> || key instanceof Map<?, ?> map && map.size() >= LARGE) {
            Object known = firstEqual.get(key);
            if (known != null) {
                return known;
            }
            if (firstEqual.size() >= MAX_LARGE_HASHES) {
                return key;
            }
            Object first = firstByValue.putIfAbsent(new SharedKey(key, hashOf(key)), key);
            Object same = first == null ? key : first;
            firstEqual.put(key, same);
            return same;
        }
        return key;
    }

    /**
     * {@code value.hashCode()}, with the hash codes of the large lists and maps in it kept by the
     * very object: those are the task's arguments and the derivations shared by every host, the same
     * object on each (never changed once made), where a key around them is made anew on each host.
     */
    int hashOf(Object value) {
        if (value instanceof List<?> list) {
            return list.size() < LARGE ? listHash(list) : keptHash(list, () -> listHash(list));
        }
        if (value instanceof Map<?, ?> map && map.size() >= LARGE) {
            return keptHash(map, map::hashCode);
        }
        return Objects.hashCode(value);
    }

    /** {@link List#hashCode}'s sum, of {@link #hashOf} of each element. */
    private int listHash(List<?> list) {
        int hash = 1;
        for (Object element : list) {
            hash = 31 * hash + hashOf(element);
        }
        return hash;
    }

    private int keptHash(Object large, IntSupplier hash) {
        Integer known = largeHashes.get(large);
        if (known != null) {
            return known;
        }
        int computed = hash.getAsInt();
        if (largeHashes.size() < MAX_LARGE_HASHES) {
            largeHashes.put(large, computed);
        }
        return computed;
    }

    /**
     * The arguments of loop item {@code item} (0 without a loop) on {@code host}, whose variables are
     * {@code vars}: the first host's rendering, when it holds here too, else this host's own.
     */
    @SuppressWarnings("unchecked")
    <T> T render(String host, int item, Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        try {
            return (T) share(host, renderings, item, shared -> shared.holdsFor(vars), () -> recorded(vars, rendering),
                    () -> Shared.ownOnly(rendering.render(vars))).value();
        } catch (ModuleException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** The rendering on this host with what it read (nothing to share where it read every variable). */
    private static <T> Shared recorded(Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        ReadRecorder recorder = new ReadRecorder(vars);
        T value = rendering.render(recorder);
        return recorder.readEverything || value == null ? Shared.ownOnly(value) : new Shared(Map.copyOf(recorder.read), value);
    }

    /**
     * The arguments of loop item {@code item} for a plan made only to learn what the task will read
     * ({@link ReadAheadPlanner}; never applied): {@link #render}'s first rendering where it is done
     * (or planned ahead: then waited for) and holds here, else the first such rendering of the item
     * where it holds here, else this host's own. That first one is rendered as a plan made ahead is,
     * without waiting for any host ({@link RunAhead#withoutWaiting}), so the hosts that come while it
     * renders wait for it; where it met a host that had not caught up, it is not shared and its host
     * renders again, waiting as reads ahead do. Never taken by a plan that is applied (it may have
     * read {@code play_hosts} before a host failed): a stale argument can only make the reads ahead
     * less useful, not wrong. Rendered on each host, an argument that reads every host was 7 % of a
     * 500-host converge's CPU.
     */
    @SuppressWarnings("unchecked")
    <T> T renderForReads(String host, int item, Map<String, Object> vars, Rendering<T> rendering) throws TemplateException, ParamException {
        Optional<Shared> planned = doneAndHolding(renderings.atTurn.get(item), shared -> shared.holdsFor(vars));
        First<Shared> ahead = renderings.ahead.get(item);
        if (planned.isEmpty() && ahead != null) {
            Optional<Shared> outcome = await(host, ahead.outcome); // planned ahead: it waits for no host
            planned = outcome == null ? Optional.empty() : outcome.filter(shared -> shared.holdsFor(vars));
        }
        if (planned.isPresent()) {
            return (T) planned.get().value();
        }
        First<Shared> mine = new First<>();
        First<Shared> first = firstsForReads.putIfAbsent(item, mine);
        if (first != null) {
            Optional<Shared> shared = await(host, first.outcome); // rendered without waiting for any host
            return shared != null && shared.isPresent() && shared.get().holdsFor(vars) ? (T) shared.get().value() : rendering.render(vars);
        }
        Optional<Shared> offered = Optional.empty();
        try {
            offered = progress == null ? Optional.of(recorded(vars, rendering)) : progress.<Shared, TemplateException, ParamException>withoutWaiting(host, () -> recorded(vars, rendering));
        } finally {
            if (offered.isEmpty()) {
                firstsForReads.remove(item, mine);
            }
            mine.outcome.complete(offered);
        }
        // where the first read a host that had not caught up, it renders again as reads ahead do: waiting
        return offered.isPresent() ? (T) offered.get().value() : rendering.render(vars);
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
