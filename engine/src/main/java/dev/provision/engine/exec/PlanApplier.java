package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.Plan;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * Applies what a {@link PlanRecording} holds, exactly: each host's recorded changes in their order,
 * without planning again, the hosts in parallel as a run takes a task across them ({@link HostsInParallel})
 * and the steps reported one after another as a run reports its tasks; a loop's items as the run's
 * loop has them ({@link TaskRunner#loopStatus}); play by play and, in a play with {@code serial},
 * batch by batch, a failure threshold ({@code any_errors_fatal}, {@code max_fail_percentage}) ending
 * the apply as it ends the run ({@link ResultRecorder#crossesThreshold}). A host that fails or is
 * lost drops out, as in a run.
 */
final class PlanApplier {
    private final ConnectionFactory connectionFactory;
    private final RunListener listener;
    private final char[] becomePassword;
    private final int forks;
    /** The run's {@code --task-timeout}: a task without {@code timeout:} is bounded by it, as in the run. */
    private final Duration taskTimeout;

    PlanApplier(ConnectionFactory connectionFactory, RunListener listener, char[] becomePassword, int forks, Duration taskTimeout) {
        this.connectionFactory = connectionFactory;
        this.listener = listener;
        this.becomePassword = becomePassword;
        this.forks = forks;
        this.taskTimeout = taskTimeout;
    }

    RunSummary apply(PlanRecording recording, List<String> hostNames, Inventory inventory) {
        Map<String, HostState> states = new LinkedHashMap<>();
        Map<HostState, Deque<PlanRecording.Entry>> pending = new LinkedHashMap<>();
        Map<String, List<PlanRecording.Entry>> entries = recording.entries();
        for (String name : hostNames) {
            HostState h = new HostState(inventory.host(name).orElseThrow());
            states.put(name, h);
            pending.put(h, new ArrayDeque<>(entries.getOrDefault(name, List.of())));
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
             Connections connections = new Connections(connectionFactory, inventory, becomePassword)) {
            HostsInParallel parallel = new HostsInParallel(pool, new Semaphore(forks), listener);
            listener.playStarted("Apply the saved plan", List.copyOf(states.keySet()), false);
            parallel.run("Connecting", List.copyOf(states.values()), h -> connect(h, connections)).forEach((h, r) -> {
                if (r != null) {
                    report(h, r);
                }
            });
            // Play by play, and in a play with serial: batch by batch, as the run goes (a rolling change stays rolling).
            for (List<PlanRecording.Step> steps : byPlay(recording)) {
                Play play = recording.play(steps.getFirst());
                List<HostState> playHosts = pending.keySet().stream().filter(h -> hasAny(pending.get(h), steps)).toList();
                for (List<HostState> batch : Batches.split(playHosts, play.serial())) {
                    if (!applyBatch(recording, play, steps, batch, pending, parallel, connections)) {
                        listener.warning(ResultRecorder.stoppedBy(play));
                        return RunSummary.of(states.values(), false);
                    }
                }
            }
        } finally {
            states.values().forEach(HostState::closeConnection);
        }
        return RunSummary.of(states.values(), false);
    }

    /**
     * {@code steps}, all of {@code play}, on one batch of its hosts, task by task; false when a failure threshold
     * of the play was crossed ({@link ResultRecorder#crossesThreshold}): nothing further is applied.
     */
    private boolean applyBatch(PlanRecording recording, Play play, List<PlanRecording.Step> steps, List<HostState> batch,
                               Map<HostState, Deque<PlanRecording.Entry>> pending, HostsInParallel parallel, Connections connections) {
        for (int i = 0; i < steps.size(); ) {
            // A loop's items are steps of one task: one TASK line, one result per host with its items.
            PlanRecording.Step first = steps.get(i);
            int end = i + 1;
            while (end < steps.size() && sameTask(first, steps.get(end)) && !steps.get(end).item().isEmpty()) {
                end++;
            }
            List<PlanRecording.Step> group = steps.subList(i, end);
            i = end;
            Map<HostState, List<PlanRecording.Entry>> mine = new LinkedHashMap<>();
            for (HostState h : batch) {
                while (h.active() && pending.get(h).peek() != null && group.contains(headStep(pending.get(h)))) {
                    mine.computeIfAbsent(h, k -> new ArrayList<>()).add(pending.get(h).poll());
                }
            }
            if (mine.isEmpty()) {
                continue;
            }
            listener.taskStarted(first.task(), first.position(), first.handler());
            Map<HostState, TaskResult> results = parallel.run(first.task(), List.copyOf(mine.keySet()),
                    h -> applyTask(recording, mine.get(h), h, connections));
            results.forEach(this::report);
            boolean failed = results.values().stream().anyMatch(r -> r.status() == TaskStatus.FAILED);
            if (ResultRecorder.crossesThreshold(play, batch, failed)) {
                return false;
            }
        }
        return true;
    }

    /** The steps in their order, cut where the play changes. */
    private static List<List<PlanRecording.Step>> byPlay(PlanRecording recording) {
        List<List<PlanRecording.Step>> plays = new ArrayList<>();
        Play current = null;
        for (PlanRecording.Step step : recording.steps()) {
            Play play = recording.play(step);
            if (plays.isEmpty() || play != current) {
                plays.add(new ArrayList<>());
                current = play;
            }
            plays.getLast().add(step);
        }
        return plays;
    }

    private static boolean hasAny(Deque<PlanRecording.Entry> queue, List<PlanRecording.Step> steps) {
        return queue.stream().anyMatch(e -> steps.contains(e.step()));
    }

    /** Opens the host's connection: null, or why it is unreachable. */
    private static TaskResult connect(HostState h, Connections connections) {
        try {
            connections.open(h);
            return null;
        } catch (UnreachableException e) {
            return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
        }
    }

    private static boolean sameTask(PlanRecording.Step a, PlanRecording.Step b) {
        return a.task().equals(b.task()) && a.position().equals(b.position()) && a.handler() == b.handler();
    }

    /** One task on one host: its entry, or its loop items in order (a failed item does not end the loop, as in a run). */
    private TaskResult applyTask(PlanRecording recording, List<PlanRecording.Entry> entries, HostState h, Connections connections) {
        if (entries.size() == 1 && entries.getFirst().step().item().isEmpty()) {
            return applyEntry(recording, entries.getFirst(), h, connections);
        }
        List<TaskResult> items = new ArrayList<>();
        for (PlanRecording.Entry entry : entries) {
            TaskResult item = applyEntry(recording, entry, h, connections);
            if (item.status() == TaskStatus.UNREACHABLE) {
                return item;
            }
            items.add(item);
        }
        boolean hidden = entries.getFirst().hidden();
        return TaskResult.builder(h.name(), TaskRunner.loopStatus(items)).items(items).hidden(hidden).build();
    }

    private static PlanRecording.Step headStep(Deque<PlanRecording.Entry> queue) {
        PlanRecording.Entry head = queue.peek();
        return head == null ? null : head.step();
    }

    private TaskResult applyEntry(PlanRecording recording, PlanRecording.Entry entry, HostState h, Connections connections) {
        long started = System.nanoTime();
        PlanRecording.Step step = entry.step();
        if (entry.ranForReal()) {
            return result(h, entry, TaskStatus.OK, "ran for real in the dry run that verified the plan (check_mode: false)", started);
        }
        if (entry.changes().isEmpty()) {
            TaskStatus status = entry.status() == TaskStatus.SKIPPED ? TaskStatus.SKIPPED : TaskStatus.OK;
            return result(h, entry, status, entry.message(), started);
        }
        PlanRecording.Source source = recording.source(entry);
        try {
            Connection connection = TaskInputs.timeLimited(source.task(), taskTimeout, connections.forTask(source.task(), source.play(), h));
            java.util.Optional<ExecResult> last = CommandRunner.apply(connection, new Plan(entry.changes(), "", Map.of(), Map.of()),
                    reboot -> {
                        HostReturn.awaitRestartOf(source.task(), connections, h, reboot);
                        return TaskInputs.timeLimited(source.task(), taskTimeout, connections.forTask(source.task(), source.play(), h));
                    });
            if (last.isPresent() && last.get().exitCode() != 0) {
                return result(h, entry, TaskStatus.FAILED, ItemOutcome.nonZero(last.get(), entry.hidden()), started);
            }
            return result(h, entry, TaskStatus.CHANGED, "", started);
        } catch (UnreachableException e) {
            return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
        } catch (ConnectionException | CommandRunner.CommandFailedException e) {
            return result(h, entry, TaskStatus.FAILED, step.task() + ": " + e.getMessage(), started);
        }
    }

    private static TaskResult result(HostState h, PlanRecording.Entry entry, TaskStatus status, String message, long started) {
        return TaskResult.builder(h.name(), status)
                .changes(status == TaskStatus.CHANGED || status == TaskStatus.FAILED ? entry.changes() : List.of())
                .message(message).itemLabel(entry.step().item()).hidden(entry.hidden())
                .duration(Duration.ofNanos(System.nanoTime() - started)).build();
    }

    private void report(HostState h, TaskResult r) {
        h.took(r);
        listener.hostResult(r);
    }
}
