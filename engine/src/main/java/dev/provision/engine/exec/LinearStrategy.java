package dev.provision.engine.exec;

import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.modules.spi.CrossHostCheck;
import dev.provision.modules.spi.CrossHostTransfer;
import dev.provision.modules.spi.FleetCheck;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Ansible's linear strategy: each task on every active host at once, the next task when all are
 * done. The only strategy for tasks that join or compare hosts: {@code run_once} (the first host
 * runs it, its registered value is every host's), fleet checks (the module compares all hosts'
 * results), cross-host checks and transfers (rounds of commands on several hosts at once), and handlers.
 */
final class LinearStrategy implements Strategy {
    private final BatchRun batch;
    private final ResultRecorder recorder;

    LinearStrategy(BatchRun batch, ResultRecorder recorder) {
        this.batch = batch;
        this.recorder = recorder;
    }

    @Override
    public void run(List<Task> tasks, List<HostState> hosts) {
        for (Task task : tasks) {
            if (batch.stopRequested()) {
                return;
            }
            runTask(task, hosts, false);
        }
    }

    /** Runs the handler {@code handler} on the hosts that were notified. */
    void runHandler(Task handler, List<HostState> hosts) {
        if (!batch.stopRequested()) {
            runTask(handler, hosts, true);
        }
    }

    private void runTask(Task task, List<HostState> active, boolean handler) {
        batch.listener.taskStarted(task.displayName(), task.position().toString(), handler);
        Map<HostState, TaskResult> results;
        if (task.runOnce()) {
            HostState first = active.get(0);
            TaskResult r = batch.runner.run(task, first, handler, new TaskStep());
            results = new LinkedHashMap<>();
            results.put(first, r);
            task.register().ifPresent(name -> first.runtimeVars().entrySet().stream()
                    .filter(e -> e.getKey().equals(name))
                    .forEach(e -> active.forEach(h -> h.setVar(name, e.getValue()))));
        } else {
            TaskStep step = new TaskStep();
            results = batch.parallel(task.displayName(), active, h -> batch.runner.run(task, h, handler, step));
        }
        Optional<FleetCheck> fleet = fleetCheck(batch.modules, task);
        if (fleet.isPresent()) {
            results = fleetStep(task, fleet.get(), results);
        }
        Optional<CrossHostCheck> across = CrossHostRounds.of(batch.modules, task);
        if (across.isPresent() && !task.runOnce()) {
            results = new CrossHostRounds(batch, task).runCheck(across.get(), results);
        }
        Optional<CrossHostTransfer> transfer = CrossHostRounds.transferOf(batch.modules, task);
        if (transfer.isPresent() && !task.runOnce() && !batch.runner.inputs.checkMode(task)) {
            results = new CrossHostRounds(batch, task).runTransfer(transfer.get(), results);
        }
        recorder.record(task, active, results);
    }

    /** The module of {@code task} when it compares hosts after they ran it (a fleet check without a loop). */
    static Optional<FleetCheck> fleetCheck(ModuleRegistry modules, Task task) {
        return task.loop().isEmpty() && modules.module(task.module()).orElseThrow() instanceof FleetCheck fleet
                ? Optional.of(fleet) : Optional.empty();
    }

    /** The aggregation step: the module compares all hosts' results; registered values follow. */
    private static Map<HostState, TaskResult> fleetStep(Task task, FleetCheck fleet, Map<HostState, TaskResult> results) {
        return updated(task, results, FleetRows.apply(fleet, byName(results), task.ignoreErrors()));
    }

    /** The results keyed by host name, as the steps across hosts take them. */
    static Map<String, TaskResult> byName(Map<HostState, TaskResult> results) {
        Map<String, TaskResult> byName = new LinkedHashMap<>();
        results.forEach((h, r) -> byName.put(h.name(), r));
        return byName;
    }

    /**
     * {@code results} with each host's result replaced by its entry in {@code updated} (by name), and
     * its registered value following a replaced result: what a step across hosts hands back.
     */
    static Map<HostState, TaskResult> updated(Task task, Map<HostState, TaskResult> results, Map<String, TaskResult> updated) {
        Map<HostState, TaskResult> out = new LinkedHashMap<>();
        results.forEach((h, r) -> {
            TaskResult now = updated.getOrDefault(h.name(), r);
            if (now != r) {
                task.register().ifPresent(name -> h.setVar(name, ItemOutcome.registerValue(now)));
            }
            out.put(h, now);
        });
        return out;
    }
}
