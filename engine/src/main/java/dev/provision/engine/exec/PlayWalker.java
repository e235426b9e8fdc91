package dev.provision.engine.exec;

import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Block;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.playbook.TaskNode;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.control.HostFacts;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Walks one batch of one play: connects and gathers facts, then goes through pre_tasks, tasks and
 * post_tasks (blocks with their rescue and always parts, tags, {@code --start-at-task}), flushing
 * handlers after each section. It decides which {@link Strategy} takes each run of tasks; the
 * {@link ResultRecorder} judges the results.
 */
final class PlayWalker {
    private final BatchRun batch;
    private final Connections connections;
    private final FactCache factCache;
    private final RunOptions options;
    private final Executor.StartGate start;
    private final ResultRecorder recorder;
    private final LinearStrategy linear;
    private final RunAheadStrategy runAhead;
    private final List<HostState> hosts;

    PlayWalker(BatchRun batch, Connections connections, FactCache factCache, RunOptions options, Executor.StartGate start) {
        this.batch = batch;
        this.connections = connections;
        this.factCache = factCache;
        this.options = options;
        this.start = start;
        this.recorder = new ResultRecorder(batch.ctx, batch.listener);
        this.linear = new LinearStrategy(batch, recorder);
        this.runAhead = new RunAheadStrategy(batch, recorder);
        this.hosts = List.copyOf(batch.ctx.hosts.values());
    }

    /** @return false when the play must stop for all hosts (failure thresholds) */
    boolean execute() {
        hosts.forEach(h -> h.endedPlay(false)); // meta: end_host lasts one play
        connectAndGather();
        for (List<TaskNode> section : List.of(batch.ctx.play.preTasks(), batch.ctx.play.tasks(), batch.ctx.play.postTasks())) {
            runNodes(section, hosts);
            flushHandlers();
            if (recorder.aborted()) {
                return false;
            }
        }
        return true;
    }

    private void connectAndGather() {
        List<HostState> pending = hosts.stream().filter(HostState::active).toList();
        boolean gather = batch.ctx.play.gatherFacts();
        if (gather) {
            batch.listener.taskStarted("Gathering Facts", batch.ctx.play.position().toString(), false);
        }
        Map<HostState, TaskResult> results = batch.parallel(gather ? "Gathering Facts" : "Connecting", pending, h -> {
            try {
                if (h.connection().isEmpty()) {
                    connections.open(h);
                }
                if (gather && h.facts().isEmpty()) {
                    ExecResult r = h.connection().orElseThrow().exec(ExecRequest.shell(HostFacts.SCRIPT));
                    h.facts(HostFacts.parse(r.stdoutText()));
                    if (!"local".equals(h.host.vars().get("ansible_connection"))) {
                        factCache.store(h.name(), h.facts());
                    }
                }
                return TaskResult.simple(h.name(), TaskStatus.OK, "");
            } catch (UnreachableException e) {
                return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
            } catch (ConnectionException e) {
                return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
            }
        });
        for (HostState h : pending) {
            TaskResult r = results.get(h);
            if (r.status() == TaskStatus.UNREACHABLE) {
                h.markUnreachable();
                batch.ctx.hostsChanged();
                h.stats.count(TaskStatus.UNREACHABLE);
                batch.listener.hostResult(r);
            } else if (gather) {
                h.stats.count(TaskStatus.OK);
                batch.listener.hostResult(r);
            }
        }
    }

    private void runNodes(List<TaskNode> nodes, List<HostState> scope) {
        for (int i = 0; i < nodes.size(); ) {
            List<HostState> active = scope.stream().filter(HostState::active).toList();
            if (active.isEmpty() || recorder.aborted() || batch.stopRequested()) {
                return;
            }
            int end = runAheadEnd(nodes, i, active);
            if (end > i + 1) {
                List<Task> selected = nodes.subList(i, end).stream().map(Task.class::cast).filter(this::selected).toList();
                if (selected.size() < 2) {
                    linear.run(selected, active);
                } else {
                    runAhead.run(selected, active);
                }
                i = end;
                continue;
            }
            switch (nodes.get(i)) {
                case Task t -> {
                    if (selected(t)) {
                        linear.run(List.of(t), active);
                        if (t.module().equals("meta") && "flush_handlers".equals(metaAction(t))) {
                            flushHandlers();
                        }
                    }
                }
                case Block b -> runBlock(b, active);
            }
            i++;
        }
    }

    /**
     * The end of the tasks from {@code i} on that the hosts may go through without waiting for
     * each other at every task: consecutive tasks of host-local modules ({@link
     * dev.provision.modules.spi.TaskModule#isHostLocal}), none of which compares or joins hosts
     * ({@code run_once}, {@code delegate_to}, fleet checks). Any other task starts when every
     * host has finished the ones before it; blocks, handlers and {@code serial} batches keep
     * their points; a play with a failure threshold (judged after every task) never runs ahead.
     * More hosts than {@code forks} run ahead too: a host waiting on another gives its fork
     * back while it waits ({@link RunAhead#withFork}), so it never holds the fork that one needs.
     */
    private int runAheadEnd(List<TaskNode> nodes, int i, List<HostState> active) {
        if (active.isEmpty() || batch.ctx.play.anyErrorsFatal() || batch.ctx.play.maxFailPercentage().isPresent()) {
            return i;
        }
        int end = i;
        while (end < nodes.size() && nodes.get(end) instanceof Task t && mayRunAhead(t)) {
            end++;
        }
        return end;
    }

    /** A task of a host-local module, on its own host, that neither joins nor compares hosts. */
    private boolean mayRunAhead(Task task) {
        return !task.runOnce() && task.delegateTo().isEmpty() && LinearStrategy.fleetCheck(batch.modules, task).isEmpty()
                && CrossHostRounds.of(batch.modules, task).isEmpty() && CrossHostRounds.transferOf(batch.modules, task).isEmpty()
                && batch.modules.module(task.module()).orElseThrow().isHostLocal();
    }

    private void runBlock(Block b, List<HostState> scope) {
        runNodes(b.block(), scope);
        List<HostState> failedInBlock = scope.stream().filter(h -> h.failed() && !h.unreachable()).toList();
        if (!b.rescue().isEmpty() && !failedInBlock.isEmpty()) {
            failedInBlock.forEach(h -> {
                h.failed(false);
                h.stats.rescue();
            });
            batch.ctx.hostsChanged();
            runNodes(b.rescue(), failedInBlock);
        }
        List<HostState> stillFailed = scope.stream().filter(h -> h.failed() && !h.unreachable()).toList();
        if (!b.always().isEmpty()) {
            stillFailed.forEach(h -> h.failed(false));
            batch.ctx.hostsChanged();
            runNodes(b.always(), scope);
            stillFailed.forEach(h -> h.failed(true));
            batch.ctx.hostsChanged();
        }
    }

    /** Whether the task runs: chosen by the tags, and past {@code --start-at-task} (in task order). */
    private boolean selected(Task task) {
        return selectedByTags(task) && start.open(task);
    }

    private boolean selectedByTags(Task task) {
        Set<String> tags = new HashSet<>(task.tags());
        tags.addAll(batch.ctx.play.tags());
        if (!options.skipTags().isEmpty() && tags.stream().anyMatch(options.skipTags()::contains)) {
            return false;
        }
        if (options.tags().isEmpty() || options.tags().contains("all") || tags.contains("always")) {
            return true;
        }
        return tags.stream().anyMatch(options.tags()::contains);
    }

    private static String metaAction(Task t) {
        return String.valueOf(t.args().getOrDefault(Task.FREE_FORM, t.args().get("action"))).strip();
    }

    private void flushHandlers() {
        Map<HostState, Set<String>> notified = new LinkedHashMap<>();
        for (HostState h : hosts) {
            Set<String> n = h.takeNotified();
            if (!n.isEmpty() && h.active()) {
                notified.put(h, n);
            }
        }
        if (notified.isEmpty()) {
            return;
        }
        if (batch.stopRequested()) {
            // What the changes made so far still need: the next run does not notify again.
            Set<String> pending = new TreeSet<>();
            notified.forEach((h, topics) -> pending.add(h.name() + ": " + String.join(", ", topics)));
            batch.listener.warning("interrupted before these handlers ran (run them by hand): " + String.join("; ", pending));
            return;
        }
        for (Task handler : batch.ctx.play.handlers()) {
            List<HostState> targets = new ArrayList<>();
            notified.forEach((h, topics) -> {
                if (topics.contains(handler.name()) || handler.listen().stream().anyMatch(topics::contains)) {
                    targets.add(h);
                }
            });
            List<HostState> active = targets.stream().filter(HostState::active).toList();
            if (!active.isEmpty()) {
                linear.runHandler(handler, active);
            }
        }
    }
}
