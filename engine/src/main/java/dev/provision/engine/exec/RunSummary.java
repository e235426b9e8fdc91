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

    public boolean anyChanged() {
        return stats.values().stream().anyMatch(s -> s.changed() > 0);
    }
}
