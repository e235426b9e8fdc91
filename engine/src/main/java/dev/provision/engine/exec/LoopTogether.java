package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A loop's items planned together and applied in one exchange, where the module allows it
 * ({@link TaskModule#plansTogether}).
 */
final class LoopTogether {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final TaskInputs inputs;
    private final ItemPlanning planning;
    private final ItemOutcome outcome;

    LoopTogether(PlayContext play, ModuleRegistry modules, TaskInputs inputs, ItemPlanning planning, ItemOutcome outcome) {
        this.play = play;
        this.modules = modules;
        this.inputs = inputs;
        this.planning = planning;
        this.outcome = outcome;
    }

    /** One item of a loop planned with the others ({@link #run}): its plan, or its result where it has one already. */
    private record Together(String label, Params params, Map<String, Object> vars, ItemPlanning.ItemPlan planned, int steps,
                            TaskResult result) {
    }

    /**
     * A run of the loop's items whose module plans them together ({@link TaskModule#plansTogether}):
     * each item planned against what the items before it would have done (the forecast a dry run
     * plans against), then the writes and programs of all of them in one exchange: a dozen kernel
     * parameters in one round trip instead of a dozen. Returns the results of the items it settled,
     * in order: all of them, or those up to the first whose write or program failed (the items after
     * it then run one by one, planned afresh); none at all where the items cannot go together (a plan
     * that is more than writes and programs, items on other connections, keywords that judge each
     * item as it runs).
     */
    List<TaskResult> run(Task task, HostState host, Loop loop, List<?> items, boolean handler, TaskStep step, HostReads reads)
            throws TemplateException, UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (inputs.checkMode(task) || items.size() < 2 || !module.plansTogether() || task.until().isPresent()
                || task.failedWhen().isPresent() || task.timeoutSeconds().isPresent() || task.delegateTo().isPresent()
                || task.keywords().get(Keyword.BACKGROUND_SECONDS).isPresent()) {
            return List.of();
        }
        Forecast forecast = Forecast.forRun(inputs.runsAsRoot(task, host));
        List<Together> planned = new ArrayList<>();
        Connection connection = null;
        List<Command> steps = new ArrayList<>();
        for (int index = 0; index < items.size(); index++) {
            String label = inputs.itemLabel(task, host, loop, items.get(index));
            TaskInputs.Item given = inputs.item(task, host, module, Map.of(loop.loopVar(), items.get(index)), label, step, index);
            if (given.settled() != null) {
                planned.add(new Together(label, null, given.vars(), null, 0, given.settled()));
                continue;
            }
            Map<String, Object> vars = given.vars();
            Params params = given.params();
            Connection itemConnection = inputs.connection(task, host, vars, reads.exchanges);
            if (connection == null) {
                connection = itemConnection;
            } else if (!connection.target().equals(itemConnection.target())) {
                return List.of(); // another user or environment: each item in its turn
            }
            ItemPlanning.ItemPlan plan;
            try {
                plan = planning.plan(task, host, module, params, itemConnection, vars, label, reads, step, Optional.of(forecast));
            } catch (Forecast.OwnerUnknown e) {
                return List.of(); // an item reads what one before it makes: each item in its turn
            }
            if (plan.failure() != null) {
                planned.add(new Together(label, params, vars, null, 0, plan.failure()));
                continue;
            }
            List<Command> commands = plan.plan().changes().stream().flatMap(c -> c.commands().stream()).toList();
            if (!commands.stream().allMatch(CommandRunner::inOneExchange)) {
                return List.of();
            }
            steps.addAll(commands);
            planned.add(new Together(label, params, vars, plan, commands.size(), null));
        }
        AppliedTogether done = AppliedTogether.nothing();
        if (!steps.isEmpty()) {
            reads.forget(); // the host is about to change
            reads.ahead().invalidate();
            done = AppliedTogether.apply(connection, steps);
        }
        List<TaskResult> results = new ArrayList<>();
        for (Together item : planned) {
            if (item.result() != null) {
                results.add(item.result());
                continue;
            }
            ItemOutcome.Applied applied = ItemOutcome.Applied.NOTHING;
            boolean stopped = false;
            if (item.steps() > 0) {
                AppliedTogether.Part mine = done.next(item.steps());
                stopped = mine.stopped();
                applied = mine.applied();
                if (!stopped) {
                    reads.wrote(item.planned().plan());
                }
            }
            results.add(outcome.of(task, host, item.planned(), applied, item.params(), item.vars(), item.label(), handler, step));
            if (stopped) {
                break; // the items after it run one by one
            }
        }
        return results;
    }
}
