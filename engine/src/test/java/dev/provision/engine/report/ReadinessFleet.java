package dev.provision.engine.report;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A generated pre-flight run of {@code n} nodes, fed to a listener as the executor would: the
 * {@code gpu}, {@code nccl_bandwidth} and {@code checkpoint_storage} tasks with their fleet rows,
 * and planted faults: every 97th node a Gen4 x8 link, every 50th (from the 10th) a slow
 * checkpoint write, every 250th (from the 4th) unreachable, every 7th a warning.
 */
final class ReadinessFleet {
    static final List<String> GPU_ROWS = List.of("gpu.count", "gpu.model", "gpu.driver_version", "gpu.ecc_mode",
            "gpu.ecc_volatile_uncorrected", "gpu.ecc_aggregate_uncorrected", "gpu.retired_pages_pending", "gpu.remapped_rows_pending",
            "gpu.pcie_link", "gpu.persistence_mode", "gpu.mig_mode", "gpu.throttle", "gpu.temperature", "gpu.recovery_action", "gpu.xid");

    private ReadinessFleet() {
    }

    static String host(int i) {
        return String.format(Locale.ROOT, "node%04d", i);
    }

    static boolean narrowLink(int i) {
        return i % 97 == 0;
    }

    static boolean slowWrite(int i) {
        return i % 50 == 10;
    }

    static boolean unreachable(int i) {
        return i % 250 == 4;
    }

    static void run(RunListener listener, int n) {
        List<String> hosts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            hosts.add(host(i));
        }
        listener.playStarted("Pre-flight readiness checks", hosts, false);
        listener.taskStarted("GPUs visible, healthy, no ECC errors, full PCIe link, no drain-worthy Xid", "preflight.yml:24:7", false);
        for (int i = 1; i <= n; i++) {
            if (unreachable(i)) {
                listener.hostResult(TaskResult.simple(host(i), TaskStatus.UNREACHABLE, "ssh: connect timed out"));
                continue;
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            for (String check : GPU_ROWS) {
                if (check.equals("gpu.pcie_link") && narrowLink(i)) {
                    rows.add(row(check, "Gen5 x16, Gen4 x8", "Gen5 x16", "fail", "degraded PCIe link: GPU 3B:00.0 at Gen4 x8 (x16 possible)"));
                } else if (check.equals("gpu.temperature") && i % 7 == 0) {
                    rows.add(row(check, "79 C (hottest)", "<= 80 C", "warn", "close to the limit"));
                } else if (check.equals("gpu.retired_pages_pending")) {
                    rows.add(row(check, "-", "-", "skip", "not reported by the driver"));
                } else {
                    rows.add(row(check, "ok", "ok", "pass", ""));
                }
            }
            rows.add(row("gpu.pcie_width_vs_fleet", (narrowLink(i) ? 8 : 16) + " lanes", ">= 16 lanes (100% of fleet median 16)",
                    narrowLink(i) ? "fail" : "pass", "below the fleet median"));
            listener.hostResult(result(host(i), rows, Map.of("pcie_width_min", narrowLink(i) ? 8L : 16L)));
        }
        listener.taskStarted("NCCL all-reduce bus bandwidth per node", "preflight.yml:52:7", false);
        for (int i = 1; i <= n; i++) {
            if (!unreachable(i)) {
                double busbw = narrowLink(i) ? 212.0 : 470 + (i * 37 % 20);
                listener.hostResult(result(host(i), List.of(
                        row("nccl.busbw", String.format(Locale.ROOT, "%.1f GB/s", busbw), ">= 384 GB/s (0.8 x 480)", busbw >= 384 ? "pass" : "fail", "below 80% of 480 GB/s"),
                        row("nccl.busbw_vs_fleet", busbw + " GB/s", ">= 383 GB/s (80% of fleet median 479)", busbw >= 383 ? "pass" : "fail", "below the fleet median")),
                        Map.of("busbw_gbps", busbw, "expected_busbw_gbps", 480.0)));
            }
        }
        listener.taskStarted("Checkpoint write throughput (the test's report, and the fleet median)", "preflight.yml:110:7", false);
        for (int i = 1; i <= n; i++) {
            if (!unreachable(i)) {
                double mbps = slowWrite(i) ? 48.0 : 1900 + (i * 53 % 200);
                listener.hostResult(result(host(i), List.of(
                        row("checkpoint.write_throughput", Math.round(mbps) + " MB/s (1 GiB in 0.5 s, direct)", ">= 1000 MB/s", mbps >= 1000 ? "pass" : "fail", "slow checkpoint storage"),
                        row("checkpoint.write_vs_fleet", mbps + " MB/s", ">= 975 MB/s (50% of fleet median 1950)", mbps >= 975 ? "pass" : "fail", "below the fleet median")),
                        Map.of("write_mbps", mbps, "min_write_mbps", 1000.0, "label", "checkpoint")));
            }
        }
        Map<String, HostStats> stats = new LinkedHashMap<>();
        for (int i = 1; i <= n; i++) {
            HostStats s = new HostStats();
            s.count(unreachable(i) ? TaskStatus.UNREACHABLE : TaskStatus.OK);
            stats.put(host(i), s);
        }
        listener.recap(stats, "");
    }

    static Map<String, Object> row(String check, String measured, String expected, String verdict, String detail) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("check", check);
        row.put("measured", measured);
        row.put("expected", expected);
        row.put("verdict", verdict);
        row.put("detail", verdict.equals("pass") ? "" : detail);
        return row;
    }

    static TaskResult result(String host, List<Map<String, Object>> rows, Map<String, Object> measured) {
        boolean failed = rows.stream().anyMatch(r -> r.get("verdict").equals("fail"));
        return new TaskResult(host, failed ? TaskStatus.IGNORED : TaskStatus.OK, List.of(), "", List.of(), "", false, false, false,
                measured, Duration.ofMillis(5), 0, rows.stream().map(dev.provision.modules.spi.CheckResult::fromMap).toList());
    }
}
