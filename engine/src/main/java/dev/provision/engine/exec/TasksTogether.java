package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Consecutive tasks of one host planned together and applied in one exchange, as a loop's items are
 * ({@link LoopTogether}): each task planned against what the tasks before it would have done (the
 * forecast a dry run plans against), then the changes of all of them in one round trip, which also
 * reads what the task after them reads first. Where the floor's script writes the cluster's SSH
 * directory, keys and authorized keys in one go, so does a run of {@code file}, {@code copy} and
 * {@code authorized_key} tasks.
 *
 * <p>Which tasks join ({@link #joins}): those of modules whose dry run is exact
 * ({@link TaskModule#plansTogether}; their loops too, item by item), outside a dry run, with
 * nothing that judges or reads what they did before the next task plans (no {@code register},
 * {@code until}, {@code changed_when}, {@code failed_when}, own {@code timeout}, {@code async},
 * {@code delegate_to}). The run of tasks ends before a task that cannot be planned now (its
 * arguments or plan fail: it runs in its turn and says why), that runs through another connection
 * (another user, other variables), or whose plan read a host that has not caught up with this one
 * (that host may be waiting for this one's earlier task: {@link RunAhead#planningAhead}).
 *
 * <p>The first task whose change fails ends it: the tasks after it are not applied and the host
 * drops out as it would have (with {@code ignore_errors}, they run one by one, planned afresh); in
 * a loop, the items after a failed one run one by one, as in the loop run alone.
 */
final class TasksTogether {
    /** The most tasks applied in one exchange. */
    static final int MOST = 32;

    private final PlayContext play;
    private final ModuleRegistry modules;
    private final TaskInputs inputs;
    private final ItemPlanning planning;
    private final ItemOutcome outcome;
    private final ReadAheadPlanner ahead;
    private final LoopProbes probes;

    TasksTogether(PlayContext play, ModuleRegistry modules, TaskInputs inputs, ItemPlanning planning, ItemOutcome outcome,
                  ReadAheadPlanner ahead, LoopProbes probes) {
        this.play = play;
        this.modules = modules;
        this.inputs = inputs;
        this.planning = planning;
        this.outcome = outcome;
        this.ahead = ahead;
        this.probes = probes;
    }

    /** A task's result from a run of tasks applied together, with the time it took and its round trips. */
    record Settled(Task task, TaskResult result, long nanos, int exchanges) {
    }

    /** One item planned (a task outside a loop is one): its plan and steps, or its result where it is settled before it is applied. */
    private record Item(String label, Map<String, Object> vars, Params params, Connection connection, ItemPlanning.ItemPlan plan,
                        List<Command> commands, TaskResult settled) {
        /** Whether it failed before it was applied (its arguments, its plan). */
        boolean failed() {
            return settled != null && settled.status() == TaskStatus.FAILED;
        }
    }

    /** One task of the run: its items (its loop's, or the one) and, for a loop, what it went over. */
    private record Planned(Task task, TaskStep step, Connection connection, List<Item> items, List<?> loopItems, long nanos) {
        boolean failed() {
            return items.stream().anyMatch(Item::failed);
        }

        List<Command> commands() {
            return items.stream().flatMap(i -> i.commands().stream()).toList();
        }
    }

    /** Whether {@code task} can be planned against the forecast of the tasks before it and applied with them. */
    boolean joins(Task task) {
        TaskModule module = modules.module(task.module()).orElseThrow();
        return module.plansTogether() && !inputs.checkMode(task)
                && !ReadAheadPlanner.setsVariables(task, module) && task.until().isEmpty() && task.changedWhen().isEmpty()
                && task.failedWhen().isEmpty() && task.timeoutSeconds().isEmpty() && task.delegateTo().isEmpty()
                && task.keywords().get(Keyword.BACKGROUND_SECONDS).isEmpty() && !task.runOnce();
    }

    /** How many tasks from {@code from} on may join one run ({@link #joins}), at most {@link #MOST}. */
    int reach(List<Task> tasks, int from) {
        int end = from;
        while (end < tasks.size() && end - from < MOST && joins(tasks.get(end))) {
            end++;
        }
        return end - from;
    }

    /**
     * How many tasks a write before task {@code from} reads for: those that will plan together
     * there before anything changes the host again, else the one.
     */
    int readsAfter(List<Task> tasks, int from) {
        return Math.max(ReadAhead.AFTER_A_WRITE, reach(tasks, from));
    }

    /**
     * Tasks {@code from} on, planned together and applied in one exchange: the results of the tasks
     * it settled, in order (all of them, or those up to the first whose change failed; the first task
     * alone where the second cannot join it); none where fewer than two tasks from {@code from} on
     * may join or the first cannot be planned now (the task then runs alone).
     */
    List<Settled> run(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead reading, RunAhead progress,
                      TaskRunner runner) throws UnreachableException {
        int reach = reach(tasks, from);
        if (reach < 2) {
            return List.of();
        }
        HostReads reads = new HostReads(reading);
        boolean asRoot = true;
        for (int j = from; j < from + reach; j++) {
            asRoot &= inputs.runsAsRoot(tasks.get(j), host);
        }
        Forecast forecast = Forecast.forRun(asRoot);
        List<Planned> planned = new ArrayList<>();
        Connection connection = null;
        try {
            for (int j = from; j < from + reach; j++) {
                long started = System.nanoTime();
                progress.planningAhead(host.name(), j);
                Planned p = null;
                try {
                    p = plan(tasks.get(j), steps.get(j), host, reads, forecast, connection, started, runner);
                } catch (TemplateException | RuntimeException e) {
                    // it says so in its turn (a read of a host that has not caught up ends up here too)
                } finally {
                    if (progress.endPlanningAhead(host.name())) {
                        p = null; // it read a host that had not caught up: planned again in its turn
                    }
                }
                if (p == null || p.failed() && j > from) {
                    break; // planned again in its turn: what failed may have come from the forecast
                }
                if (connection == null) {
                    connection = p.connection();
                }
                planned.add(p);
                if (p.failed()) {
                    break; // the first task, planned against the host as it is: its failure is its result
                }
            }
        } finally {
            progress.starting(host.name(), from);
        }
        if (planned.isEmpty()) {
            return List.of();
        }
        int end = from + planned.size();
        List<Command> commands = planned.stream().flatMap(p -> p.commands().stream()).toList();
        AppliedTogether done = AppliedTogether.nothing();
        long applying = System.nanoTime();
        if (!commands.isEmpty()) {
            reads.forget(); // the host is about to change
            reading.invalidate();
            reading.following(key -> ahead.readsAfter(tasks, steps, end, host, key, readsAfter(tasks, end)));
            try {
                done = AppliedTogether.apply(reading.readingAfter(connection), commands);
            } finally {
                reading.following(null);
            }
        }
        long applied = System.nanoTime() - applying;
        long changing = planned.stream().filter(p -> !p.commands().isEmpty()).count();
        List<Settled> results = new ArrayList<>();
        for (Planned p : planned) {
            int exchanges = results.isEmpty() ? reads.exchanges.get() : 0;
            List<TaskResult> items = new ArrayList<>();
            boolean stopped = false;
            try {
                for (Item item : p.items()) {
                    if (item.settled() != null) {
                        items.add(item.settled());
                        stopped = item.failed();
                    } else {
                        ItemOutcome.Applied outcomeOf = ItemOutcome.Applied.NOTHING;
                        int n = item.commands().size();
                        if (n > 0) {
                            AppliedTogether.Part mine = done.next(n);
                            stopped = mine.stopped();
                            outcomeOf = mine.applied();
                            if (!stopped) {
                                reads.wrote(item.plan().plan());
                            }
                        }
                        TaskResult result = outcome.of(p.task(), host, item.plan(), outcomeOf, item.params(), item.vars(), item.label(),
                                false, p.step());
                        items.add(result);
                        stopped |= result.status() == TaskStatus.FAILED;
                    }
                    if (stopped) {
                        break; // the items and tasks after it were planned as if it had done its part
                    }
                }
            } catch (TemplateException e) {
                items.add(ItemOutcome.failure(host, p.task(), e.getMessage()));
                stopped = true;
            }
            TaskResult result = items.isEmpty() ? null : items.getLast();
            if (p.task().loop().isPresent()) {
                try {
                    // the items after a failed one run one by one, planned afresh, as the loop goes on in Ansible
                    result = runner.finishLoop(p.task(), host, p.task().loop().get(), p.loopItems(), items, false, p.step(), reads);
                } catch (TemplateException e) {
                    result = ItemOutcome.failure(host, p.task(), e.getMessage());
                }
            }
            long nanos = p.nanos() + (p.commands().isEmpty() ? 0 : applied / changing);
            results.add(new Settled(p.task(), result, nanos, exchanges));
            if (stopped || result.status() == TaskStatus.FAILED) {
                break;
            }
        }
        return results;
    }

    /**
     * One task planned against the forecast of those before it (each item of its loop against those
     * before it too), or its result where it is settled before it is applied (skipped; failed); null
     * where the run must end before it (it runs through another connection, holds a step that cannot
     * go in the exchange, or is a loop an item of which cannot be planned now).
     */
    private Planned plan(Task task, TaskStep step, HostState host, HostReads reads, Forecast forecast, Connection through,
                         long started, TaskRunner runner) throws TemplateException, UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (task.loop().isEmpty()) {
            Item item = item(task, module, host, Map.of(), "", step, 0, reads, forecast, through);
            return item == null ? null : new Planned(task, step, item.connection(), List.of(item), List.of(), System.nanoTime() - started);
        }
        Loop loop = task.loop().get();
        List<?> list;
        try {
            list = inputs.loopItems(task, host, loop);
        } catch (LoopLookups.LookupException e) {
            return null; // the loop says so in its turn
        }
        probes.prefetch(task, host, list, loop, step, reads);
        List<Item> items = new ArrayList<>();
        Connection connection = through;
        for (int index = 0; index < list.size(); index++) {
            Item item = item(task, module, host, Map.of(loop.loopVar(), list.get(index)), inputs.itemLabel(task, host, loop, list.get(index)),
                    step, index, reads, forecast, connection);
            if (item == null || item.failed()) {
                return null; // the loop runs in its turn, each item as it does there
            }
            connection = connection == null ? item.connection() : connection;
            items.add(item);
        }
        return new Planned(task, step, connection, items, list, System.nanoTime() - started);
    }

    /** One item (of a loop, or the task's one) planned against the forecast; null as for {@link #plan}. */
    private Item item(Task task, TaskModule module, HostState host, Map<String, Object> itemVars, String label, TaskStep step, int index,
                      HostReads reads, Forecast forecast, Connection through) throws TemplateException, UnreachableException {
        TaskInputs.Item given = inputs.item(task, host, module, itemVars, label, step, index);
        if (given.settled() != null) {
            return new Item(label, given.vars(), null, through, null, List.of(), given.settled());
        }
        Connection connection = inputs.connection(task, host, given.vars(), reads.exchanges);
        if (through != null && !through.target().equals(connection.target())) {
            return null;
        }
        // what it made ahead holds where nothing planned before it in this exchange changes anything
        Optional<dev.provision.modules.spi.Plan> madeAhead = forecast.isEmpty()
                ? reads.ahead().takeKept(step, index, given.params(), connection.target(), null) : Optional.empty();
        ItemPlanning.ItemPlan plan = planning.plan(task, host, module, given.params(), connection, given.vars(), label, reads, step,
                Optional.of(forecast), madeAhead);
        if (plan.failure() != null) {
            return new Item(label, given.vars(), given.params(), connection, null, List.of(), plan.failure());
        }
        List<Command> commands = plan.plan().changes().stream().flatMap(c -> c.commands().stream()).toList();
        if (!commands.stream().allMatch(CommandRunner::inOneExchange)) {
            return null;
        }
        return new Item(label, given.vars(), given.params(), connection, plan, commands, null);
    }
}
