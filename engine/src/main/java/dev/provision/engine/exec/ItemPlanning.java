package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.control.SetupModule;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The planning step of one task (one item) on one host: the module plans against the host (and,
 * where given, the forecast of plans not applied yet), the facts and variables the plan sets are
 * set, a dry run's effect is forecast, {@code async} wraps the plan's programs.
 */
final class ItemPlanning {
    private final PlayContext play;
    private final TaskInputs inputs;

    ItemPlanning(PlayContext play, TaskInputs inputs) {
        this.play = play;
        this.inputs = inputs;
    }

    /** An item's plan and the output it starts from; or, where it could not be planned, its failure. */
    record ItemPlan(Plan plan, Map<String, Object> output, TaskResult failure) {
        static ItemPlan failed(TaskResult failure) {
            return new ItemPlan(null, Map.of(), failure);
        }
    }

    /**
     * The planning step: the module plans against the host ({@code forecast}, where given, answering
     * for what earlier plans not applied yet would have done), its facts and variables are set, and
     * in check mode its effect is forecast.
     */
    ItemPlan plan(Task task, HostState host, TaskModule module, Params params, Connection connection,
                  Map<String, Object> vars, String label, HostReads reads, TaskStep step, Optional<Forecast> forecast)
            throws TemplateException, UnreachableException {
        return plan(task, host, module, params, connection, vars, label, reads, step, forecast, Optional.empty());
    }

    /**
     * {@link #plan}, where {@code madeAhead}, if given, is the module's plan as made ahead of the
     * turn with these arguments from what is still the host's state ({@link ReadAhead#takeKept}).
     */
    ItemPlan plan(Task task, HostState host, TaskModule module, Params params, Connection connection,
                  Map<String, Object> vars, String label, HostReads reads, TaskStep step, Optional<Forecast> forecast,
                  Optional<Plan> madeAhead) throws TemplateException, UnreachableException {
        boolean check = inputs.checkMode(task);
        ConnectionHostView view = new ConnectionHostView(host.name(), reads.ahead().serving(connection), host.facts(),
                forecast, reads, step.contents());
        EngineTaskContext context = new EngineTaskContext(view, play, task, vars, step);
        Plan plan;
        try {
            plan = madeAhead.isPresent() ? madeAhead.get() : module.plan(params, context);
        } catch (ModuleException e) {
            Optional<UnreachableException> lost = connectionLost(e);
            if (lost.isPresent()) {
                throw lost.get(); // the host, not the module, failed: unreachable
            }
            return ItemPlan.failed(ItemOutcome.failure(host, task, e.isAsWritten() ? e.getMessage() : ItemOutcome.positioned(task, e.getMessage())).withItemLabel(label));
        }
        HostState receiver = host;
        if (task.keywords().get(Keyword.DELEGATE_FACTS) && task.delegateTo().isPresent()) {
            Optional<HostState> delegate = play.stateOf(task.delegateTo().get());
            if (delegate.isEmpty()) {
                return ItemPlan.failed(ItemOutcome.failure(host, task, ItemOutcome.positioned(task, "delegate_facts: '" + task.delegateTo().get()
                        + "' is not in the inventory, so the variables set for it would be lost")).withItemLabel(label));
            }
            receiver = delegate.get();
        }
        plan.facts().forEach(receiver::setVar);
        if (plan.result().get(SetupModule.FACTS_RESULT) instanceof Map<?, ?> gathered) {
            Map<String, Object> facts = new LinkedHashMap<>(receiver.facts());
            gathered.forEach((name, value) -> facts.put(String.valueOf(name), value));
            receiver.facts(facts);
        }
        Map<String, Object> output = new LinkedHashMap<>(plan.result());
        if (forecast.isPresent()) {
            forecast.get().record(plan, view);
        }
        if (check) {
            if (!plan.isEmpty()) {
                RunTimeOutput.resolve(output, RunTimeOutput.placeholder(task));
            }
            if (RunTimeOutput.runsAProgram(plan.changes()) && !output.containsKey("stdout")) {
                // not run: what it prints is known only when it runs (never an empty string that looks real)
                String unknown = RunTimeOutput.placeholder(task);
                output.put("stdout", unknown);
                output.put("stdout_lines", List.of(unknown));
            }
        }
        if (task.keywords().get(Keyword.BACKGROUND_SECONDS).isPresent() && !plan.isEmpty()) {
            try {
                plan = inBackground(plan, task.keywords().get(Keyword.BACKGROUND_SECONDS).get());
            } catch (ModuleException e) {
                return ItemPlan.failed(ItemOutcome.failure(host, task, ItemOutcome.positioned(task, e.getMessage())).withItemLabel(label));
            }
            output.put("started", 1);
            output.put("finished", 0);
        }
        return new ItemPlan(plan, output, null);
    }

    /**
     * {@code async: N} with {@code poll: 0}: each program of the plan started in its own session,
     * detached from the connection (which may even go away: a restart), stopped after {@code seconds}.
     */
    static Plan inBackground(Plan plan, int seconds) throws ModuleException {
        List<Change> changes = new ArrayList<>();
        for (Change change : plan.changes()) {
            List<Command> commands = new ArrayList<>();
            for (Command command : change.commands()) {
                String script = switch (command) {
                    case Command.Exec e when e.stdin().length == 0 -> ShellWords.join(e.argv());
                    case Command.Shell sh -> sh.script();
                    default -> throw new ModuleException("'poll: 0' can start only a program in the background, and this "
                            + "task's plan holds more (" + change.summary() + ")");
                };
                commands.add(new Command.Shell("nohup setsid timeout " + seconds + " sh -c " + ShellWords.quote(script)
                        + " </dev/null >/dev/null 2>&1 &"));
            }
            changes.add(new Change(change.summary() + " (in the background, at most " + seconds + " s)", change.diffs(),
                    commands, change.sensitive()));
        }
        return new Plan(changes, plan.reason(), plan.facts(), plan.result(), plan.afterwards(), plan.checks());
    }

    /** The lost connection behind a module's failure, when that is what it was (a probe's transport broke). */
    static Optional<UnreachableException> connectionLost(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnreachableException lost) {
                return Optional.of(lost);
            }
        }
        return Optional.empty();
    }
}
