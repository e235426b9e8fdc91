package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
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

    /** {@code work} on every target at once (see {@link HostsInParallel}). */
    Map<HostState, TaskResult> parallel(String step, List<HostState> targets, Function<HostState, TaskResult> work) {
        return new HostsInParallel(pool, forks, listener).run(step, targets, work);
    }
}
