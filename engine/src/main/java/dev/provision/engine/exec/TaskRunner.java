package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskModule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs one task on one host, the loop of its steps and nothing else: its items (one by one, or
 * together where the module allows: {@link LoopTogether}; their probes read at once: {@link LoopProbes}),
 * each item given its inputs ({@link TaskInputs}), carried out by the engine ({@link EngineActs}) or
 * planned ({@link ItemPlanning}), applied unless it only plans ({@link ItemApplying}), judged
 * ({@link ItemOutcome}: {@code changed_when}, {@code failed_when}, {@code register}), retried for
 * {@code until}. Never throws for a task failure: it is a result.
 */
final class TaskRunner {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final Optional<PlanRecording> recording;
    /** What the task is given on a host: its conditions, items, arguments and connection. */
    final TaskInputs inputs;
    /** Plans tasks ahead of their turn to learn what they read. */
    final ReadAheadPlanner ahead;
    private final ItemPlanning planning;
    private final ItemOutcome outcome;
    private final LoopTogether together;
    private final LoopProbes probes;
    private final ItemApplying applying;
    private final EngineActs acts;
    /** Consecutive tasks of a host planned together and applied in one exchange. */
    final TasksTogether tasksTogether;

    TaskRunner(PlayContext play, ModuleRegistry modules, Connections connections, Optional<PlanRecording> recording) {
        this.play = play;
        this.modules = modules;
        this.recording = recording;
        this.inputs = new TaskInputs(play, connections);
        this.ahead = new ReadAheadPlanner(play, modules, inputs);
        this.planning = new ItemPlanning(play, inputs);
        this.outcome = new ItemOutcome(play, inputs);
        this.together = new LoopTogether(play, modules, inputs, planning, outcome);
        this.probes = new LoopProbes(play, modules, inputs);
        this.applying = new ItemApplying(connections, inputs);
        this.acts = new EngineActs(play, connections);
        this.tasksTogether = new TasksTogether(play, modules, inputs, planning, outcome, ahead, probes);
    }

    /** {@code task} on {@code host}, as part of {@code step} (the task's run over the batch's hosts). */
    TaskResult run(Task task, HostState host, boolean handler, TaskStep step) {
        return run(task, host, handler, step, new ReadAhead());
    }

    /** {@code task} on {@code host}, finding what it reads in {@code ahead} where {@link ReadAheadPlanner#readAhead} read it. */
    TaskResult run(Task task, HostState host, boolean handler, TaskStep step, ReadAhead ahead) {
        long started = System.nanoTime();
        TaskResult r;
        HostReads reads = new HostReads(ahead);
        try {
            r = task.loop().isPresent() ? runLoop(task, host, task.loop().get(), handler, step, reads)
                    : runItem(task, host, Map.of(), "", handler, reads, step, 0);
        } catch (TemplateException e) {
            r = ItemOutcome.failure(host, task, e.getMessage());
        } catch (UnreachableException e) {
            r = TaskResult.simple(host.name(), TaskStatus.UNREACHABLE, e.getMessage());
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started).plus(ahead.takeTime());
        return finish(task, host, r, took, reads.exchanges.get() + ahead.takeExchanges(), handler);
    }

    /**
     * Tasks {@code from} on, on {@code host}, planned together and applied in one exchange where
     * they can be ({@link TasksTogether}): the results of the tasks it ran, in order; none where they
     * cannot (the task then runs alone).
     */
    List<TaskResult> runTogether(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead ahead, RunAhead progress) {
        long started = System.nanoTime();
        List<TasksTogether.Settled> settled;
        try {
            settled = tasksTogether.run(tasks, steps, from, host, ahead, progress, this);
        } catch (UnreachableException e) {
            Duration took = Duration.ofNanos(System.nanoTime() - started).plus(ahead.takeTime());
            return List.of(finish(tasks.get(from), host, TaskResult.simple(host.name(), TaskStatus.UNREACHABLE, e.getMessage()),
                    took, ahead.takeExchanges(), false));
        }
        List<TaskResult> results = new ArrayList<>();
        for (TasksTogether.Settled s : settled) {
            Duration took = Duration.ofNanos(s.nanos()).plus(results.isEmpty() ? ahead.takeTime() : Duration.ZERO);
            int exchanges = s.exchanges() + (results.isEmpty() ? ahead.takeExchanges() : 0);
            results.add(finish(s.task(), host, s.result(), took, exchanges, false));
        }
        return results;
    }

    /** A task's result as reported, recorded and registered: its time and round trips, {@code ignore_errors}. */
    private TaskResult finish(Task task, HostState host, TaskResult result, Duration took, int roundTrips, boolean handler) {
        TaskResult r = result.withDuration(took).withRoundTrips(roundTrips);
        if (r.status() == TaskStatus.FAILED && task.ignoreErrors()) {
            r = r.withStatus(TaskStatus.IGNORED);
        }
        TaskResult planned = r;
        recording.ifPresent(plans -> plans.record(host.name(), task, play.play, handler, planned, !inputs.checkMode(task)));
        if (task.loop().isEmpty()) {
            // every outcome is registered, failures and skips included, so later tasks can test it
            TaskResult registered = r;
            task.register().ifPresent(name -> host.setVar(name, ItemOutcome.registerValue(registered)));
        }
        return r;
    }

    private TaskResult runLoop(Task task, HostState host, Loop loop, boolean handler, TaskStep step, HostReads reads)
            throws TemplateException, UnreachableException {
        List<?> list;
        try {
            list = inputs.loopItems(task, host, loop);
        } catch (LoopLookups.LookupException e) {
            return ItemOutcome.failure(host, task, loop.position() + ": " + e.getMessage());
        }
        probes.prefetch(task, host, list, loop, step, reads);
        return finishLoop(task, host, loop, list, together.run(task, host, loop, list, handler, step, reads), handler, step, reads);
    }

    /**
     * A loop's result from the results of its first items ({@code done}, planned together): the
     * items after them run one by one, then the loop's status, changes and {@code register}.
     */
    TaskResult finishLoop(Task task, HostState host, Loop loop, List<?> list, List<TaskResult> done, boolean handler, TaskStep step,
                          HostReads reads) throws TemplateException, UnreachableException {
        List<TaskResult> results = new ArrayList<>(done);
        for (int index = results.size(); index < list.size(); index++) {
            Map<String, Object> itemVars = Map.of(loop.loopVar(), list.get(index));
            results.add(runItem(task, host, itemVars, inputs.itemLabel(task, host, loop, list.get(index)), handler, reads, step, index));
        }
        List<Object> registered = new ArrayList<>();
        for (int index = 0; index < list.size(); index++) {
            Map<String, Object> reg = ItemOutcome.registerValue(results.get(index));
            reg.put(loop.loopVar(), list.get(index));
            registered.add(reg);
        }
        TaskStatus status = loopStatus(results);
        List<Change> changes = results.stream().flatMap(r -> r.changes().stream()).toList();
        String message = results.stream().filter(r -> r.status() == TaskStatus.FAILED).map(TaskResult::message).findFirst().orElse("");
        boolean check = inputs.checkMode(task);
        TaskResult whole = TaskResult.builder(host.name(), status).changes(changes).message(message).items(results)
                .forecast(check && status == TaskStatus.CHANGED).conditional(handler && check).hidden(task.noLog()).build();
        task.register().ifPresent(name -> {
            Map<String, Object> reg = ItemOutcome.registerValue(whole);
            reg.put("results", registered);
            host.setVar(name, reg);
        });
        return whole;
    }

    /** A loop's status from its items', in the run and when a saved plan is applied alike. */
    static TaskStatus loopStatus(List<TaskResult> results) {
        if (results.stream().anyMatch(r -> r.status() == TaskStatus.FAILED)) {
            return TaskStatus.FAILED;
        }
        if (results.stream().anyMatch(r -> r.status() == TaskStatus.CHANGED)) {
            return TaskStatus.CHANGED;
        }
        // no items at all is skipped too, as in Ansible ("No items in the list")
        if (results.stream().allMatch(r -> r.status() == TaskStatus.SKIPPED)) {
            return TaskStatus.SKIPPED;
        }
        return TaskStatus.OK;
    }

    private TaskResult runItem(Task task, HostState host, Map<String, Object> itemVars, String label, boolean handler,
                               HostReads reads, TaskStep step, int item) throws TemplateException, UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        TaskInputs.Item given = inputs.item(task, host, module, itemVars, label, step, item);
        if (given.settled() != null) {
            return given.settled();
        }
        Map<String, Object> vars = given.vars();
        Params params = given.params();
        Optional<TaskResult> carried = acts.carryOut(task, host, module, params, label);
        if (carried.isPresent()) {
            return carried.get();
        }
        Connection connection = inputs.connection(task, host, vars, reads.exchanges);
        int attempts = task.until().isPresent() ? Math.max(1, task.retries() + 1) : 1;
        TaskResult result = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
                reads.forget(); // until waits for the host to change: read it afresh
                reads.ahead().invalidate();
            }
            result = attempt(task, host, module, params, connection, vars, label, handler, reads, step, item);
            if (task.until().isEmpty() || result.status() == TaskStatus.FAILED && attempt == attempts) {
                break;
            }
            Map<String, Object> withResult = outcome.withRegistered(task, vars, result);
            if (play.templates.test(task.until().get().text(), withResult, task.until().get().position())) {
                break;
            }
            if (attempt == attempts) {
                result = result.withStatus(TaskStatus.FAILED).withMessage("until condition still false after " + attempts + " attempts: " + task.until().get().text());
                break;
            }
            sleep(task.delaySeconds());
        }
        return result;
    }

    private TaskResult attempt(Task task, HostState host, TaskModule module, Params params, Connection connection,
                               Map<String, Object> vars, String label, boolean handler, HostReads reads, TaskStep step, int item)
            throws TemplateException, UnreachableException {
        boolean check = inputs.checkMode(task);
        Optional<dev.provision.modules.spi.Plan> madeAhead = reads.ahead().takeKept(step, item, params, connection.target(),
                check ? host.forecast : null);
        ItemPlanning.ItemPlan planned = planning.plan(task, host, module, params, connection, vars, label, reads, step,
                check ? Optional.of(host.forecast) : Optional.empty(), madeAhead);
        if (planned.failure() != null) {
            return planned.failure();
        }
        ItemOutcome.Applied applied = planned.plan().isEmpty() || check ? ItemOutcome.Applied.NOTHING
                : applying.apply(task, host, module, planned.plan(), connection, vars, handler, reads);
        return outcome.of(task, host, planned, applied, params, vars, label, handler, step);
    }

    private static void sleep(int seconds) {
        try {
            Thread.sleep(Duration.ofSeconds(Math.max(0, seconds)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
