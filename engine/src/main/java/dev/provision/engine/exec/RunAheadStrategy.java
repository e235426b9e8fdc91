package dev.provision.engine.exec;

import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Through consecutive tasks of host-local modules, every host goes on to its next task as soon as
 * it is done with one (no barrier across hosts), while results are still reported task by task, in
 * host order, exactly as {@link LinearStrategy} reports them. A host that fails or becomes
 * unreachable stops, as it would drop out of the linear strategy's next task. A host that reads
 * another's {@code hostvars} waits until that one has caught up ({@link RunAhead}), giving its fork
 * back meanwhile, so more hosts than forks never deadlock.
 */
final class RunAheadStrategy implements Strategy {
    private final BatchRun batch;
    private final ResultRecorder recorder;

    RunAheadStrategy(BatchRun batch, ResultRecorder recorder) {
        this.batch = batch;
        this.recorder = recorder;
    }

    @Override
    public void run(List<Task> tasks, List<HostState> active) {
        List<Map<HostState, CompletableFuture<TaskResult>>> results = new ArrayList<>();
        for (int k = 0; k < tasks.size(); k++) {
            Map<HostState, CompletableFuture<TaskResult>> byHost = new LinkedHashMap<>();
            active.forEach(h -> byHost.put(h, new CompletableFuture<>()));
            results.add(byHost);
        }
        RunAhead progress = new RunAhead(active.stream().map(HostState::name).collect(Collectors.toSet()), batch.forks);
        List<TaskStep> steps = tasks.stream().map(t -> new TaskStep(progress)).toList();
        batch.ctx.runAhead(progress);
        try {
            for (HostState h : active) {
                batch.pool.submit(() -> runOn(h, tasks, steps, results, progress));
            }
            for (int k = 0; k < tasks.size(); k++) {
                report(tasks.get(k), active, results.get(k));
                // every host has completed this task's future: its results (the files' contents and
                // diffs of a thousand hosts) need not wait for the play's end to be let go
                results.set(k, null);
            }
        } finally {
            batch.ctx.runAhead(null);
        }
    }

    /** One task's results as the hosts finish it, in host order: header, progress, then the recorder. */
    private void report(Task task, List<HostState> active, Map<HostState, CompletableFuture<TaskResult>> results) {
        Map<HostState, TaskResult> taskResults = new LinkedHashMap<>();
        List<HostState> ran = new ArrayList<>();
        int done = 0;
        for (HostState h : active) {
            TaskResult r = results.get(h).join();
            done++;
            if (r != null) {
                if (ran.isEmpty()) { // as in the linear strategy: no header for a task no host runs
                    batch.listener.taskStarted(task.displayName(), task.position().toString(), false);
                }
                taskResults.put(h, r);
                ran.add(h);
            }
            if (!ran.isEmpty()) {
                batch.listener.progress(task.displayName(), done, active.size());
            }
        }
        if (!ran.isEmpty()) {
            recorder.record(task, ran, taskResults);
        }
    }

    private void runOn(HostState h, List<Task> tasks, List<TaskStep> steps,
                       List<Map<HostState, CompletableFuture<TaskResult>>> results, RunAhead progress) {
        int k = 0;
        ReadAhead ahead = new ReadAhead();
        try {
            while (k < tasks.size() && !batch.stopRequested()) {
                progress.starting(h.name(), k);
                int k0 = k;
                List<TaskResult> ran = progress.withFork(h.name(), () -> {
                    try {
                        batch.runner.ahead.readAhead(tasks, steps, k0, h, ahead);
                        List<TaskResult> together = batch.runner.runTogether(tasks, steps, k0, h, ahead, progress);
                        if (!together.isEmpty()) {
                            // as alone: a change narrows the next reading ahead, each task that changed nothing widens it
                            int widening = together.stream().anyMatch(r -> r.status() == TaskStatus.CHANGED) ? 1 : together.size();
                            for (int i = 0; i < widening; i++) {
                                ahead.ran();
                            }
                            return together;
                        }
                        ahead.following(key -> batch.runner.ahead.readsAfter(tasks, steps, k0 + 1, h, key,
                                batch.runner.tasksTogether.readsAfter(tasks, k0 + 1)));
                        TaskResult result = batch.runner.run(tasks.get(k0), h, false, steps.get(k0), ahead);
                        ahead.following(null);
                        ahead.ran();
                        return List.of(result);
                    } catch (RuntimeException e) {
                        // a bug in the engine or a module: the host fails with the cause, the run goes on
                        return List.of(TaskResult.simple(h.name(), TaskStatus.FAILED, "internal error: " + e));
                    }
                });
                boolean dropsOut = false;
                for (TaskResult r : ran) {
                    results.get(k).get(h).complete(r);
                    dropsOut = r.status() == TaskStatus.FAILED || r.status() == TaskStatus.UNREACHABLE;
                    if (dropsOut) {
                        progress.failed(h.name(), k); // before finished: a waiting reader must see both
                    }
                    progress.finished(h.name(), k);
                    k++;
                    if (dropsOut) {
                        break;
                    }
                }
                if (dropsOut) {
                    break;
                }
            }
        } finally {
            for (; k < tasks.size(); k++) {
                results.get(k).get(h).complete(null); // not run: the host dropped out
            }
            progress.stopped(h.name());
        }
    }
}
