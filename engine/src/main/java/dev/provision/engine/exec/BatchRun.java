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
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * What the parts running one batch of one play share: the play's context, the task runner, the
 * run's thread pool and fork limit, the listener, and whether the operator asked to stop.
 */
final class BatchRun {
    final PlayContext ctx;
    final TaskRunner runner;
    final ModuleRegistry modules;
    final ExecutorService pool;
    final Semaphore forks;
    final RunListener listener;
    private final BooleanSupplier stopRequested;

    BatchRun(PlayContext ctx, TaskRunner runner, ModuleRegistry modules, ExecutorService pool, Semaphore forks,
             RunListener listener, BooleanSupplier stopRequested) {
        this.ctx = requireNonNull(ctx, "ctx cannot be null");
        this.runner = requireNonNull(runner, "runner cannot be null");
        this.modules = requireNonNull(modules, "modules cannot be null");
        this.pool = requireNonNull(pool, "pool cannot be null");
        this.forks = requireNonNull(forks, "forks cannot be null");
        this.listener = requireNonNull(listener, "listener cannot be null");
        this.stopRequested = requireNonNull(stopRequested, "stopRequested cannot be null");
    }

    /** Ctrl-C or SIGTERM: no new task or handler starts. */
    boolean stopRequested() {
        return stopRequested.getAsBoolean();
    }

    /**
     * {@code work} on every target at once, at most {@code forks} at a time, progress reported as
     * each finishes; the results in target order. A bug in the engine or a module fails that host
     * with the cause; the run goes on.
     */
    Map<HostState, TaskResult> parallel(String step, List<HostState> targets, Function<HostState, TaskResult> work) {
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
