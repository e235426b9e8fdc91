package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The check rows that could not be judged ({@link Verdict#UNKNOWN}: a tool missing, permission
 * denied, a timeout), by host: after the recap it prints one line that names them, and the CLI
 * exits with its own status when no host failed. "Not ready" is a failing row; this is "cannot
 * tell", and a run must not pass for ready because a probe could not run. A {@code no_log} result's
 * rows count, their names are not shown. Not thread-safe: fed by the run's serialised events.
 */
public final class NotJudged implements RunListener {
    /** What a hidden ({@code no_log}) task's unknown rows are shown as. */
    static final String HIDDEN = "(a no_log task)";

    private final PrintStream out;
    private final Map<String, Set<String>> checks = new LinkedHashMap<>();

    public NotJudged(PrintStream out) {
        this.out = requireNonNull(out, "out cannot be null");
    }

    @Override
    public void hostResult(TaskResult result) {
        List<TaskResult> parts = result.items().isEmpty() ? List.of(result) : result.items();
        for (TaskResult part : parts) {
            for (CheckResult row : part.checks()) {
                if (row.verdict() == Verdict.UNKNOWN) {
                    checks.computeIfAbsent(result.host(), h -> new LinkedHashSet<>()).add(result.hidden() ? HIDDEN : row.check());
                }
            }
        }
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        if (checks.isEmpty()) {
            return;
        }
        out.println();
        out.println("Could not judge (UNKNOWN: a check could not run; not a pass): " + summary());
        out.flush();
    }

    /** Whether any check row of the run was UNKNOWN. */
    public boolean isEmpty() {
        return checks.isEmpty();
    }

    /** {@code node01: dcgm.diag, gpu.xid; node02: gpu.xid}, hosts in the order their rows came. */
    public String summary() {
        StringBuilder b = new StringBuilder();
        checks.forEach((host, names) -> b.append(b.isEmpty() ? "" : "; ").append(host).append(": ").append(String.join(", ", names)));
        return b.toString();
    }
}
