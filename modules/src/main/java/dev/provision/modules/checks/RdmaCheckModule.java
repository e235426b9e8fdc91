package dev.provision.modules.checks;

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
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code rdma}: GPUDirect RDMA can work, and NCCL uses every rail. The port states themselves are
 * the {@code ib} check's.
 *
 * <p>Rows (all skipped on a node without InfiniBand/RoCE devices):
 * <ul>
 *   <li>{@code rdma.peermem}: with the NVIDIA driver loaded, {@code nvidia_peermem} (or the older
 *       Mellanox {@code nv_peer_mem}) is in {@code /proc/modules}; without it the HCAs cannot read
 *       GPU memory and NCCL silently stages every transfer through host memory.
 *       {@code require_peermem: false} warns instead (a stack that uses DMA-BUF).
 *   <li>{@code rdma.nccl_ib_hca}: {@code NCCL_IB_HCA} (found as the {@code ib} check finds it)
 *       selects every HCA with an Active port, and names no HCA the node lacks; unset passes
 *       (NCCL uses every HCA). An active HCA left out on purpose is listed in {@code excluded}.
 * </ul>
 * Result: {@code active_hcas}, {@code peermem}.
 */
public final class RdmaCheckModule implements TaskModule {
    static final List<String> MODULES = List.of("cat", "/proc/modules");
    private static final Set<String> PEERMEM = Set.of("nvidia_peermem", "nv_peer_mem");

    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("require_peermem", Type.BOOL, true)
            .optional("nccl_ib_hca", Type.STRING)
            .withDefault("excluded", Type.LIST, List.of())
            .build();

    public RdmaCheckModule() {
    }

    @Override
    public String name() {
        return "rdma";
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
        List<IbStatus.Port> ports = IbCheckModule.ports(context);
        if (ports.isEmpty()) {
            return report.add(CheckResult.skip("rdma.peermem", "no InfiniBand/RoCE devices")).measured("active_hcas", List.of()).plan();
        }
        ProbeResult modules = context.host().probe(MODULES.toArray(String[]::new));
        Set<String> loaded = loadedModules(modules.stdout());
        String peermem = loaded.stream().filter(PEERMEM::contains).findFirst().orElse("");
        report.measured("peermem", peermem);
        if (!modules.ok()) {
            report.add(new CheckResult("rdma.peermem", "unknown", "nvidia_peermem loaded", Verdict.UNKNOWN,
                    "could not run: cannot read /proc/modules: " + Probes.firstLine(modules)));
        } else if (!loaded.contains("nvidia")) {
            report.add(CheckResult.skip("rdma.peermem", "NVIDIA driver not loaded: no GPU memory to reach"));
        } else if (peermem.isEmpty()) {
            String detail = "nvidia_peermem not loaded: GPUDirect RDMA off, NCCL copies through host memory (modprobe nvidia_peermem)";
            report.add(params.bool("require_peermem") ? CheckResult.fail("rdma.peermem", "not loaded", "nvidia_peermem loaded", detail)
                    : CheckResult.warn("rdma.peermem", "not loaded", "nvidia_peermem loaded", detail));
        } else {
            report.add(CheckResult.pass("rdma.peermem", peermem + " loaded", "nvidia_peermem loaded"));
        }
        List<String> active = ports.stream().filter(IbStatus.Port::up).map(IbStatus.Port::device).distinct().toList();
        report.measured("active_hcas", active);
        report.add(coverage(NcclIbHca.lookup(params, context), ports, params.list("excluded").stream().map(String::valueOf).toList()));
        return report.plan();
    }

    static CheckResult coverage(Optional<String> value, List<IbStatus.Port> ports, List<String> excludedOnPurpose) {
        List<String> active = ports.stream().filter(IbStatus.Port::up).map(IbStatus.Port::device).distinct().toList();
        String expected = "all " + active.size() + " active HCAs" + (excludedOnPurpose.isEmpty() ? "" : " but " + String.join(",", excludedOnPurpose));
        if (value.isEmpty()) {
            return new CheckResult("rdma.nccl_ib_hca", "unset", expected, Verdict.PASS, "NCCL uses every HCA");
        }
        NcclIbHca hca = NcclIbHca.parse(value.get());
        List<String> devices = ports.stream().map(IbStatus.Port::device).distinct().toList();
        List<String> unmatched = hca.exclude() ? List.of() : hca.unmatched(devices);
        List<String> unused = active.stream().filter(d -> !excludedOnPurpose.contains(d))
                .filter(d -> ports.stream().noneMatch(p -> p.device().equals(d) && p.up() && hca.selects(d, p.port()))).toList();
        long used = active.stream().filter(d -> ports.stream().anyMatch(p -> p.device().equals(d) && p.up() && hca.selects(d, p.port()))).count();
        String measured = "NCCL_IB_HCA=" + hca.raw() + " (" + used + " of " + active.size() + " active)";
        if (!unused.isEmpty() || !unmatched.isEmpty()) {
            String detail = (unused.isEmpty() ? "" : "leaves out active " + String.join(", ", unused) + ": NCCL uses " + used
                    + " of " + active.size() + " rails")
                    + (unused.isEmpty() || unmatched.isEmpty() ? "" : "; ")
                    + (unmatched.isEmpty() ? "" : "names " + String.join(", ", unmatched) + ", not on this node")
                    + ": fix NCCL_IB_HCA for this node's group (or list the HCA left out on purpose in excluded)";
            return CheckResult.fail("rdma.nccl_ib_hca", measured, expected, detail);
        }
        return CheckResult.pass("rdma.nccl_ib_hca", measured, expected);
    }

    /** Module names from {@code /proc/modules} (the first word of each line). */
    static Set<String> loadedModules(String procModules) {
        return procModules.lines().map(String::strip).filter(l -> !l.isEmpty()).map(l -> l.split("\\s+")[0]).collect(Collectors.toSet());
    }
}
