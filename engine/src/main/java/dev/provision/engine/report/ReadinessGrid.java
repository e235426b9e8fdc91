package dev.provision.engine.report;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The node x check table of a run: every check row ({@code result.checks}: check, measured,
 * expected, verdict, detail) that any task returned, by host and check name, and the per-node
 * figures worth a chart (NCCL bus bandwidth, write throughput). When one host has the same check
 * twice (a loop, a task run twice), the worse verdict stays. Not thread-safe: fed by one listener.
 */
final class ReadinessGrid {
    /**
     * Verdict words from the least to the most severe; {@code none} is "no row for this host". An
     * {@code unknown} (could not judge) ranks above {@code warn}: a caveat is known, it is not.
     */
    static final List<String> SEVERITY = List.of("none", "skip", "pass", "warn", "unknown", "fail");

    record Cell(Verdict verdict, String measured, String expected, String detail, String task) {
        Cell {
            requireNonNull(verdict, "verdict cannot be null");
            requireNonNull(measured, "measured cannot be null");
            requireNonNull(expected, "expected cannot be null");
            requireNonNull(detail, "detail cannot be null");
            requireNonNull(task, "task cannot be null");
        }

        int severity() {
            return SEVERITY.indexOf(verdict.word());
        }
    }

    /**
     * One figure per host for a bar chart, with the figure it should reach when known.
     *
     * @param fleetCheck the fleet row that judges it, whose verdict colours the bar
     */
    record Series(String title, String unit, Map<String, Double> byHost, OptionalDouble expected, String fleetCheck) {
        Series {
            byHost = Map.copyOf(byHost);
        }
    }

    /** A result value that becomes a chart: its key, how it is titled, its unit, its expectation's key. */
    private record Figure(String key, String title, String unit, String expectedKey, String fleetCheck) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("busbw_gbps", "NCCL all-reduce bus bandwidth", "GB/s", "expected_busbw_gbps", "nccl.busbw_vs_fleet"),
            new Figure("gemm_tflops", "GPU bf16 GEMM (each node's slowest GPU)", "TFLOPS", "expected_gemm_tflops",
                    "gpu_acceptance.gemm_vs_fleet"),
            new Figure("collective_busbw_gbps", "all-reduce between nodes (each node's best pair)", "GB/s",
                    "collective_expected_busbw_gbps", "collective.node"),
            new Figure("write_mbps", "write throughput", "MB/s", "min_write_mbps", "write_vs_fleet"));

    private final Set<String> hosts = new LinkedHashSet<>();
    private final Set<String> checks = new LinkedHashSet<>();
    private final Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    private final Map<String, Double> expectations = new LinkedHashMap<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final Map<String, String> fleetChecks = new LinkedHashMap<>();
    private final Set<String> unreachable = new LinkedHashSet<>();
    private final Map<String, List<String>> failedTasks = new LinkedHashMap<>();

    void hosts(List<String> names) {
        hosts.addAll(names);
    }

    /** Takes the check rows and chart figures of one host's task result; results without rows add nothing. */
    void add(String task, TaskResult r) {
        if (r.status() == TaskStatus.UNREACHABLE) {
            unreachable.add(r.host());
        }
        if (r.hidden()) {
            return; // no_log: nothing of it may be written
        }
        List<CheckResult> rows = r.checks();
        for (CheckResult row : rows) {
            String check = row.check();
            if (check.isEmpty()) {
                continue;
            }
            Cell cell = new Cell(row.verdict(), row.measured(), row.expected(), row.detail(), task);
            hosts.add(r.host());
            checks.add(check);
            cells.computeIfAbsent(r.host(), h -> new LinkedHashMap<>()).merge(check, cell,
                    (old, neu) -> neu.severity() > old.severity() ? neu : old);
        }
        if (r.status() == TaskStatus.FAILED && rows.isEmpty()) {
            // No rows to place in the grid (a bad parameter, the closing assert): the header names it.
            failedTasks.computeIfAbsent(r.host(), h -> new ArrayList<>()).add(task + (r.message().isEmpty() ? "" : ": " + r.message()));
        }
        for (Figure f : FIGURES) {
            if (r.output().get(f.key()) instanceof Number n && Double.isFinite(n.doubleValue())) {
                String label = r.output().get("label") instanceof String l && !l.isEmpty() ? l + " " : "";
                String title = label + f.title();
                figures.computeIfAbsent(title, t -> new LinkedHashMap<>()).put(r.host(), n.doubleValue());
                units.put(title, f.unit());
                fleetChecks.put(title, f.fleetCheck().startsWith("write") ? label.strip() + "." + f.fleetCheck() : f.fleetCheck());
                if (r.output().get(f.expectedKey()) instanceof Number e) {
                    expectations.put(title, e.doubleValue());
                }
            }
        }
    }

    void unreachable(String host) {
        hosts.add(host);
        unreachable.add(host);
    }

    List<String> hosts() {
        return List.copyOf(hosts);
    }

    List<String> checks() {
        return List.copyOf(checks);
    }

    Optional<Cell> cell(String host, String check) {
        return Optional.ofNullable(cells.getOrDefault(host, Map.of()).get(check));
    }

    boolean isUnreachable(String host) {
        return unreachable.contains(host);
    }

    /** The host's failing checks in column order. */
    List<String> failing(String host) {
        List<String> out = new ArrayList<>();
        for (String check : checks) {
            cell(host, check).filter(c -> c.verdict() == Verdict.FAIL).ifPresent(c -> out.add(check));
        }
        return out;
    }

    /** The host's checks that could not be judged ({@code unknown}), in column order. */
    List<String> unknown(String host) {
        List<String> out = new ArrayList<>();
        for (String check : checks) {
            cell(host, check).filter(c -> c.verdict() == Verdict.UNKNOWN).ifPresent(c -> out.add(check));
        }
        return out;
    }

    /** Hosts that are not {@link #notReady()} but have checks that could not be judged. */
    List<String> notJudged() {
        Set<String> notReady = new LinkedHashSet<>(notReady());
        return hosts.stream().filter(h -> !notReady.contains(h) && !unknown(h).isEmpty()).toList();
    }

    /** Tasks that failed on the host without check rows, as {@code TASK: message}. */
    List<String> failedTasks(String host) {
        return List.copyOf(failedTasks.getOrDefault(host, List.of()));
    }

    /** Hosts not ready: a failing check, a failed task or unreachable. */
    List<String> notReady() {
        return hosts.stream().filter(h -> isUnreachable(h) || !failing(h).isEmpty() || failedTasks.containsKey(h)).toList();
    }

    List<Series> series() {
        List<Series> out = new ArrayList<>();
        figures.forEach((title, byHost) -> out.add(new Series(title, units.get(title), byHost,
                expectations.containsKey(title) ? OptionalDouble.of(expectations.get(title)) : OptionalDouble.empty(),
                fleetChecks.get(title))));
        return out;
    }
}
