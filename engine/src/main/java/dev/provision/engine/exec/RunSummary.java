package dev.provision.engine.exec;

import dev.provision.engine.report.HostStats;
import java.util.List;
import java.util.Map;

/**
 * What a run came to, for the exit code: per-host counters and the hosts to retry.
 *
 * @param interrupted the operator stopped the run ({@link Executor#requestStop}): tasks after that point did not run
 */
public record RunSummary(Map<String, HostStats> stats, List<String> failedHosts, List<String> unreachableHosts,
                         boolean interrupted) {
    public RunSummary {
        stats = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(stats));
        failedHosts = List.copyOf(failedHosts);
        unreachableHosts = List.copyOf(unreachableHosts);
    }

    /** The summary of the hosts a run worked on, in their order. */
    static RunSummary of(java.util.Collection<HostState> hosts, boolean interrupted) {
        Map<String, HostStats> stats = new java.util.LinkedHashMap<>();
        List<String> failed = new java.util.ArrayList<>();
        List<String> unreachable = new java.util.ArrayList<>();
        for (HostState s : hosts) {
            stats.put(s.name(), s.stats);
            if (s.unreachable()) {
                unreachable.add(s.name());
            } else if (s.failed() || s.stats.failed() > 0) {
                failed.add(s.name());
            }
        }
        return new RunSummary(stats, failed, unreachable, interrupted);
    }

    public boolean anyChanged() {
        return stats.values().stream().anyMatch(s -> s.changed() > 0);
    }
}
