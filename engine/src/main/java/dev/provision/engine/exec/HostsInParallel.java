package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One step on every target at once, at most {@code forks} at a time, progress reported as each
 * finishes: how a run takes a task (or its connecting step) across a batch, and how a saved plan's
 * apply takes each recorded step across its hosts.
 */
record HostsInParallel(ExecutorService pool, Semaphore forks, RunListener listener) {
    HostsInParallel {
        requireNonNull(pool, "pool cannot be null");
        requireNonNull(forks, "forks cannot be null");
        requireNonNull(listener, "listener cannot be null");
    }

    /**
     * {@code work} on every target; the results in target order. A bug in the engine or a module
     * fails that host with the cause; the others go on.
     */
    Map<HostState, TaskResult> run(String step, List<HostState> targets, Function<HostState, TaskResult> work) {
        Map<HostState, Future<TaskResult>> futures = new LinkedHashMap<>();
        AtomicInteger done = new AtomicInteger();
        Object progressLock = new Object();
        for (HostState h : targets) {
            futures.put(h, pool.submit(() -> {
                forks.acquireUninterruptibly();
                try {
                    return work.apply(h);
                } finally {
                    forks.release();
                    // Serialised, and over before the future completes: the listener contract holds.
                    synchronized (progressLock) {
                        listener.progress(step, done.incrementAndGet(), targets.size());
                    }
                }
            }));
        }
        Map<HostState, TaskResult> results = new LinkedHashMap<>();
        for (Map.Entry<HostState, Future<TaskResult>> e : futures.entrySet()) {
            try {
                results.put(e.getKey(), e.getValue().get());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                results.put(e.getKey(), TaskResult.simple(e.getKey().name(), TaskStatus.FAILED, "interrupted"));
            } catch (ExecutionException ex) {
                results.put(e.getKey(), TaskResult.simple(e.getKey().name(), TaskStatus.FAILED, "internal error: " + ex.getCause()));
            }
        }
        return results;
    }
}
