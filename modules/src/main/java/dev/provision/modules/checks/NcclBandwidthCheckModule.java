package dev.provision.modules.checks;

import dev.provision.modules.spi.Facts;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code nccl_bandwidth}: all-reduce bus bandwidth across the node's GPUs. Runs nccl-tests'
 * {@code all_reduce_perf -b 8M -e 1G -f 2 -g N} when installed (the {@code all_reduce_perf}
 * parameter, else found on PATH) and takes the largest size's out-of-place busbw; otherwise runs
 * provision's PyTorch benchmark ({@code allreduce_bench.py}, sent as {@code python -c} text, one
 * forked process per GPU). With one GPU busbw is 0 by definition: the row is skipped.
 *
 * <p>The figure is compared with {@code expected_busbw} (GB/s), else a {@code busbw_table} entry (GPU
 * model name substring to GB/s), else {@link BusbwTable#withinNode}: by GPU model, GPUs per node and
 * NVLS (off when the host variable {@code NCCL_NVLS_ENABLE} is 0), e.g. H100/H200 370 GB/s with 2-4
 * GPUs or without NVLS, 420-480 with 5-8 and NVLS; sources in {@code docs/busbw-expectations.md}. It
 * passes at {@code min_fraction} (default 0.8) of that and warns below {@code warn_fraction} (0.85). Result: {@code busbw_gbps} (for slow-node
 * detection against the fleet median), {@code expected_busbw_gbps} (when known), {@code avg_busbw_gbps} (nccl-tests), {@code gpu_model},
 * {@code gpu_count}, {@code tool}.
 */
public final class NcclBandwidthCheckModule implements TaskModule, FleetCheck {
    static final String BENCHMARK = Probes.resource("allreduce_bench.py");
    static final List<String> COUNT_COMMAND = List.of("nvidia-smi", "--query-gpu=name", "--format=csv,noheader");

    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("expected_busbw", Type.ANY)
            .withDefault("min_fraction", Type.ANY, 0.8)
            .withDefault("warn_fraction", Type.ANY, 0.85)
            .optional("busbw_table", Type.MAP)
            .optional("all_reduce_perf", Type.STRING)
            .withDefault("python", Type.STRING, "python3")
            .build();

    public NcclBandwidthCheckModule() {
    }

    @Override
    public String name() {
        return "nccl_bandwidth";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        double fraction = Probes.number(params, "min_fraction").orElse(0.8);
        double warnFraction = Math.max(fraction, Probes.number(params, "warn_fraction").orElse(0.85));
        ProbeResult count = context.host().probe(COUNT_COMMAND.toArray(String[]::new));
        List<String> names = count.ok() ? count.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList() : List.of();
        if (names.isEmpty()) {
            String why = NvidiaSmiProblem.diagnose(count.exitCode(), Probes.output(count))
                    .map(p -> "no GPU: " + Probes.firstLine(count)).orElse("no GPU visible");
            return report.add(CheckResult.fail("nccl.busbw", "no GPU", "-", why + " (see the gpu check)")).measured("gpu_count", 0L).plan();
        }
        String model = names.get(0);
        report.measured("gpu_model", model).measured("gpu_count", (long) names.size());
        if (names.size() == 1) {
            return report.add(new CheckResult("nccl.busbw", "1 GPU", "-", Verdict.SKIP,
                    "busbw is 0 by definition with one GPU")).plan();
        }
        Optional<Boolean> nvls = "0".equals(String.valueOf(context.variables().get("NCCL_NVLS_ENABLE"))) ? Optional.of(false) : Optional.empty();
        Optional<BusbwTable.Expectation> expectation = expected(params, model, names.size(), nvls);
        Optional<Double> expected = expectation.map(BusbwTable.Expectation::gbps);
        expectation.filter(e -> !e.basis().isEmpty()).ifPresent(e -> report.measured("expected_basis", e.basis()));
        Optional<String> allReducePerf = allReducePerf(params, context);
        double busbw;
        if (allReducePerf.isPresent()) {
            report.measured("tool", "all_reduce_perf");
            ProbeResult r = context.host().probe(allReducePerf.get(), "-b", "8M", "-e", "1G", "-f", "2", "-g", String.valueOf(names.size()));
            NcclTestsOutput out;
            try {
                out = NcclTestsOutput.parse(r.stdout());
            } catch (IllegalArgumentException e) {
                return report.add(CheckResult.fail("nccl.busbw", "none", shown(expected, fraction), "all_reduce_perf failed: " + Probes.firstLine(r)
                        + ": run it by hand with NCCL_DEBUG=INFO to see why")).plan();
            }
            Optional<NcclTestsOutput.Row> largest = out.largest();
            if (!r.ok() || largest.isEmpty()) {
                return report.add(CheckResult.fail("nccl.busbw", "none", shown(expected, fraction),
                        "all_reduce_perf exit " + r.exitCode() + ": " + lastLine(Probes.output(r))
                                + ": run it by hand with NCCL_DEBUG=INFO to see why")).plan();
            }
            busbw = largest.get().outOfPlaceBusbw();
            out.averageBusbw().ifPresent(a -> report.measured("avg_busbw_gbps", a));
            if (out.outOfBounds() > 0) {
                report.add(CheckResult.fail("nccl.correctness", out.outOfBounds() + " wrong", "0 wrong",
                        "all_reduce_perf found values out of bounds: data corruption: drain the node, reset the GPUs and run again;"
                                + " if it stays, have the GPUs or NVLink serviced"));
            }
        } else {
            report.measured("tool", "pytorch");
            String python = Probes.plainName("python", params.string("python"));
            ProbeResult r = context.host().probe(python, "-c", BENCHMARK, String.valueOf(names.size()));
            try {
                if (!r.ok()) {
                    throw new IllegalArgumentException("exit " + r.exitCode() + ": " + lastLine(Probes.output(r)));
                }
                busbw = TorchAllReduceOutput.parse(r.stdout()).busbwGbps();
            } catch (IllegalArgumentException e) {
                return report.add(CheckResult.fail("nccl.busbw", "none", shown(expected, fraction),
                        "PyTorch all-reduce benchmark failed: " + e.getMessage() + ": run it again with NCCL_DEBUG=INFO to see why")).plan();
            }
        }
        report.measured("busbw_gbps", busbw).measured("min_fraction", fraction);
        expected.ifPresent(e -> report.measured("expected_busbw_gbps", e));
        String measured = String.format(Locale.ROOT, "%.1f GB/s", busbw);
        if (expected.isEmpty()) {
            report.add(CheckResult.warn("nccl.busbw", measured, "-", "no expected figure for " + model + " with " + names.size()
                    + " GPUs: set expected_busbw"));
        } else {
            double floor = expected.get() * fraction;
            String shown = shown(expected, fraction);
            if (busbw < floor) {
                report.add(CheckResult.fail("nccl.busbw", measured, shown, String.format(Locale.ROOT, "below %.0f%% of %s GB/s%s",
                        fraction * 100, Probes.figure(expected.get()), basis(expectation.get()))
                        + ": check the NVLinks (gpu_fabric), other processes on the GPUs and NCCL_* settings; drain the node if it stays"));
            } else if (busbw < expected.get() * warnFraction) {
                report.add(CheckResult.warn("nccl.busbw", measured, shown, String.format(Locale.ROOT, "below %.0f%% of %s GB/s%s",
                        warnFraction * 100, Probes.figure(expected.get()), basis(expectation.get()))
                        + ": watch it; check the NVLinks (gpu_fabric) when the node is idle"));
            } else {
                report.add(CheckResult.pass("nccl.busbw", measured, shown));
            }
        }
        return report.plan();
    }

    private static String basis(BusbwTable.Expectation e) {
        return e.basis().isEmpty() ? "" : " (" + e.basis() + ")";
    }

    private static String shown(Optional<Double> expected, double fraction) {
        return expected.map(e -> ">= " + Probes.figure(e * fraction) + " GB/s (" + Probes.figure(fraction) + " x " + Probes.figure(e) + ")")
                .orElse("-");
    }

    /** expected_busbw, else the longest {@code busbw_table} key found in the model name, else {@link BusbwTable#withinNode}. */
    static Optional<BusbwTable.Expectation> expected(Params params, String model, int gpus, Optional<Boolean> nvls) throws ModuleException {
        Optional<Double> given = Probes.number(params, "expected_busbw");
        if (given.isPresent()) {
            return Optional.of(new BusbwTable.Expectation(given.get(), ""));
        }
        Map<String, Double> table = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : params.map("busbw_table").entrySet()) {
            try {
                table.put(e.getKey(), e.getValue() instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(e.getValue())));
            } catch (NumberFormatException ex) {
                throw new ModuleException("busbw_table: " + e.getKey() + " must be a number, got '" + e.getValue() + "'");
            }
        }
        String name = model.toUpperCase(Locale.ROOT);
        Optional<Map.Entry<String, Double>> entry = table.entrySet().stream()
                .filter(e -> name.contains(e.getKey().toUpperCase(Locale.ROOT)))
                .max((a, b) -> Integer.compare(a.getKey().length(), b.getKey().length()));
        if (entry.isPresent()) {
            return Optional.of(new BusbwTable.Expectation(entry.get().getValue(), "busbw_table " + entry.get().getKey()));
        }
        return BusbwTable.withinNode(model, gpus, nvls);
    }

    private static Optional<String> allReducePerf(Params params, TaskContext context) throws ModuleException {
        Optional<String> given = Probes.expectation(params, "all_reduce_perf");
        if (given.isPresent()) {
            return Optional.of(Probes.plainName("all_reduce_perf", given.get()));
        }
        return Facts.program("all_reduce_perf").read(context.host());
    }

    private static String lastLine(String output) {
        List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        return lines.isEmpty() ? "no output" : lines.get(lines.size() - 1);
    }

    /** The fleet step: slow-node detection, busbw below {@code min_fraction} of the fleet median. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        double fraction = resultsByHost.values().stream().map(r -> r.get("min_fraction")).filter(Number.class::isInstance)
                .mapToDouble(n -> ((Number) n).doubleValue()).findFirst().orElse(0.8);
        return Fleet.notBelowMedian("nccl.busbw_vs_fleet", "GB/s", resultsByHost, "busbw_gbps", fraction);
    }
}
