package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code toolchain}: what a training job builds and pins itself with. One probe finds the programs
 * ({@link ToolPaths}), then each present tool is asked its own question.
 *
 * <p>Rows: {@code toolchain.gcc} ({@code gcc -dumpfullversion -dumpversion} at least
 * {@code min_gcc}, default 9.4: FlashAttention and Apex build CUDA extensions with it),
 * {@code toolchain.numactl} (present: launchers bind ranks to their GPU's NUMA node with it),
 * {@code toolchain.numa_nodes} ({@code numactl --hardware}; {@code expected_numa_nodes} when
 * given), {@code toolchain.gpu_numa_affinity} (every GPU's NUMA Affinity in
 * {@code nvidia-smi topo -m} is a node numactl lists; skipped without nvidia-smi),
 * {@code toolchain.container_runtime} and {@code toolchain.container_toolkit} (only when
 * {@code container_runtime} names one, {@code docker}, {@code podman} or {@code enroot}: it is
 * installed, and so is the NVIDIA container toolkit, {@code nvidia-ctk} or
 * {@code nvidia-container-cli}). Result: {@code gcc_version}, {@code numa_nodes}.
 */
public final class ToolchainCheckModule implements TaskModule {
    static final List<String> TOOLS = List.of("gcc", "numactl", "nvidia-smi", "nvidia-ctk", "nvidia-container-cli", "docker", "podman", "enroot");
    static final List<String> GCC = List.of("gcc", "-dumpfullversion", "-dumpversion");

    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("min_gcc", Type.STRING, "9.4")
            .optional("expected_numa_nodes", Type.INT)
            .optional("container_runtime", Type.STRING)
            .build();

    public ToolchainCheckModule() {
    }

    @Override
    public String name() {
        return "toolchain";
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
        Map<String, String> tools = ToolPaths.parse(context.host().probe(ToolPaths.command(TOOLS).toArray(String[]::new)).stdout());
        String minGcc = params.string("min_gcc");
        if (!tools.containsKey("gcc")) {
            report.add(CheckResult.fail("toolchain.gcc", "missing", ">= " + minGcc, "no gcc: CUDA extensions (FlashAttention, Apex) cannot build: install gcc (build-essential, gcc-c++)"));
        } else {
            ProbeResult gcc = context.host().probe(GCC.toArray(String[]::new));
            String version = gcc.stdout().strip();
            report.measured("gcc_version", version);
            report.add(CheckResult.of(gcc.ok() && Versions.compare(version, minGcc) >= 0, "toolchain.gcc", gcc.ok() ? version : "unknown",
                    ">= " + minGcc, gcc.ok() ? "GCC " + version + " is older than " + minGcc + ": FlashAttention/Apex need it: install a newer gcc"
                            + " (gcc-toolset, ubuntu-toolchain)"
                            : "gcc failed: " + Probes.firstLine(gcc) + ": reinstall gcc"));
        }
        numa(params, tools, context, report);
        Optional<String> runtime = Probes.expectation(params, "container_runtime");
        if (runtime.isPresent()) {
            String r = runtime.get();
            if (!List.of("docker", "podman", "enroot").contains(r)) {
                throw new ModuleException("container_runtime: must be docker, podman or enroot, got '" + r + "'");
            }
            report.add(CheckResult.of(tools.containsKey(r), "toolchain.container_runtime", tools.getOrDefault(r, "missing"), r, r + " not installed: install it (cluster.yml's container runtime)"));
            Optional<String> toolkit = ToolPaths.path(tools, "nvidia-ctk").or(() -> ToolPaths.path(tools, "nvidia-container-cli"));
            report.add(CheckResult.of(toolkit.isPresent(), "toolchain.container_toolkit", toolkit.orElse("missing"), "nvidia-ctk or nvidia-container-cli",
                    "NVIDIA container toolkit missing: containers see no GPU: install nvidia-container-toolkit, then nvidia-ctk runtime configure"));
        }
        return report.plan();
    }

    private static void numa(Params params, Map<String, String> tools, TaskContext context, CheckReport report) throws ModuleException {
        if (!tools.containsKey("numactl")) {
            report.add(CheckResult.fail("toolchain.numactl", "missing", "installed", "numactl missing: ranks cannot be bound to their GPU's NUMA node: install numactl"));
            return;
        }
        report.add(CheckResult.pass("toolchain.numactl", tools.get("numactl"), "installed"));
        ProbeResult hw = context.host().probe(NumaTopology.NUMACTL.toArray(String[]::new));
        List<Integer> nodes = hw.ok() ? NumaTopology.nodes(hw.stdout()) : List.of();
        report.measured("numa_nodes", (long) nodes.size());
        Optional<Long> expected = params.optInteger("expected_numa_nodes");
        String shown = nodes.size() + " (" + nodes.stream().map(String::valueOf).collect(Collectors.joining(",")) + ")";
        if (nodes.isEmpty()) {
            report.add(new CheckResult("toolchain.numa_nodes", "unknown", expected.map(String::valueOf).orElse(">= 1"), Verdict.UNKNOWN,
                    "could not run: numactl --hardware failed: " + Probes.firstLine(hw)));
            return;
        }
        report.add(expected.map(n -> CheckResult.of(nodes.size() == n, "toolchain.numa_nodes", shown, String.valueOf(n),
                        "NUMA nodes hidden (BIOS NPS/SNC setting, or a VM): ranks cannot be placed near their GPU: set the BIOS NUMA"
                                + " setting as on the other nodes, or fix expected_numa_nodes"))
                .orElse(CheckResult.pass("toolchain.numa_nodes", shown, "-")));
        if (!tools.containsKey("nvidia-smi")) {
            report.add(CheckResult.unknown("toolchain.gpu_numa_affinity", "could not run: nvidia-smi not found:"
                    + " install the NVIDIA driver's utilities (see the gpu check)"));
            return;
        }
        ProbeResult topo = context.host().probe(NumaTopology.TOPO.toArray(String[]::new));
        report.add(affinity(NumaTopology.gpuAffinity(topo.ok() ? topo.stdout() : ""), nodes));
    }

    static CheckResult affinity(Map<String, String> gpus, List<Integer> nodes) {
        if (gpus.isEmpty()) {
            return CheckResult.unknown("toolchain.gpu_numa_affinity", "could not judge: nvidia-smi topo -m lists no GPU"
                    + " (see the gpu check)");
        }
        List<String> unknown = gpus.entrySet().stream()
                .filter(e -> NumaTopology.ranges(e.getValue()).isEmpty() || !nodes.containsAll(NumaTopology.ranges(e.getValue())))
                .map(e -> e.getKey() + " " + e.getValue()).toList();
        String measured = gpus.values().stream().collect(Collectors.toCollection(TreeSet::new)).stream().collect(Collectors.joining(", "));
        String expected = "nodes " + nodes.stream().map(String::valueOf).collect(Collectors.joining(","));
        return CheckResult.of(unknown.isEmpty(), "toolchain.gpu_numa_affinity", "nodes " + measured, expected,
                "GPU NUMA affinity unknown or outside numactl's nodes: " + String.join(", ", unknown)
                        + ": check the BIOS NUMA settings against nvidia-smi topo -m");
    }
}
