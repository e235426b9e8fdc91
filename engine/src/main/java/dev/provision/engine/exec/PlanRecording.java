package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.Change;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every plan a dry run made, per host and in order: what a saved plan is written from, and what
 * {@link Executor#applyRecorded} applies, exactly, without planning again. Filled by the
 * {@link TaskRunner} of a check run ({@link Executor#record}); thread-safe.
 */
public final class PlanRecording {
    /** A task (or a loop item of it) as the output names it. */
    public record Step(String task, String position, boolean handler, String item) {
        public Step {
            requireNonNull(task, "task cannot be null");
            requireNonNull(position, "position cannot be null");
            requireNonNull(item, "item cannot be null");
        }
    }

    /**
     * One step's plan on one host.
     *
     * @param hidden {@code no_log}: summaries, diffs and contents are secrets
     * @param ranForReal a {@code check_mode: false} task: it ran during the dry run itself, so an
     *     apply has nothing left to do for it
     */
    public record Entry(Step step, TaskStatus status, List<Change> changes, String message, boolean hidden, boolean ranForReal) {
        public Entry {
            requireNonNull(step, "step cannot be null");
            requireNonNull(status, "status cannot be null");
            changes = List.copyOf(changes);
            requireNonNull(message, "message cannot be null");
        }
    }

    /** What applying an entry needs besides the entry: how to reach the host for that task (become, delegate_to). */
    record Source(Task task, Play play) {
    }

    private final Map<String, List<Entry>> entries = new LinkedHashMap<>();
    private final Map<Entry, Source> sources = new java.util.IdentityHashMap<>();
    /** Steps in first-reached order; a step a host reaches twice (a handler flushed twice) is in it twice. */
    private final List<Step> order = new ArrayList<>();
    /** The play each step is a task of. */
    private final Map<Step, Play> plays = new java.util.HashMap<>();

    synchronized void record(String host, Task task, Play play, boolean handler, TaskResult result, boolean ranForReal) {
        List<Entry> list = entries.computeIfAbsent(host, h -> new ArrayList<>());
        List<TaskResult> parts = result.items().isEmpty() ? List.of(result) : result.items();
        for (TaskResult part : parts) {
            Step step = new Step(task.displayName(), task.position().toString(), handler, part.itemLabel());
            Entry entry = new Entry(step, part.status(), part.changes(), part.message(), task.noLog(), ranForReal);
            list.add(entry);
            sources.put(entry, new Source(task, play));
            plays.putIfAbsent(step, play);
            long reached = list.stream().filter(e -> e.step().equals(step)).count();
            if (order.stream().filter(step::equals).count() < reached) {
                order.add(step);
            }
        }
    }

    /** Host to its entries in the order they were planned; hosts in the order they first planned. */
    public synchronized Map<String, List<Entry>> entries() {
        Map<String, List<Entry>> copy = new LinkedHashMap<>();
        entries.forEach((h, l) -> copy.put(h, List.copyOf(l)));
        return copy;
    }

    /** Every step in the order the run first reached it (the order an apply reports them in). */
    synchronized List<Step> steps() {
        return List.copyOf(order);
    }

    synchronized Source source(Entry entry) {
        return sources.get(entry);
    }

    /** The play {@code step} (one of {@link #steps}) is a task of. */
    synchronized Play play(Step step) {
        return plays.get(step);
    }

    /**
     * Whether {@code entry}'s task sets {@code environment:}, which the apply of a recording does not
     * carry (it is templated per host and item in the run; a saved plan's commands run without it).
     */
    public synchronized boolean setsEnvironment(Entry entry) {
        Source source = sources.get(entry);
        return source != null && !source.task().keywords().get(Keyword.ENVIRONMENT).isEmpty();
    }
}
