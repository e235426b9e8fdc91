package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.ConnectionWait;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.control.MetaModule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs one task on one host, the loop of its steps: its items (one by one, or together where the
 * module allows: {@link LoopTogether}), each item given its inputs ({@link TaskInputs}), planned
 * ({@link ItemPlanning}), applied unless it only plans ({@link CommandRunner#apply}), judged
 * ({@link ItemOutcome}: {@code changed_when}, {@code failed_when}, {@code register}), retried for
 * {@code until}. Never throws for a task failure: it is a result.
 */
final class TaskRunner {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final Connections connections;
    private final Optional<PlanRecording> recording;
    /** What the task is given on a host: its conditions, items, arguments and connection. */
    final TaskInputs inputs;
    /** Plans tasks ahead of their turn to learn what they read. */
    final ReadAheadPlanner ahead;
    private final ItemPlanning planning;
    private final ItemOutcome outcome;
    private final LoopTogether together;
    /** Consecutive tasks of a host planned together and applied in one exchange. */
    final TasksTogether tasksTogether;

    TaskRunner(PlayContext play, ModuleRegistry modules, Connections connections, Optional<PlanRecording> recording) {
        this.play = play;
        this.modules = modules;
        this.connections = connections;
        this.recording = recording;
        this.inputs = new TaskInputs(play, connections);
        this.ahead = new ReadAheadPlanner(play, modules, inputs);
        this.planning = new ItemPlanning(play, inputs);
        this.outcome = new ItemOutcome(play, inputs);
        this.together = new LoopTogether(play, modules, inputs, planning, outcome);
        this.tasksTogether = new TasksTogether(play, modules, inputs, planning, outcome, ahead);
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
            r = failure(host, task, e.getMessage());
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
            return failure(host, task, loop.position() + ": " + e.getMessage());
        }
        prefetch(task, host, list, loop, step, reads);
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
        TaskStatus status = aggregate(results);
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

    /**
     * The read-only probes the loop's items will ask and that the module vouches no other item
     * changes ({@link TaskModule#prefetch}), run in one exchange before the first item plans. An item
     * whose arguments do not render, or whose condition is false, is left to itself.
     */
    void prefetch(Task task, HostState host, List<?> items, Loop loop, TaskStep step, HostReads reads)
            throws UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (items.size() < 2 || module instanceof ConnectionWait || module instanceof MetaModule) {
            return;
        }
        java.util.LinkedHashSet<List<String>> probes = new java.util.LinkedHashSet<>();
        Map<String, Object> firstVars = null;
        for (int index = 0; index < items.size(); index++) {
            try {
                Map<String, Object> vars = play.varsFor(task, host, Map.of(loop.loopVar(), items.get(index)));
                if (inputs.falseCondition(task, vars).isPresent()) {
                    continue;
                }
                Params params = step.render(host.name(), index, vars, v -> module.params().validate(inputs.arguments(task, module.params(), v)));
                probes.addAll(module.prefetch(params));
                firstVars = firstVars == null ? vars : firstVars;
            } catch (TemplateException | ParamException | RuntimeException e) {
                // this item reports its own problem when it runs
            }
        }
        if (probes.size() < 2 || firstVars == null) {
            return;
        }
        try {
            Connection connection = inputs.connection(task, host, firstVars, reads.exchanges);
            // what was read ahead is kept for the items as a prefetched answer: it outlives a change by an item
            Map<List<String>, dev.provision.modules.spi.ProbeResult> known = new LinkedHashMap<>();
            for (List<String> probe : probes) {
                reads.ahead().answer(connection.target(), ExecRequest.argv(probe)).ifPresent(r ->
                        known.put(probe, new dev.provision.modules.spi.ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText())));
            }
            reads.prefetched(known);
            probes.removeAll(known.keySet());
            if (probes.size() >= 2) {
                reads.prefetched(ProbeBatch.run(connection, List.copyOf(probes)));
            }
        } catch (TemplateException e) {
            // the items report it
        }
    }

    private static TaskStatus aggregate(List<TaskResult> results) {
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
        if (module instanceof MetaModule) {
            // flush_handlers and noop: nothing here (the walker runs the handlers after this task)
            String action = params.string("action");
            if (action.equals("end_host")) {
                host.endedPlay(true);
            } else if (action.equals("end_play")) {
                play.hosts.values().forEach(h -> h.endedPlay(true));
            }
            return TaskResult.builder(host.name(), TaskStatus.OK).itemLabel(label).message(switch (action) {
                case "end_host" -> "the play ends here for this host";
                case "end_play" -> "the play ends here for every host";
                case "flush_handlers" -> "the handlers notified so far run now";
                default -> "";
            }).build();
        }
        if (module instanceof ConnectionWait wait) {
            return awaitConnection(task, host, wait, params, label);
        }
        Connection connection = taskConnection(task, host, vars, reads);
        int attempts = task.until().isPresent() ? Math.max(1, task.retries() + 1) : 1;
        TaskResult result = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
                reads.forget(); // until waits for the host to change: read it afresh
                reads.ahead().invalidate();
            }
            result = attempt(task, host, module, params, connection, vars, label, handler, reads, step);
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
                               Map<String, Object> vars, String label, boolean handler, HostReads reads, TaskStep step)
            throws TemplateException, UnreachableException {
        boolean check = inputs.checkMode(task);
        ItemPlanning.ItemPlan planned = planning.plan(task, host, module, params, connection, vars, label, reads, step,
                check ? Optional.of(host.forecast) : Optional.empty());
        if (planned.failure() != null) {
            return planned.failure();
        }
        ItemOutcome.Applied applied = planned.plan().isEmpty() || check ? ItemOutcome.Applied.NOTHING
                : applyItem(task, host, module, planned.plan(), connection, vars, handler, reads);
        return outcome.of(task, host, planned, applied, params, vars, label, handler, step);
    }

    /** What applying a plan came to: the last program's result, or why a write failed (null when none did). */
    /** The applying step: the plan's commands run on the host (a restart awaited), what the last program said. */
    private ItemOutcome.Applied applyItem(Task task, HostState host, TaskModule module, Plan plan, Connection connection,
                              Map<String, Object> vars, boolean handler, HostReads reads) throws UnreachableException {
        reads.forget(); // the host is about to change
        reads.ahead().invalidate();
        // the write also reads what the next task reads first, unless this task's outcome can change what that is
        boolean alone = task.loop().isPresent() || task.until().isPresent() || handler || ReadAheadPlanner.setsVariables(task, module)
                || task.timeoutSeconds().isPresent();
        Connection applying = alone ? connection : reads.ahead().readingAfter(connection);
        try {
            Optional<ExecResult> last = CommandRunner.apply(applying, plan, reboot -> {
                reads.ahead().invalidate(); // what was read before the restart is gone with it
                if (task.delegateTo().isPresent() && !task.delegateTo().get().equals(host.name())) {
                    throw new CommandRunner.CommandFailedException("a restart cannot be awaited through delegate_to; "
                            + "run the task on the host that restarts");
                }
                HostReturn.awaitReboot(connections, host, reboot);
                try {
                    return taskConnection(task, host, vars, reads);
                } catch (TemplateException e) {
                    throw new CommandRunner.CommandFailedException(e.getMessage());
                }
            });
            if (last.isEmpty() || last.get().exitCode() == 0) {
                reads.wrote(plan);
            }
            return new ItemOutcome.Applied(last, null);
        } catch (UnreachableException e) {
            throw e;
        } catch (ConnectionException | CommandRunner.CommandFailedException e) {
            return new ItemOutcome.Applied(Optional.empty(), e.getMessage());
        }
    }

    /** {@code wait_for_connection}: waits for the host itself (never a delegate), in a dry run too. */
    private TaskResult awaitConnection(Task task, HostState host, ConnectionWait wait, Params params, String label)
            throws UnreachableException {
        ConnectionWait.Timing timing;
        try {
            timing = wait.timing(params);
        } catch (ModuleException e) {
            return failure(host, task, positioned(task, e.getMessage())).withItemLabel(label);
        }
        Duration took = HostReturn.awaitConnection(connections, host, timing.delay(), timing.timeout());
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("elapsed", took.toSeconds());
        return TaskResult.builder(host.name(), TaskStatus.OK).message("answered after " + took.toSeconds() + " s")
                .itemLabel(label).output(output).build();
    }

    /** The connection a task's commands run on: the host's (or delegate's), become, {@code environment:}, time limit. */
    private Connection taskConnection(Task task, HostState host, Map<String, Object> vars, HostReads reads)
            throws TemplateException, UnreachableException {
        return inputs.connection(task, host, vars, reads.exchanges);
    }


    static TaskResult failure(HostState host, Task task, String message) {
        return TaskResult.builder(host.name(), TaskStatus.FAILED).message(message).hidden(task.noLog()).build();
    }

    /**
     * A module knows nothing of files: its message gets the task's file:line:column unless it names a
     * place already.
     */
    static String positioned(Task task, String message) {
        if (POSITIONED.matcher(message).lookingAt()) {
            return message;
        }
        return task.position() + ": " + message;
    }

    private static final java.util.regex.Pattern POSITIONED = java.util.regex.Pattern.compile("\\S[^\\n]*?:\\d+:\\d+: ");

    private static void sleep(int seconds) {
        try {
            Thread.sleep(Duration.ofSeconds(Math.max(0, seconds)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
