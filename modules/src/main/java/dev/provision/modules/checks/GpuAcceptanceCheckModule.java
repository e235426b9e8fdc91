package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.spi.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code gpu_acceptance}: makes every GPU of the node work and judges what it does
 * ({@code gpu_acceptance.py} through the node's PyTorch, the GPUs one after another): bf16 GEMM
 * throughput, HBM copy bandwidth, host-to-device and device-to-host bandwidth, and a burn that
 * recomputes a product of small integers whose exact sum the CPU also computes: a GPU that gives a
 * wrong or a changing answer corrupts training silently (fail, whatever its speed).
 *
 * <p>Each figure is compared with its model's reference ({@link GpuReferences}; {@code
 * expected_gemm_tflops}, {@code expected_hbm_gbps}, {@code expected_host_gbps} override): fail below
 * {@code min_fraction} (0.7 of the best public GEMM, 0.75 of the HBM spec, 1.0 of the PCIe floor),
 * warn below {@code warn_fraction} of it. The fleet step then names a node whose slowest GPU is
 * far below the fleet's median even when it clears the reference: below median − 4 × 1.4826 × MAD
 * and more than 10 % below the median. {@code tier}: {@code quick} (1 s a measurement), {@code
 * standard} (3 s), {@code full} (20 s); {@code budget} (seconds for the whole node) shortens them.
 * Every failing row says what to do next.
 */
public final class GpuAcceptanceCheckModule implements TaskModule, FleetCheck {
    static final String BENCHMARK = Probes.resource("gpu_acceptance.py");
    private static final Map<String, Integer> TIERS = Map.of("quick", 1, "standard", 3, "full", 20);
    /** Measurements per GPU, each taking the tier's seconds (GEMM, HBM, to, from, burn). */
    private static final int MEASUREMENTS = 5;

    private static final ParamSpec SPEC = ParamSpec.builder()
            .choice("tier", "standard", "quick", "standard", "full")
            .optional("budget", Type.STRING)
            .optional("expected_gemm_tflops", Type.ANY)
            .optional("expected_hbm_gbps", Type.ANY)
            .optional("expected_host_gbps", Type.ANY)
            .withDefault("python", Type.STRING, "python3")
            .optional("baseline", Type.STRING)
            .withDefault("baseline_fail", Type.STRING, "0.90")
            .withDefault("baseline_warn", Type.STRING, "0.95")
            .build();

    public GpuAcceptanceCheckModule() {
    }

    @Override
    public String name() {
        return "gpu_acceptance";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public String description() {
        return """
                A check that makes every GPU of the node work (through the node's PyTorch, one GPU after another):
                bf16 GEMM throughput (8192 x 8192), HBM bandwidth (a 1 GiB device copy, read + write), host-to-device
                and device-to-host bandwidth (1 GiB, pinned), and a burn that recomputes an exact product: a wrong
                or changing answer fails the GPU whatever its speed. Figures are judged against the model's
                references (H100/H200 SXM: 795 TFLOPS, HBM 3350/4800 GB/s, PCIe Gen5 48 GB/s; A100 SXM: 271 TFLOPS,
                2039 GB/s, Gen4 21 GB/s; fail below 0.7 / 0.75 / 1.0 of them, warn below 0.8 / 0.8 / 1.05), then
                against the fleet: a node whose slowest GPU is far below the median of all nodes is named even
                when it clears the reference. tier: quick (1 s a measurement), standard (3 s), full (20 s);
                budget: seconds for the whole node. baseline: the --json report of an earlier run (the node's acceptance):
                each GPU is also judged against its own figures there, failing below baseline_fail (0.90) of them and
                warning below baseline_warn (0.95): the slow decay no fleet median sees when every node ages alike.
                Sources: docs/gpu-acceptance.md.""";
    }

    /** One judged figure: its key in the script's output and result, its row name, unit and fractions. */
    private record Figure(String key, String check, String unit, double failBelow, double warnBelow) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("gemm_tflops", "gemm", "TFLOPS", 0.70, 0.80),
            new Figure("hbm_gbps", "hbm", "GB/s", 0.75, 0.80),
            new Figure("h2d_gbps", "host_to_device", "GB/s", 1.0, 1.05),
            new Figure("d2h_gbps", "device_to_host", "GB/s", 1.0, 1.05));

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        ProbeResult count = context.host().probe(NcclBandwidthCheckModule.COUNT_COMMAND.toArray(String[]::new));
        List<String> names = count.ok() ? count.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList() : List.of();
        if (names.isEmpty()) {
            return report.add(CheckResult.fail("gpu_acceptance.gpus", "no GPU", ">= 1", "nvidia-smi: " + Probes.firstLine(count)
                    + " (run the gpu check first: driver, GPU visibility)")).plan();
        }
        int seconds = TIERS.get(params.string("tier"));
        Optional<Long> budget;
        try {
            // blank is "no budget", so that a playbook can pass "${acceptance_budget!''}"
            budget = Probes.expectation(params, "budget").map(Long::parseLong);
        } catch (NumberFormatException e) {
            throw new ModuleException("budget: must be a whole number of seconds, got '" + params.string("budget") + "'");
        }
        if (budget.isPresent()) {
            seconds = (int) Math.max(1, Math.min(seconds, budget.get() / ((long) MEASUREMENTS * names.size())));
        }
        report.measured("tier", params.string("tier")).measured("seconds_per_measurement", (long) seconds)
                .measured("gpu_count", (long) names.size());
        String python = Probes.plainName("python", params.string("python"));
        ProbeResult run = context.host().probe(python, "-c", BENCHMARK, String.valueOf(seconds));
        GpuAcceptanceOutput out = GpuAcceptanceOutput.parse(run.stdout());
        if (out.gpus().isEmpty()) {
            String last = Probes.output(run).lines().map(String::strip).filter(l -> !l.isEmpty()).reduce((a, b) -> b).orElse("no output");
            return report.add(new CheckResult("gpu_acceptance.run", "no figures", "one line per GPU", Verdict.UNKNOWN,
                    "could not judge: the benchmark gave no figures (exit " + run.exitCode() + ": " + last
                            + "); check that PyTorch with CUDA runs on the node: " + python
                            + " -c 'import torch; print(torch.cuda.is_available())'")).plan();
        }
        Optional<AcceptanceBaseline> baseline = baseline(params, context);
        double baselineFail = fraction(params, "baseline_fail");
        double baselineWarn = fraction(params, "baseline_warn");
        String host = context.host().name();
        if (baseline.isPresent() && !baseline.get().knows(host)) {
            report.add(CheckResult.warn("gpu_acceptance.baseline", "none for " + host, "this node's acceptance figures",
                    "the baseline " + baseline.get().file().getFileName() + " has no figures of this node (added since?): keep this"
                            + " run's --json report as its baseline"));
        }
        Map<String, Double> slowest = new LinkedHashMap<>();
        Map<String, String> slowestGpu = new LinkedHashMap<>();
        List<Map<String, Object>> perGpu = new ArrayList<>();
        for (GpuAcceptanceOutput.Gpu gpu : out.gpus()) {
            String prefix = "gpu_acceptance.gpu" + gpu.index() + ".";
            if (gpu.error().isPresent()) {
                report.add(CheckResult.fail(prefix + "run", "error", "runs", gpu.error().get()
                        + ": drain the node; reset the GPU (nvidia-smi -r) or reboot, then run again; if it stays, service"));
                continue;
            }
            Optional<GpuReferences.Reference> ref = GpuReferences.of(gpu.name().isEmpty() ? names.get(0) : gpu.name());
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("gpu", (long) gpu.index());
            for (Figure f : FIGURES) {
                double v = gpu.figure(f.key());
                figures.put(f.key(), v);
                if (!slowest.containsKey(f.key()) || v < slowest.get(f.key())) {
                    slowest.put(f.key(), v);
                    slowestGpu.put(f.key(), "GPU " + gpu.index());
                }
                Optional<Double> expected = expected(params, f, ref);
                expected.ifPresent(e -> report.measured("expected_" + f.key(), e));
                report.add(row(prefix + f.check(), v, f, expected, ref.map(GpuReferences.Reference::model).orElse(gpu.name())));
                if (baseline.isPresent()) {
                    baseline.get().figure(host, gpu.index(), f.key()).ifPresent(was -> report.add(
                            sinceBaseline(prefix + f.check() + "_vs_baseline", v, was, f, baselineFail, baselineWarn, baseline.get())));
                }
            }
            perGpu.add(figures);
            boolean correct = gpu.correct();
            report.add(CheckResult.of(correct, prefix + "answers",
                    String.format(Locale.ROOT, "%.0f runs, %.0f wrong", gpu.figure("burn_runs"),
                            gpu.figure("burn_mismatches") + (gpu.figure("checksum") == gpu.figure("cpu_checksum") ? 0 : 1)),
                    "0 wrong", "CRITICAL: the GPU computes wrong or changing answers (silent data corruption): drain the node"
                            + " now and do not train on it; reset the GPU, run the full tier again, and have it serviced if it stays"));
        }
        report.measured("gpus", perGpu);
        slowest.forEach((k, v) -> report.measured(k, v));
        slowestGpu.forEach((k, v) -> report.measured(k + "_gpu", v));
        return report.plan();
    }

    private static Optional<AcceptanceBaseline> baseline(Params params, TaskContext context) throws ModuleException {
        Optional<String> name = Probes.expectation(params, "baseline"); // blank: none, as "${acceptance_baseline!''}" gives
        return name.isEmpty() ? Optional.empty() : Optional.of(AcceptanceBaseline.read(context.controllerFile(name.get())));
    }

    private static double fraction(Params params, String name) throws ModuleException {
        double f = Probes.number(params, name).orElseThrow();
        if (!(f > 0 && f <= 1)) {
            throw new ModuleException(name + ": must be a fraction between 0 and 1, got " + params.string(name));
        }
        return f;
    }

    /** A figure against the same GPU's at acceptance: a drop the references and the fleet may both miss. */
    private static CheckResult sinceBaseline(String check, double v, double was, Figure f, double failBelow, double warnBelow,
                                             AcceptanceBaseline baseline) {
        String measured = String.format(Locale.ROOT, "%.1f %s (was %.1f)", v, f.unit(), was);
        String expected = String.format(Locale.ROOT, ">= %s %s (%s x baseline)", Probes.figure(Math.round(was * failBelow * 10) / 10.0),
                f.unit(), Probes.figure(failBelow));
        double drop = 100 * (1 - v / was);
        String since = String.format(Locale.ROOT, "%.0f%% below its own figure in %s", drop, baseline.file().getFileName());
        if (v < was * failBelow) {
            return CheckResult.fail(check, measured, expected, since + ": the GPU is busy, throttled or degrading: check nvidia-smi"
                    + " (other processes, clocks, power, temperature); if nothing explains it, drain the node, reset the GPU and run"
                    + " again; if it stays, have it serviced");
        }
        if (v < was * warnBelow) {
            return CheckResult.warn(check, measured, expected, since + ": watch it; run the full tier when the node is idle");
        }
        return CheckResult.pass(check, measured, expected);
    }

    private static Optional<Double> expected(Params params, Figure f, Optional<GpuReferences.Reference> ref) throws ModuleException {
        String param = switch (f.key()) {
            case "gemm_tflops" -> "expected_gemm_tflops";
            case "hbm_gbps" -> "expected_hbm_gbps";
            default -> "expected_host_gbps";
        };
        Optional<Double> given = Probes.number(params, param);
        if (given.isPresent()) {
            return given;
        }
        return ref.map(r -> switch (f.key()) {
            case "gemm_tflops" -> r.gemmTflops();
            case "hbm_gbps" -> r.hbmGbps();
            default -> r.hostGbps();
        });
    }

    private static CheckResult row(String check, double v, Figure f, Optional<Double> expected, String model) {
        String measured = String.format(Locale.ROOT, "%.1f %s", v, f.unit());
        if (expected.isEmpty()) {
            return CheckResult.warn(check, measured, "-", "no reference for " + model + ": set the expected_* parameter");
        }
        double e = expected.get();
        String shown = String.format(Locale.ROOT, ">= %s %s (%s x %s)", Probes.figure(Math.round(e * f.failBelow() * 10) / 10.0), f.unit(),
                Probes.figure(f.failBelow()), Probes.figure(e));
        if (v < e * f.failBelow()) {
            return CheckResult.fail(check, measured, shown, String.format(Locale.ROOT, "%.0f%% of %s's reference: the GPU is busy, throttled"
                    + " or degraded: check nvidia-smi (other processes, clocks, power, temperature, PCIe link); if nothing explains it,"
                    + " drain the node and reset the GPU, then run again", 100 * v / e, model));
        }
        if (v < e * f.warnBelow()) {
            return CheckResult.warn(check, measured, shown, String.format(Locale.ROOT, "%.0f%% of %s's reference: watch it; run the full tier"
                    + " when the node is idle", 100 * v / e, model));
        }
        return CheckResult.pass(check, measured, shown);
    }

    /** The fleet step: a node whose slowest GPU is far below the fleet's median (median/MAD), per figure. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        List<Map<String, List<CheckResult>>> parts = new ArrayList<>();
        for (Figure f : FIGURES) {
            parts.add(Fleet.robustlyBelowMedian("gpu_acceptance." + f.check() + "_vs_fleet", f.unit(), resultsByHost, f.key(),
                    f.key() + "_gpu"));
        }
        @SuppressWarnings("unchecked")
        Map<String, List<CheckResult>>[] all = parts.toArray(Map[]::new);
        return Fleet.merge(all);
    }
}
