package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans tasks ahead of their turn to learn what they will read ({@link ReadAhead}): the window of
 * tasks a host reads for in one exchange, and the first reads of the task after a write, for that
 * write's exchange to carry.
 */
final class ReadAheadPlanner {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final TaskInputs inputs;

    ReadAheadPlanner(PlayContext play, ModuleRegistry modules, TaskInputs inputs) {
        this.play = play;
        this.modules = modules;
        this.inputs = inputs;
    }

    /** A task (one item of its loop) planned ahead of its turn, to learn what it reads. */
    private record Ahead(Task task, TaskModule module, Params params, Map<String, Object> vars, TaskStep step, int item) {
    }

    /**
     * Reads for {@code host} what tasks {@code from} on will read, in one exchange (two at most), unless
     * {@code ahead} still holds answers: see {@link ReadAhead}. Each task (each item of a loop) whose
     * condition holds and whose arguments render now is planned over a connection that notes what it
     * reads; up to the first task that may set variables, and only tasks that run through the same
     * connection as the first. A task that cannot be planned ahead is left to read for itself.
     */
    void readAhead(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead ahead) {
        if (!ahead.wantsReading(from)) {
            return;
        }
        long started = System.nanoTime();
        try {
            planAhead(tasks, steps, from, host, ahead);
        } finally {
            ahead.releaseClaims(); // those of a plan that ended before its exchange
            ahead.spent(System.nanoTime() - started);
        }
    }

    private void planAhead(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead ahead) {
        Planned planned = aheadOf(tasks, steps, from, host, ahead.window(), ahead);
        ahead.planned(planned.end());
        if (planned.tasks().size() < 2) {
            return; // one task reads as soon alone
        }
        for (int round = 0; round < ReadAhead.ROUNDS; round++) {
            ahead.claiming(round == 0); // a first exchange's claims wait for no other host's: see SharedContents.Claim
            java.util.Set<String> wanted = noteReads(planned, host, ahead);
            ahead.claiming(false);
            if (wanted.isEmpty() || !ahead.read(planned.through(), wanted)) {
                return;
            }
        }
    }

    /**
     * What tasks {@code from} on ({@code window} of them) will read first, for the write of the task
     * before them to read in its exchange ({@link ReadAhead#readingAfter}): empty where they read through another connection
     * than {@code key}'s or cannot be planned now.
     */
    List<String> readsAfter(List<Task> tasks, List<TaskStep> steps, int from, HostState host, dev.provision.engine.connection.ExecTarget key,
                            int window) {
        ReadAhead none = new ReadAhead(); // nothing read yet: every read is noted
        Planned planned = aheadOf(tasks, steps, from, host, window, none);
        if (planned.through() == null || !planned.through().target().equals(key)) {
            return List.of();
        }
        return List.copyOf(noteReads(planned, host, none));
    }

    /** Tasks (items) planned ahead, the connection they read through, and the task the window ended before. */
    private record Planned(List<Ahead> tasks, Connection through, int end) {
    }

    /**
     * The tasks from {@code from} on, at most {@code window}, that can be planned ahead: up to the
     * first that may set variables, and only those that run through the same connection as the first.
     */
    private Planned aheadOf(List<Task> tasks, List<TaskStep> steps, int from, HostState host, int window, ReadAhead ahead) {
        List<Ahead> planned = new ArrayList<>();
        Connection through = null;
        dev.provision.engine.connection.ExecTarget key = null;
        int j = from;
        for (; j < tasks.size() && j < from + window; j++) {
            Task task = tasks.get(j);
            TaskModule module = modules.module(task.module()).orElseThrow();
            if (EngineActs.carriesOut(module)) {
                break;
            }
            // a task with a time limit of its own reads within it, never in an exchange bounded by another's
            boolean ownLimit = task.timeoutSeconds().isPresent();
            try {
                List<Map<String, Object>> items = ownLimit ? List.of() : List.of(Map.of());
                if (task.loop().isPresent() && !ownLimit) {
                    Loop loop = task.loop().get();
                    items = inputs.loopItems(task, host, loop).stream().limit(ReadAhead.MAX_ITEMS)
                            .map(item -> Map.<String, Object>of(loop.loopVar(), item)).toList();
                }
                for (int index = 0; index < items.size(); index++) {
                    Map<String, Object> vars = play.varsFor(task, host, items.get(index));
                    if (inputs.falseCondition(task, vars).isPresent()) {
                        continue;
                    }
                    TaskStep step = steps.get(j);
                    Params params = step.renderForReads(host.name(), index, vars, v -> module.params().validate(inputs.arguments(task, module.params(), v)));
                    Connection connection = inputs.connection(task, host, vars, ahead.exchanges);
                    dev.provision.engine.connection.ExecTarget of = connection.target();
                    if (key == null) {
                        key = of;
                        through = connection;
                    } else if (!key.equals(of)) {
                        continue; // read as another user, or with other variables: read in its turn
                    }
                    planned.add(new Ahead(task, module, params, vars, step, index));
                }
            } catch (TemplateException | ParamException | LoopLookups.LookupException | UnreachableException | RuntimeException e) {
                // this task reports its own problem in its turn
            }
            if (setsVariables(task, module)) {
                j++;
                break;
            }
        }
        return new Planned(planned, through, j);
    }

    /** Whether later tasks may see what {@code task} does through variables (so cannot be planned before it ran). */
    static boolean setsVariables(Task task, TaskModule module) {
        return task.register().isPresent() || module.setsVariables() || task.keywords().get(Keyword.DELEGATE_FACTS);
    }

    /**
     * Plans each task over a connection that answers what {@code ahead} read and notes the rest. A
     * plan that needed nothing more is kept for its turn ({@link ReadAhead#keep}) where it hangs on
     * nothing else: it read no variable or template, and no read or probe was refused (a plan may
     * catch a refusal and go on); a dry run's, planned against the forecast too, holds while that does.
     */
    private java.util.Set<String> noteReads(Planned planned, HostState host, ReadAhead ahead) {
        java.util.Set<String> wanted = new java.util.LinkedHashSet<>();
        for (Ahead a : planned.tasks()) {
            boolean check = inputs.checkMode(a.task());
            ConnectionHostView view = new ConnectionHostView(host.name(), ahead.noting(planned.through(), wanted), host.facts(),
                    check ? Optional.of(host.forecast) : Optional.empty(), new HostReads(ahead), a.step().contents());
            if (!a.module().probesAhead()) {
                view.refuseProbes();
            }
            EngineTaskContext context = new EngineTaskContext(view, play, a.task(), a.vars(), a.step());
            try {
                Plan plan = a.module().plan(a.params(), context);
                if (view.refusals() == 0 && !context.readsVariables()) {
                    ahead.keep(a.step(), a.item(), a.params(), planned.through().target(), check ? host.forecast : null, plan);
                }
            } catch (ModuleException | RuntimeException e) {
                // a read not made yet ended the plan (or the plan fails: it does so again in its turn)
            }
        }
        return wanted;
    }
}
