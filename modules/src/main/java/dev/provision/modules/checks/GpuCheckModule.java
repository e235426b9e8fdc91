package dev.provision.modules.checks;

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code gpu}: are all the GPUs there and healthy? Reads {@code nvidia-smi --query-gpu=... --format=csv}
 * (falls back to {@code nvidia-smi -q} when the query is refused, e.g. an older driver without
 * {@code remapped_rows.pending}).
 *
 * <p>Parameters (all optional):
 * <ul>
 *   <li>{@code expected_count}: the number of GPUs; without it, at least one must be visible.
 *   <li>{@code expected_model}: a substring of every GPU's name ({@code H200}).
 *   <li>{@code min_driver}: the lowest acceptable driver version ({@code 550.54}).
 *   <li>{@code require_ecc} (default true): ECC mode disabled fails (else warns).
 *   <li>{@code expected_pcie_gen}, {@code expected_pcie_width}: the link every GPU must train at
 *       ({@code 5}, {@code 16}); without them, the GPU's own maximum.
 *   <li>{@code require_persistence} (default true): persistence mode off fails (else warns).
 *   <li>{@code expected_mig} (default {@code Disabled}): MIG mode every GPU must be in.
 *   <li>{@code max_temperature} (default 80, Celsius): a GPU hotter than this before any work fails.
 * </ul>
 * Rows: {@code gpu.driver} when nvidia-smi is missing or cannot reach the driver (exit 9),
 * {@code gpu.lost} for GPUs off the bus, {@code gpu.count}, {@code gpu.model},
 * {@code gpu.driver_version}, {@code gpu.ecc_mode}, {@code gpu.ecc_volatile_uncorrected},
 * {@code gpu.ecc_aggregate_uncorrected}, {@code gpu.retired_pages_pending},
 * {@code gpu.remapped_rows_pending}; from {@code nvidia-smi -q} ({@link GpuHealthChecks}):
 * {@code gpu.pcie_link}, {@code gpu.persistence_mode}, {@code gpu.mig_mode}, {@code gpu.throttle},
 * {@code gpu.temperature}, {@code gpu.recovery_action} (R550+); from the kernel log since boot
 * ({@link KernelXid}): {@code gpu.xid}, failing on the codes that mean "drain this node". Result: {@code gpu_count}, {@code gpu_model},
 * {@code driver_version}, {@code gpus} (index, name, uuid, bus_id), {@code pcie_width_min} (the
 * narrowest link, for the fleet step), {@code xid_codes}.
 */
public final class GpuCheckModule implements TaskModule, FleetCheck {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("expected_count", Type.INT)
            .optional("expected_model", Type.STRING)
            .optional("min_driver", Type.STRING)
            .withDefault("require_ecc", Type.BOOL, true)
            .optional("expected_pcie_gen", Type.INT)
            .optional("expected_pcie_width", Type.INT)
            .withDefault("require_persistence", Type.BOOL, true)
            .optional("expected_mig", Type.STRING)
            .withDefault("max_temperature", Type.INT, 80L)
            .build();

    public GpuCheckModule() {
    }

    @Override
    public String name() {
        return "gpu";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        ProbeResult csv = context.host().probe(NvidiaSmiCsv.COMMAND.toArray(String[]::new));
        String out = Probes.output(csv);
        Optional<NvidiaSmiProblem> problem = NvidiaSmiProblem.diagnose(csv.exitCode(), out);
        if (problem.isPresent() && !(problem.get() instanceof NvidiaSmiProblem.GpusLost)) {
            report.add(switch (problem.get()) {
                case NvidiaSmiProblem.NotInstalled n -> CheckResult.fail("gpu.driver", "nvidia-smi missing", "installed",
                        "nvidia-smi not found: no NVIDIA driver installed: install the driver, then reboot");
                case NvidiaSmiProblem.DriverMissing d -> CheckResult.fail("gpu.driver", "not loaded", "loaded", d.message()
                        + ": load it (modprobe nvidia) or reinstall it for the running kernel, then reboot");
                case NvidiaSmiProblem.GpusLost l -> throw new IllegalStateException("handled below");
            });
            return report.measured("gpu_count", 0L).plan();
        }
        Optional<String> query = Optional.empty();
        List<GpuInfo> gpus = csvRows(csv, out);
        if (gpus.isEmpty()) {
            query = Optional.of(query(context));
            gpus = NvidiaSmiQuery.parse(query.get());
        }
        problem.ifPresent(p -> {
            NvidiaSmiProblem.GpusLost lost = (NvidiaSmiProblem.GpusLost) p;
            report.add(CheckResult.fail("gpu.lost", lost.gpus().size() + " lost: " + String.join(", ", lost.gpus()), "0 lost",
                    (lost.message().isEmpty() ? "GPU fell off the bus" : lost.message())
                            + ": drain the node and reboot it; if the GPU stays lost, reseat it or RMA it"));
        });
        check(params, gpus, report);
        if (!gpus.isEmpty()) {
            health(params, query.isPresent() ? query.get() : query(context), context, report);
        }
        List<Map<String, Object>> listed = gpus.stream().map(g -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", g.index());
            m.put("name", g.name());
            m.put("uuid", g.uuid());
            m.put("bus_id", g.busId());
            return m;
        }).toList();
        return report.measured("gpu_count", (long) gpus.size())
                .measured("gpu_model", gpus.isEmpty() ? "" : gpus.get(0).name())
                .measured("driver_version", gpus.isEmpty() ? "" : gpus.get(0).driverVersion())
                .measured("gpus", listed)
                .plan();
    }

    /** The CSV rows; none when the query was refused (an older driver lacking a field). */
    private static List<GpuInfo> csvRows(ProbeResult csv, String out) {
        if (csv.ok() || out.contains("Unable to determine the device handle")) {
            try {
                return NvidiaSmiCsv.parse(out);
            } catch (IllegalArgumentException e) {
                // the caller falls back to the -q report
            }
        }
        return List.of();
    }

    private static String query(TaskContext context) throws ModuleException {
        return context.host().probe(NvidiaSmiQuery.COMMAND.toArray(String[]::new)).stdout();
    }

    /** Link, modes, slowdowns and temperature from {@code nvidia-smi -q}; Xid events from the kernel log. */
    private static void health(Params params, String query, TaskContext context, CheckReport report) throws ModuleException {
        List<GpuHealth> health = GpuHealth.parse(query);
        OptionalInt gen = params.optInteger("expected_pcie_gen").map(n -> OptionalInt.of(n.intValue())).orElse(OptionalInt.empty());
        OptionalInt width = params.optInteger("expected_pcie_width").map(n -> OptionalInt.of(n.intValue())).orElse(OptionalInt.empty());
        String mig = Probes.expectation(params, "expected_mig").orElse("Disabled");
        if (!mig.equalsIgnoreCase("Enabled") && !mig.equalsIgnoreCase("Disabled")) {
            throw new ModuleException("expected_mig: must be Enabled or Disabled, got '" + mig + "'");
        }
        GpuHealthChecks.Expectations want = new GpuHealthChecks.Expectations(gen, width, params.bool("require_persistence"),
                mig.equalsIgnoreCase("Enabled") ? "Enabled" : "Disabled", (int) params.integer("max_temperature"));
        if (health.isEmpty()) {
            report.add(CheckResult.unknown("gpu.pcie_link", "could not judge: nvidia-smi -q listed no GPU (see gpu.count)"));
        } else {
            report.addAll(GpuHealthChecks.rows(health, want));
            health.stream().filter(h -> h.pcieWidth().isPresent()).mapToInt(h -> h.pcieWidth().getAsInt()).min()
                    .ifPresent(w -> report.measured("pcie_width_min", (long) w));
        }
        ProbeResult log = context.host().probe("sh", "-c", KernelXid.SCRIPT);
        List<KernelXid.Event> events = KernelXid.parse(log.stdout());
        report.add(GpuHealthChecks.xid(log.ok() ? KernelXid.source(log.stdout()) : Optional.empty(), events));
        report.measured("xid_codes", events.stream().map(e -> (long) e.code()).distinct().toList());
    }

    private static void check(Params params, List<GpuInfo> gpus, CheckReport report) throws ModuleException {
        Optional<Long> expectedCount = params.optInteger("expected_count");
        report.add(expectedCount
                .map(n -> CheckResult.of(gpus.size() == n, "gpu.count", String.valueOf(gpus.size()), String.valueOf(n),
                        gpus.size() + " GPUs visible, " + n + " expected: drain the node and reboot; if one stays missing"
                                + " (nvidia-smi -L, lspci -d 10de:), reseat or RMA it"))
                .orElse(CheckResult.of(!gpus.isEmpty(), "gpu.count", String.valueOf(gpus.size()), ">= 1",
                        "no GPU visible: check lspci -d 10de: and the driver (nvidia-smi); reboot, else reseat or RMA")));
        if (gpus.isEmpty()) {
            return;
        }
        String models = distinct(gpus, GpuInfo::name);
        Optional<String> expectedModel = Probes.expectation(params, "expected_model");
        if (expectedModel.isPresent()) {
            String want = expectedModel.get().toLowerCase(Locale.ROOT);
            List<String> others = gpus.stream().filter(g -> !g.name().toLowerCase(Locale.ROOT).contains(want))
                    .map(g -> "GPU " + g.index() + " is " + g.name()).toList();
            report.add(CheckResult.of(others.isEmpty(), "gpu.model", models, expectedModel.get(), String.join("; ", others)
                    + ": fix expected_gpu_model for this node's group, or move the node to a group of its model"));
        } else if (models.contains(", ")) {
            report.add(CheckResult.warn("gpu.model", models, "one model",
                    "mixed GPU models: replace the odd GPU, or set expected_gpu_model to make this a failure"));
        } else {
            report.add(CheckResult.pass("gpu.model", models, "-"));
        }
        String driver = gpus.get(0).driverVersion();
        Optional<String> minDriver = Probes.expectation(params, "min_driver");
        report.add(minDriver
                .map(min -> CheckResult.of(GpuInfo.available(driver) && Versions.compare(driver, min) >= 0,
                        "gpu.driver_version", driver, ">= " + min, "driver older than " + min + ": upgrade the NVIDIA driver, then reboot"))
                .orElse(CheckResult.pass("gpu.driver_version", driver, "-")));
        eccMode(params.bool("require_ecc"), gpus, report);
        counter("gpu.ecc_volatile_uncorrected", gpus, GpuInfo::volatileUncorrected, "uncorrectable ECC errors since driver load",
                "drain the node, reset the GPU (nvidia-smi -r) and run the checks again; if they return, RMA", report);
        counter("gpu.ecc_aggregate_uncorrected", gpus, GpuInfo::aggregateUncorrected, "uncorrectable ECC errors over the board's life",
                "drain the node; check retired pages / remapped rows (nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER) and RMA a GPU past its limit",
                report);
        pending("gpu.retired_pages_pending", gpus, GpuInfo::retiredPagesPending, "page retirement pending: drain the node and reboot", report);
        pending("gpu.remapped_rows_pending", gpus, GpuInfo::remappedRowsPending, "row remapping pending: drain the node, reset the GPU (nvidia-smi -r) or reboot",
                report);
    }

    private static void eccMode(boolean required, List<GpuInfo> gpus, CheckReport report) {
        String modes = distinct(gpus, GpuInfo::eccMode);
        List<String> off = gpus.stream().filter(g -> GpuInfo.flag(g.eccMode()).equals(Optional.of(false)))
                .map(g -> "GPU " + g.index()).toList();
        if (gpus.stream().noneMatch(g -> GpuInfo.available(g.eccMode()))) {
            report.add(CheckResult.warn("gpu.ecc_mode", modes, "Enabled", "ECC not supported or not reported:"
                    + " check nvidia-smi -q -d ECC; a GPU model without ECC takes require_ecc: false"));
        } else if (!off.isEmpty()) {
            String detail = "ECC disabled on " + String.join(", ", off) + ": enable it (nvidia-smi -e 1), then reset the GPU or reboot";
            report.add(required ? CheckResult.fail("gpu.ecc_mode", modes, "Enabled", detail)
                    : CheckResult.warn("gpu.ecc_mode", modes, "Enabled", detail));
        } else {
            report.add(CheckResult.pass("gpu.ecc_mode", modes, "Enabled"));
        }
    }

    private static void counter(String check, List<GpuInfo> gpus, Function<GpuInfo, String> field, String what, String action,
                                CheckReport report) {
        long total = 0;
        List<String> bad = new ArrayList<>();
        boolean any = false;
        for (GpuInfo g : gpus) {
            Optional<Long> n = GpuInfo.count(field.apply(g));
            if (n.isPresent()) {
                any = true;
                total += n.get();
                if (n.get() > 0) {
                    bad.add("GPU " + g.index() + " (" + g.busId() + "): " + n.get());
                }
            }
        }
        if (!any) {
            report.add(CheckResult.skip(check, "not reported by the driver"));
            return;
        }
        report.add(CheckResult.of(total == 0, check, String.valueOf(total), "0", what + ": " + String.join(", ", bad) + ": " + action));
    }

    private static void pending(String check, List<GpuInfo> gpus, Function<GpuInfo, String> field, String what, CheckReport report) {
        if (gpus.stream().noneMatch(g -> GpuInfo.flag(field.apply(g)).isPresent())) {
            report.add(CheckResult.skip(check, "not reported by the driver"));
            return;
        }
        List<String> bad = gpus.stream().filter(g -> GpuInfo.flag(field.apply(g)).orElse(false))
                .map(g -> "GPU " + g.index() + " (" + g.busId() + ")").toList();
        report.add(CheckResult.of(bad.isEmpty(), check, bad.isEmpty() ? "No" : "Yes on " + bad.size(), "No",
                what.substring(0, what.indexOf(':')) + " on " + String.join(", ", bad) + what.substring(what.indexOf(':'))));
    }

    private static String distinct(List<GpuInfo> gpus, Function<GpuInfo, String> field) {
        return gpus.stream().map(field).distinct().collect(Collectors.joining(", "));
    }

    /**
     * The fleet step: the same GPU model, count and driver on every node, and no node whose
     * narrowest PCIe link is narrower than the fleet median's (a node-wide riser or BIOS fault).
     */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        return Fleet.merge(
                Fleet.sameEverywhere("gpu.same_as_fleet", resultsByHost, r -> Fleet.text(r, "gpu_count").filter(c -> !c.equals("0"))
                        .map(c -> c + " x " + r.getOrDefault("gpu_model", "?") + ", driver " + r.getOrDefault("driver_version", "?"))),
                Fleet.notBelowMedian("gpu.pcie_width_vs_fleet", "lanes", resultsByHost, "pcie_width_min", 1.0));
    }
}
