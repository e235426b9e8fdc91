package dev.provision.engine.exec;

import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import java.util.List;
import java.util.Map;

/**
 * Takes a task's results, in host order: counts them in each host's stats, reports them, marks
 * failed and unreachable hosts, notifies handlers for changes, and judges the play's failure
 * thresholds ({@code any_errors_fatal}, {@code max_fail_percentage}).
 */
final class ResultRecorder {
    private final PlayContext ctx;
    private final RunListener listener;
    private final List<HostState> batch;
    private boolean aborted;

    ResultRecorder(PlayContext ctx, RunListener listener) {
        this.ctx = ctx;
        this.listener = listener;
        this.batch = List.copyOf(ctx.hosts.values());
    }

    /** Whether a failure threshold was crossed: the play stops for every host. */
    boolean aborted() {
        return aborted;
    }

    /** @param results by host; a host of {@code active} without a result did not run the task */
    void record(Task task, List<HostState> active, Map<HostState, TaskResult> results) {
        int failures = 0;
        for (HostState h : active) {
            TaskResult r = results.get(h);
            if (r == null) {
                continue;
            }
            h.took(r);
            listener.hostResult(r);
            switch (r.status()) {
                case FAILED -> failures++;
                case CHANGED -> task.notifies().forEach(h::notify);
                default -> { }
            }
            if (task.runOnce() && r.status() == TaskStatus.CHANGED) {
                active.forEach(o -> task.notifies().forEach(o::notify));
            }
        }
        if (results.values().stream().anyMatch(r -> r.status() == TaskStatus.FAILED || r.status() == TaskStatus.UNREACHABLE)) {
            ctx.hostsChanged();
        }
        if (crossesThreshold(ctx.play, batch, failures > 0)) {
            aborted = true;
        }
    }

    /**
     * Whether a task's results cross {@code play}'s failure threshold in {@code batch} (its hosts of
     * this {@code serial} batch, failed and lost ones counted): the play stops for every host, and as
     * in Ansible, the remaining batches and plays do not run. A run and a saved plan's apply judge alike.
     *
     * @param failedNow whether the task failed on any host
     */
    static boolean crossesThreshold(Play play, List<HostState> batch, boolean failedNow) {
        if (failedNow && play.anyErrorsFatal()) {
            return true;
        }
        if (play.maxFailPercentage().isPresent()) {
            long failedHosts = batch.stream().filter(h -> h.failed() || h.unreachable()).count();
            return failedHosts * 100.0 / batch.size() > play.maxFailPercentage().get();
        }
        return false;
    }

    /** What the run says when a threshold stopped it. */
    static String stoppedBy(Play play) {
        return "play '" + (play.name().isEmpty() ? play.hosts() : play.name()) + "' stopped by "
                + (play.anyErrorsFatal() ? "any_errors_fatal" : "max_fail_percentage") + "; no further tasks or plays run";
    }
}
