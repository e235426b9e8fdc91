package dev.provision.modules.checks;

import dev.provision.modules.spi.Facts;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code gpu_fabric}: on NVSwitch boards (HGX/DGX H100, H200, B200) CUDA jobs do not start until
 * the fabric manager has trained the fabric, and a GPU with an NVLink down halves its all-reduce.
 *
 * <p>NVSwitches are found in sysfs ({@link #NVSWITCH_SCRIPT}: NVIDIA PCI functions of class 0x0680,
 * "bridge/other", as NVSwitches enumerate); {@code nvswitch: true|false} overrides the detection.
 * Rows: {@code gpu_fabric.nvswitch} (how many), {@code gpu_fabric.fabricmanager}
 * ({@code systemctl is-active nvidia-fabricmanager}, else {@code pgrep -f} for the nv-fabricmanager binary where
 * there is no systemd), {@code gpu_fabric.state} (every GPU's {@code Fabric/State} in
 * {@code nvidia-smi -q} is {@code Completed} and its {@code Status} {@code Success}),
 * {@code gpu_fabric.nvlink} ({@code nvidia-smi nvlink -s}: every listed link up, every GPU with
 * {@code expected_nvlinks} links up, else with as many as the others). Without NVSwitches the
 * fabric rows are skipped; NVLink rows still check bridges between pairs. Result:
 * {@code nvswitch_count}, {@code nvlink_active_min}.
 */
public final class GpuFabricCheckModule implements TaskModule {
    /** Read-only: prints the PCI address of each NVIDIA bridge-class function (an NVSwitch). */
    static final String NVSWITCH_SCRIPT = "for d in /sys/bus/pci/devices/*; do [ -r \"$d/vendor\" ] || continue; "
            + "[ \"$(cat \"$d/vendor\")\" = 0x10de ] || continue; case \"$(cat \"$d/class\")\" in 0x0680*) echo \"${d##*/}\";; esac; done";
    static final java.util.List<String> PGREP = java.util.List.of("pgrep", "-f", "(^|/)nv-fabricmanager( |$)");
    static final String SERVICE = "nvidia-fabricmanager";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("nvswitch", Type.BOOL)
            .optional("expected_nvlinks", Type.INT)
            .build();

    public GpuFabricCheckModule() {
    }

    @Override
    public String name() {
        return "gpu_fabric";
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
        ProbeResult scan = context.host().probe("sh", "-c", NVSWITCH_SCRIPT);
        long found = scan.ok() ? scan.stdout().lines().filter(l -> !l.isBlank()).count() : 0;
        boolean nvswitch = params.has("nvswitch") ? params.bool("nvswitch") : found > 0;
        report.measured("nvswitch_count", found);
        report.add(new CheckResult("gpu_fabric.nvswitch", found + " NVSwitches", params.has("nvswitch") ? (nvswitch ? ">= 1" : "none") : "-",
                params.has("nvswitch") && nvswitch && found == 0 ? Verdict.FAIL : Verdict.PASS,
                params.has("nvswitch") && nvswitch && found == 0 ? "no NVSwitch visible on the PCI bus:"
                        + " drain the node and power-cycle it; if they stay missing, have the baseboard serviced" : ""));
        if (nvswitch) {
            report.add(fabricManager(context));
            ProbeResult q = context.host().probe(NvidiaSmiQuery.COMMAND.toArray(String[]::new));
            report.add(fabricState(NvidiaSmiQuery.blocks(q.stdout())));
        } else {
            report.add(CheckResult.skip("gpu_fabric.fabricmanager", "no NVSwitch: no fabric manager needed"));
        }
        ProbeResult nvlink = context.host().probe(NvlinkStatus.COMMAND.toArray(String[]::new));
        List<NvlinkStatus.Gpu> gpus = nvlink.ok() ? NvlinkStatus.parse(nvlink.stdout()) : List.of();
        report.add(nvlinks(gpus, nvswitch, params.optInteger("expected_nvlinks"), nvlink));
        gpus.stream().mapToInt(NvlinkStatus.Gpu::active).min().ifPresent(n -> report.measured("nvlink_active_min", (long) n));
        return report.plan();
    }

    private static CheckResult fabricManager(TaskContext context) throws ModuleException {
        Optional<String> systemd = Facts.unitActivity(SERVICE).read(context.host());
        String state;
        if (systemd.isPresent()) {
            state = systemd.get();
        } else {
            // no systemd to ask: the process itself. -f: the kernel keeps 15 characters of a process name,
            // so "nv-fabricmanager" never matches -x (pgrep says so on the H200 host; docs/preflight-h200/captures-2026-12-02.txt).
            ProbeResult pgrep = context.host().probe(PGREP.toArray(String[]::new));
            state = pgrep.ok() ? "active" : "not running";
        }
        return CheckResult.of(state.equals("active"), "gpu_fabric.fabricmanager", state, "active",
                SERVICE + " is " + state
                        + ": CUDA reports 'system not yet initialized' on NVSwitch boards without it: systemctl enable --now " + SERVICE);
    }

    static CheckResult fabricState(List<NvidiaSmiQuery.Block> gpus) {
        List<NvidiaSmiQuery.Block> reported = gpus.stream().filter(b -> GpuInfo.available(b.value("Fabric/State"))).toList();
        if (reported.isEmpty()) {
            return CheckResult.skip("gpu_fabric.state", "the driver reports no fabric state (before R530, or no GPU)");
        }
        List<String> bad = reported.stream()
                .filter(b -> !b.value("Fabric/State").equalsIgnoreCase("Completed")
                        || GpuInfo.available(b.value("Fabric/Status")) && !b.value("Fabric/Status").equalsIgnoreCase("Success"))
                .map(b -> b.busId() + " " + b.value("Fabric/State") + "/" + b.value("Fabric/Status")).toList();
        String measured = reported.stream().map(b -> b.value("Fabric/State")).distinct().collect(Collectors.joining(", "));
        return CheckResult.of(bad.isEmpty(), "gpu_fabric.state", measured, "Completed", "fabric not trained: " + String.join("; ", bad)
                + ": restart the fabric manager (systemctl restart " + SERVICE + "), else reboot the node");
    }

    static CheckResult nvlinks(List<NvlinkStatus.Gpu> gpus, boolean nvswitch, Optional<Long> expected, ProbeResult probe) {
        if (gpus.isEmpty()) {
            String why = probe.ok() ? "no GPU lists NVLinks" : "nvidia-smi nvlink failed: " + Probes.firstLine(probe);
            return nvswitch || expected.isPresent() ? CheckResult.fail("gpu_fabric.nvlink", "no links", expected.map(n -> n + " up per GPU").orElse("links up"),
                    why + ": reset the GPUs (nvidia-smi -r) or reboot; if none come up, check nvswitch / expected_nvlinks for this node")
                    : CheckResult.skip("gpu_fabric.nvlink", why + ": no NVLink on this node");
        }
        int most = gpus.stream().mapToInt(NvlinkStatus.Gpu::active).max().orElse(0);
        long want = expected.orElse((long) most);
        List<String> bad = gpus.stream().filter(g -> !g.inactive().isEmpty() || g.active() < want)
                .map(g -> "GPU " + g.index() + ": " + g.active() + " of " + g.links() + " up"
                        + (g.inactive().isEmpty() ? "" : ", down: " + g.inactive().stream().map(String::valueOf).collect(Collectors.joining(","))))
                .toList();
        int least = gpus.stream().mapToInt(NvlinkStatus.Gpu::active).min().orElse(0);
        String measured = least == most ? most + " up per GPU" : least + "-" + most + " up per GPU";
        return CheckResult.of(bad.isEmpty(), "gpu_fabric.nvlink", measured, want + " up per GPU", "NVLinks down: " + String.join("; ", bad)
                + ": drain the node, reset the GPUs (nvidia-smi -r) or reboot; if links stay down, have the board serviced");
    }
}
