package dev.provision.engine.exec;

import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.CrossHostCheck;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Check rows ({@link TaskResult#checks}) and the fleet step: merges what a {@link FleetCheck} says about
 * each host into that host's result, failing the hosts it names. The step reads each host's measured
 * values ({@link TaskResult#output}); the rows it returns join the host's table.
 */
final class FleetRows {
    private FleetRows() {
    }

    /**
     * One line naming the failing rows of a check table ({@link CheckResult#anyFailed}), e.g.
     * {@code gpu.ecc.volatile: 3 (expected 0)}.
     */
    static String failingSummary(List<CheckResult> rows) {
        return rows.stream()
                .filter(r -> r.verdict() == Verdict.FAIL)
                .map(r -> r.check() + ": " + r.measured() + " (expected " + r.expected() + ")"
                        + (r.detail().isEmpty() ? "" : " " + r.detail()))
                .collect(Collectors.joining("; "));
    }

    /** Runs the fleet step over the hosts that produced a result and returns the updated results. */
    static Map<String, TaskResult> apply(FleetCheck check, Map<String, TaskResult> byHost, boolean ignoreErrors) {
        Map<String, Map<String, Object>> outputs = outputs(byHost);
        if (outputs.isEmpty()) {
            return byHost;
        }
        Map<String, CrossHostCheck.Findings> findings = new LinkedHashMap<>();
        check.compare(outputs).forEach((host, rows) -> findings.put(host, new CrossHostCheck.Findings(rows, Map.of())));
        return merge(byHost, findings, ignoreErrors);
    }

    /** The measured values a step across hosts reads: those of hosts that planned (not skipped, not unreachable). */
    static Map<String, Map<String, Object>> outputs(Map<String, TaskResult> byHost) {
        Map<String, Map<String, Object>> outputs = new LinkedHashMap<>();
        byHost.forEach((host, r) -> {
            if ((r.status() == TaskStatus.OK || r.status() == TaskStatus.FAILED || r.status() == TaskStatus.CHANGED
                    || r.status() == TaskStatus.IGNORED) && !(r.output().isEmpty() && r.checks().isEmpty())) {
                outputs.put(host, r.output());
            }
        });
        return outputs;
    }

    /** Each host's result with its findings added: rows join its table, a failing row fails it. */
    static Map<String, TaskResult> merge(Map<String, TaskResult> byHost, Map<String, CrossHostCheck.Findings> findings,
                                         boolean ignoreErrors) {
        Map<String, TaskResult> updated = new LinkedHashMap<>(byHost);
        findings.forEach((host, found) -> {
            TaskResult r = byHost.get(host);
            if (r == null || found.rows().isEmpty() && found.values().isEmpty()) {
                return;
            }
            Map<String, Object> output = new LinkedHashMap<>(r.output());
            output.putAll(found.values());
            List<CheckResult> all = new ArrayList<>(r.checks());
            all.addAll(found.rows());
            boolean fails = CheckResult.anyFailed(found.rows());
            TaskStatus status = !fails ? r.status() : ignoreErrors ? TaskStatus.IGNORED : TaskStatus.FAILED;
            String message = fails ? failingSummary(all) : r.message();
            updated.put(host, r.toBuilder().status(status).message(message).output(output).checks(all).build());
        });
        return updated;
    }
}
