package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Plan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Collects the rows of one check task and turns them into its {@link Plan}: converged (checks
 * change nothing) unless a change is added, with the reason a one-line summary, the rows as the
 * plan's {@link Plan#checks} (a failing row fails the task) and the {@code result} holding the
 * measured values the module adds with {@link #measured}. Not thread-safe; one per {@code plan} call.
 */
public final class CheckReport {
    private final String module;
    private final List<CheckResult> rows = new ArrayList<>();
    private final Map<String, Object> measured = new LinkedHashMap<>();
    private final List<Change> changes = new ArrayList<>();

    public CheckReport(String module) {
        this.module = module;
    }

    public CheckReport add(CheckResult row) {
        rows.add(row);
        return this;
    }

    public CheckReport addAll(List<CheckResult> more) {
        rows.addAll(more);
        return this;
    }

    /** A value for the fleet comparison ({@code busbw_gbps}, {@code versions}, ...). */
    public CheckReport measured(String key, Object value) {
        measured.put(key, value);
        return this;
    }

    /** A change the check needs (only {@code storage}'s marker write). */
    public CheckReport change(Change change) {
        changes.add(change);
        return this;
    }

    public List<CheckResult> rows() {
        return List.copyOf(rows);
    }

    public boolean failed() {
        return CheckResult.anyFailed(rows);
    }

    /**
     * E.g. {@code gpu: 7 passed, 1 failed: gpu.ecc.volatile (3 uncorrectable errors)}; with no
     * failure, the rows that could not be judged are named instead ({@code ...; not judged: gpu.xid}).
     */
    public String summary() {
        Map<Verdict, Long> counts = rows.stream().collect(Collectors.groupingBy(CheckResult::verdict, Collectors.counting()));
        List<String> parts = new ArrayList<>();
        for (Verdict v : Verdict.values()) {
            long n = counts.getOrDefault(v, 0L);
            if (n > 0) {
                parts.add(n + " " + switch (v) {
                    case PASS -> "passed";
                    case FAIL -> "failed";
                    case WARN -> "warned";
                    case SKIP -> "skipped";
                    case UNKNOWN -> "not judged";
                });
            }
        }
        String head = module + ": " + (parts.isEmpty() ? "no checks" : String.join(", ", parts));
        String failing = rows.stream().filter(r -> r.verdict() == Verdict.FAIL)
                .map(r -> r.check() + (r.detail().isEmpty() ? "" : " (" + r.detail() + ")"))
                .collect(Collectors.joining("; "));
        if (!failing.isEmpty()) {
            return head + ": " + failing;
        }
        String unknown = rows.stream().filter(r -> r.verdict() == Verdict.UNKNOWN).map(CheckResult::check)
                .collect(Collectors.joining(", "));
        return unknown.isEmpty() ? head : head + "; not judged: " + unknown;
    }

    public Plan plan() {
        return new Plan(changes, summary(), Map.of(), measured).withChecks(rows);
    }
}
