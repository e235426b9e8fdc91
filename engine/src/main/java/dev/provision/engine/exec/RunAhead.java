package dev.provision.engine.exec;

import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Where each host is in a run of consecutive tasks that hosts go through without waiting for each
 * other (see {@code Executor.PlayRun#runAhead}). One host may read another's state through
 * {@code hostvars}; {@link #awaitCaughtUp} makes that read wait until the other host has finished
 * every task before the reader's, so that it sees what the linear strategy would have shown it
 * (what the other host registered or set before); {@link #stillInPlay} does the same for
 * {@code play_hosts}. Waits only ever point at an earlier task, so they cannot form a cycle.
 *
 * <p>With more hosts than forks, a host runs each task holding a fork ({@link #withFork}); while
 * it waits for another host it gives its fork back, since the host it waits for may need one to
 * get there (with every fork held by a waiting reader, nobody would move).
 *
 * <p>Progress is kept in concurrent maps so that a read of a host that has caught up (nearly every
 * read: a thousand hosts each reading every other's {@code hostvars} is a million per task) takes
 * no lock. A read that must wait waits on the monitor of the host it reads, which that host
 * notifies after each change of its progress (so no wake-up is lost, and a host's progress wakes
 * only its own readers: waking every waiter at every host's every task was 14% of a no-op's CPU
 * at a thousand hosts).
 */
final class RunAhead {
    private final Set<String> hosts;
    private final Semaphore forks;
    /**
     * The fork of each host running a task ({@link #withFork}): held, lent while the host waits for
     * another ({@link #whileWaiting}), or done. Kept per host, not per thread: a host may wait on a
     * template engine's worker thread while its own thread waits for that worker.
     */
    private final Map<String, java.util.concurrent.atomic.AtomicInteger> forkOf = new ConcurrentHashMap<>();
    private static final int HELD = 0;
    private static final int LENT = 1;
    private static final int DONE = 2;
    private final Map<String, Integer> running = new ConcurrentHashMap<>();
    private final Map<String, Integer> finished = new ConcurrentHashMap<>();
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> failedAt = new ConcurrentHashMap<>();
    private final Map<String, Object> signals = new ConcurrentHashMap<>();

    RunAhead(Set<String> hosts) {
        this(hosts, new Semaphore(Integer.MAX_VALUE));
    }

    RunAhead(Set<String> hosts, Semaphore forks) {
        // A HashSet, not Set.copyOf: the immutable set probes linearly from the hash, and host names
        // that count up (node1..node1000) hash to neighbouring slots; at 500 hosts its look-ups here
        // were 8 % of a no-op's samples (every hostvars read asks), 16 times a HashSet's cost.
        this.hosts = Collections.unmodifiableSet(new HashSet<>(hosts));
        this.forks = forks;
        hosts.forEach(h -> signals.put(h, new Object()));
    }

    /** What a host's progress is signalled on: a reader waits for one host, woken by that host only. */
    private Object signal(String host) {
        return signals.get(host);
    }

    /** Runs one task of {@code host} holding a fork, which {@link #whileWaiting} may lend out while it waits. */
    <T> T withFork(String host, Supplier<T> task) {
        forks.acquireUninterruptibly();
        java.util.concurrent.atomic.AtomicInteger fork = new java.util.concurrent.atomic.AtomicInteger(HELD);
        forkOf.put(host, fork);
        try {
            return task.get();
        } finally {
            forkOf.remove(host, fork);
            if (fork.getAndSet(DONE) == HELD) {
                forks.release(); // lent: the waiter gives it back as it returns
            }
        }
    }

    void starting(String host, int task) {
        running.put(host, task);
    }

    /**
     * The hosts planning a task before the tasks before it are applied ({@link TasksTogether}), each
     * with what its plan read that the task's turn may not show. Keyed by host, not thread: templates
     * are evaluated on a guard's thread. A read of a host that had not caught up ends the plan
     * ({@link NotCaughtUp}) instead of waiting (that host may be waiting for this one's earlier task,
     * which is applied only afterwards).
     */
    private final Map<String, AheadReads> planningAhead = new ConcurrentHashMap<>();

    /** What a plan made ahead read that ties it to its host and moment. */
    private static final class AheadReads {
        /** It read a host that had not caught up: the plan is dropped. */
        volatile boolean notCaughtUp;
        /**
         * How often it read {@code play_hosts}, which then lists the planning host though the tasks
         * before may still fail it there: right for its own plan (dropped if it fails), not for another host's.
         */
        volatile int playHostsReads;
    }

    /** {@code reader} starts planning {@code task} before the tasks before it are applied; see {@link #endPlanningAhead}. */
    void planningAhead(String reader, int task) {
        running.put(reader, task);
        planningAhead.put(reader, new AheadReads());
    }

    /** Whether {@code host} plans a task before the tasks before it are applied ({@link #planningAhead}): it must wait for no host. */
    boolean isPlanningAhead(String host) {
        return planningAhead.containsKey(host);
    }

    /**
     * A mark of what {@code host}'s plan made ahead has read so far; {@link #readsOnlyShared} tells
     * whether what it read since then holds for other hosts at the same task too.
     */
    int readMark(String host) {
        AheadReads reads = planningAhead.get(host);
        return reads == null ? 0 : reads.playHostsReads;
    }

    /**
     * Whether what {@code host}'s plan made ahead read since {@code mark} ({@link #readMark}) is what
     * any host at that task would read: no host that had not caught up, no {@code play_hosts} (which
     * lists {@code host} before its tasks before are applied). Then what it made of those reads
     * (a rendering, a derivation) may be given to other hosts.
     */
    boolean readsOnlyShared(String host, int mark) {
        AheadReads reads = planningAhead.get(host);
        return reads == null || !reads.notCaughtUp && reads.playHostsReads == mark;
    }

    /** Whether {@code host}'s plan made ahead has read a host that had not caught up. */
    boolean metHostNotCaughtUp(String host) {
        AheadReads reads = planningAhead.get(host);
        return reads != null && reads.notCaughtUp;
    }

    /**
     * Ends {@code host}'s plan made ahead as a read of a host that has not caught up does, where it
     * would have read what another host's plan, just ended so, read: planned in its turn instead.
     */
    void notCaughtUp(String host) {
        AheadReads reads = planningAhead.get(host);
        if (reads != null) {
            reads.notCaughtUp = true;
            throw new NotCaughtUp();
        }
    }

    /** What {@link #withoutWaiting} runs (a rendering: a template's failure, or its arguments'). */
    interface Work<T, A extends Exception, B extends Exception> {
        T run() throws A, B;
    }

    /**
     * Runs {@code work} for {@code reader} as a plan made ahead is run: a read of a host that has not
     * caught up ends it ({@link NotCaughtUp}) instead of waiting. Empty where it ended so (or read
     * such a host and went on): what it gave is then not what it would have waited for.
     */
    <T, A extends Exception, B extends Exception> Optional<T> withoutWaiting(String reader, Work<T, A, B> work) throws A, B {
        if (planningAhead.containsKey(reader)) {
            T value = work.run();
            return planningAhead.get(reader).notCaughtUp ? Optional.empty() : Optional.ofNullable(value);
        }
        AheadReads reads = new AheadReads();
        planningAhead.put(reader, reads);
        try {
            T value = work.run();
            return reads.notCaughtUp ? Optional.empty() : Optional.ofNullable(value);
        } catch (Exception e) {
            if (reads.notCaughtUp) {
                return Optional.empty(); // however the template engine passed it on
            }
            throw e;
        } finally {
            planningAhead.remove(reader, reads);
        }
    }

    /** What a plan made ahead ({@link #planningAhead}) meets where it reads a host that has not caught up: it ends there. */
    static final class NotCaughtUp extends RuntimeException {
        NotCaughtUp() {
            super("planned ahead of a host that has not caught up", null, false, false);
        }
    }

    /**
     * Ends what {@link #planningAhead} started: whether the plan read a host that had not caught up
     * (it saw what the linear strategy would not have shown it, so it is dropped).
     */
    boolean endPlanningAhead(String reader) {
        AheadReads reads = planningAhead.remove(reader);
        return reads != null && reads.notCaughtUp;
    }

    void finished(String host, int task) {
        finished.put(host, task + 1);
        wake(host);
    }

    private void wake(String host) {
        Object signal = signal(host);
        if (signal != null) {
            synchronized (signal) {
                signal.notifyAll();
            }
        }
    }

    /** The host failed (or became unreachable) in {@code task}; {@link #stopped} follows. */
    void failed(String host, int task) {
        failedAt.put(host, task);
    }

    /** The host runs no further task of this run (done, failed or unreachable). */
    void stopped(String host) {
        stopped.add(host);
        wake(host);
    }

    /** Waits until {@code target} finished the tasks before the one {@code reader} is running, or stopped. */
    void awaitCaughtUp(String reader, String target) {
        Integer at = running.get(reader);
        if (at == null || reader.equals(target) || !hosts.contains(target) || caughtUp(target, at)) {
            return;
        }
        notCaughtUp(reader); // a plan made ahead ends here instead of waiting
        int readerAt = at;
        Object signal = signal(target);
        whileWaiting(reader, () -> {
            synchronized (signal) {
                while (!caughtUp(target, readerAt)) {
                    signal.wait();
                }
            }
            return null;
        });
    }

    /** What a host waits for while it has lent its fork. */
    interface Wait<T> {
        T await() throws InterruptedException;
    }

    /**
     * Runs {@code wait}, which blocks until other hosts have done something, with {@code host}'s fork
     * (if it holds one) given back meanwhile, since those hosts may need it to get there.
     */
    <T> T whileWaiting(String host, Wait<T> wait) {
        // Outside the monitor: taking the fork back must not block the hosts that report progress.
        java.util.concurrent.atomic.AtomicInteger fork = forkOf.get(host);
        boolean lent = fork != null && fork.compareAndSet(HELD, LENT);
        if (lent) {
            forks.release();
        }
        try {
            return wait.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (lent) {
                forks.acquireUninterruptibly();
                if (!fork.compareAndSet(LENT, HELD)) {
                    forks.release(); // the task ended meanwhile (a worker it left): the fork is no one's now
                }
            }
        }
    }

    private boolean caughtUp(String target, int readerAt) {
        return finished.getOrDefault(target, 0) >= readerAt || stopped.contains(target);
    }

    /** {@link #stillInPlay}'s answer at a task, for the candidates it was given (the same list object for every host). */
    private record InPlay(List<String> candidates, List<String> hosts) {
    }

    private final Map<Integer, InPlay> inPlayAt = new ConcurrentHashMap<>();

    /**
     * What a reader of {@code play_hosts} at a task found: every one of {@code candidates} had caught
     * up, except perhaps {@code except} (the reader itself, planning ahead; null: none). Progress only
     * grows, so it stays true, and the next reader at that task need not look at each host again:
     * a thousand readers each looking at a thousand hosts was 5 % of a 1 000-node no-op's CPU.
     */
    private record CaughtUp(List<String> candidates, String except) {
    }

    private final Map<Integer, CaughtUp> caughtUpAt = new ConcurrentHashMap<>();

    /**
     * {@code candidates} less the hosts that failed before the task {@code reader} is running, once
     * every one of them has caught up: {@code play_hosts} as the linear strategy would show it. The
     * answer is the same for every reader at that task (the hosts that failed before it are all
     * known once they caught up), so it is worked out once per task, not once per reader.
     */
    List<String> stillInPlay(String reader, List<String> candidates) {
        Integer readerAt = running.get(reader);
        if (readerAt == null) {
            candidates.forEach(c -> awaitCaughtUp(reader, c));
            return candidates;
        }
        AheadReads ahead = planningAhead.get(reader);
        InPlay known = inPlayAt.get(readerAt);
        if (known != null && known.candidates() == candidates) {
            if (ahead != null) {
                ahead.playHostsReads++;
            }
            return known.hosts();
        }
        CaughtUp seen = caughtUpAt.get(readerAt);
        if (seen != null && seen.candidates() == candidates) {
            if (seen.except() != null) {
                awaitCaughtUp(reader, seen.except());
            }
        } else {
            candidates.forEach(c -> awaitCaughtUp(reader, c));
        }
        String behind = !caughtUp(reader, readerAt) && candidates.contains(reader) ? reader : null;
        if (seen == null || seen.candidates() != candidates || !Objects.equals(seen.except(), behind)) {
            caughtUpAt.put(readerAt, new CaughtUp(candidates, behind));
        }
        List<String> hosts = failedAt.isEmpty() ? candidates
                : candidates.stream().filter(c -> failedAt.getOrDefault(c, Integer.MAX_VALUE) >= readerAt).toList();
        if (ahead != null) {
            // the reader itself has not caught up (its tasks before are applied after this plan):
            // the answer is its own, not yet the task's
            ahead.playHostsReads++;
        } else {
            inPlayAt.put(readerAt, new InPlay(candidates, hosts));
        }
        return hosts;
    }
}
