package dev.provision.engine.exec;

import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.FleetCheck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Check rows ({@code result.checks}) and the fleet step: merges what a {@link FleetCheck} says about
 * each host into that host's result, failing the hosts it names.
 */
final class FleetRows {
    private FleetRows() {
    }

    /** One line naming the failing checks of a result, e.g. {@code gpu.ecc.volatile: 3 (expected 0)}. */
    static String failingSummary(Map<String, Object> output) {
        String failing = rows(output).stream()
                .filter(r -> "fail".equals(String.valueOf(r.get("verdict"))))
                .map(r -> r.get("check") + ": " + r.get("measured") + " (expected " + r.get("expected") + ")"
                        + (r.get("detail") instanceof String d && !d.isEmpty() ? " " + d : ""))
                .collect(Collectors.joining("; "));
        if (!failing.isEmpty()) {
            return failing;
        }
        return output.get("msg") instanceof String m && !m.isEmpty() ? m : "check failed";
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rows(Map<String, Object> output) {
        if (output.get("checks") instanceof List<?> l) {
            List<Map<String, Object>> out = new ArrayList<>();
            for (Object o : l) {
                if (o instanceof Map<?, ?> m) {
                    out.add((Map<String, Object>) m);
                }
            }
            return out;
        }
        return List.of();
    }

    /** Runs the fleet step over the hosts that produced a result and returns the updated results. */
    static Map<String, TaskResult> apply(FleetCheck check, Map<String, TaskResult> byHost, boolean ignoreErrors) {
        Map<String, Map<String, Object>> outputs = new LinkedHashMap<>();
        byHost.forEach((host, r) -> {
            if ((r.status() == TaskStatus.OK || r.status() == TaskStatus.FAILED || r.status() == TaskStatus.CHANGED
                    || r.status() == TaskStatus.IGNORED) && !r.output().isEmpty()) {
                outputs.put(host, r.output());
            }
        });
        if (outputs.isEmpty()) {
            return byHost;
        }
        Map<String, List<Map<String, Object>>> extra = check.compare(outputs);
        Map<String, TaskResult> updated = new LinkedHashMap<>(byHost);
        extra.forEach((host, rows) -> {
            TaskResult r = byHost.get(host);
            if (r == null || rows.isEmpty()) {
                return;
            }
            Map<String, Object> output = new LinkedHashMap<>(r.output());
            List<Map<String, Object>> all = new ArrayList<>(rows(output));
            all.addAll(rows);
            output.put("checks", all);
            boolean fails = rows.stream().anyMatch(row -> "fail".equals(String.valueOf(row.get("verdict"))));
            TaskStatus status = !fails ? r.status() : ignoreErrors ? TaskStatus.IGNORED : TaskStatus.FAILED;
            if (fails) {
                output.put("failed", true);
            }
            String message = fails ? failingSummary(output) : r.message();
            updated.put(host, r.toBuilder().status(status).message(message).output(output).build());
        });
        return updated;
    }
}
