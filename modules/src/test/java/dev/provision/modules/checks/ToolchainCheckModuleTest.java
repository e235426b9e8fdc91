package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.output;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolchainCheckModuleTest {
    private final ToolchainCheckModule module = new ToolchainCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    /** What the probe prints on a node with these tools (the real capture's format). */
    private static String tools(String... present) {
        StringBuilder out = new StringBuilder();
        for (String t : ToolchainCheckModule.TOOLS) {
            out.append(t).append(": ").append(List.of(present).contains(t) ? "/usr/bin/" + t : "missing").append('\n');
        }
        return out.toString();
    }

    /** The H200 host: numactl and nvidia-smi as captured; gcc as Debian 12 ships it. */
    private static FakeHost h200(String... present) {
        return new FakeHost().probe(0, tools(present), "", ToolPaths.command(ToolchainCheckModule.TOOLS).toArray(String[]::new))
                .probe(0, "12.2.0\n", "", "gcc", "-dumpfullversion", "-dumpversion")
                .probe(NumaTopology.NUMACTL, load("h200-1gpu/numactl.txt").probe())
                .probe(NumaTopology.TOPO, load("h200-1gpu/nvidia-smi-topo.txt").probe());
    }

    @Test
    void h200HostPassesGccNumactlAndAffinity() throws Exception {
        Plan plan = plan(h200("gcc", "numactl", "nvidia-smi"), Args.of());
        assertFalse(failed(plan), plan.reason());
        assertEquals("12.2.0", row(plan, "toolchain.gcc").get("measured"));
        assertEquals("1 (0)", row(plan, "toolchain.numa_nodes").get("measured"));
        assertEquals("nodes 0", row(plan, "toolchain.gpu_numa_affinity").get("measured"));
        assertEquals(1L, plan.result().get("numa_nodes"));
    }

    @Test
    void oldGccFailsAndMissingGccFailsSayingWhy() throws Exception {
        FakeHost old = h200("gcc", "numactl", "nvidia-smi").probe(0, "8.5.0\n", "", "gcc", "-dumpfullversion", "-dumpversion");
        Map<String, Object> gcc = row(plan(old, Args.of()), "toolchain.gcc");
        assertEquals("fail", gcc.get("verdict"));
        assertEquals(">= 9.4", gcc.get("expected"));
        assertEquals("missing", row(plan(h200("numactl", "nvidia-smi"), Args.of()), "toolchain.gcc").get("measured"));
    }

    @Test
    void nodeWithoutNumactlFailsAndAsksNothingMoreOfIt() throws Exception {
        FakeHost host = h200("gcc", "nvidia-smi");
        Plan plan = plan(host, Args.of());
        assertTrue(failed(plan));
        assertVerdict(plan, "toolchain.numactl", Verdict.FAIL);
        assertFalse(host.probesRun().contains(NumaTopology.NUMACTL));
    }

    @Test
    void hiddenNumaNodesAndAGpuOnAnUnknownNodeFail() throws Exception {
        FakeHost host = h200("gcc", "numactl", "nvidia-smi").probe(NumaTopology.TOPO, load("synthetic/nvidia-smi-topo-8gpu-2numa.txt").probe());
        Plan plan = plan(host, Args.of("expected_numa_nodes", 2));
        assertVerdict(plan, "toolchain.numa_nodes", Verdict.FAIL);
        Map<String, Object> affinity = row(plan, "toolchain.gpu_numa_affinity");
        assertEquals("nodes 0, 1", affinity.get("measured"));
        assertDetail("GPU NUMA affinity unknown or outside numactl's nodes: GPU4 1, GPU5 1, GPU6 1, GPU7 1", affinity.get("detail"));
    }

    @Test
    void containerRuntimeAndToolkitOnlyWhenAsked() throws Exception {
        assertFalse(ChecksFixtures.rows(plan(h200("gcc", "numactl", "nvidia-smi"), Args.of())).containsKey("toolchain.container_toolkit"));
        Plan plan = plan(h200("gcc", "numactl", "nvidia-smi", "enroot"), Args.of("container_runtime", "enroot"));
        assertVerdict(plan, "toolchain.container_runtime", Verdict.PASS);
        assertVerdict(plan, "toolchain.container_toolkit", Verdict.FAIL);
    }

    @Test
    void parsesTheRealToolListAndTopology() {
        Map<String, String> tools = ToolPaths.parse(output("h200-1gpu/tools.txt"));
        assertEquals("/usr/bin/numactl", tools.get("numactl"));
        assertFalse(tools.containsKey("chronyd"));
        assertEquals(Map.of("GPU0", "0"), NumaTopology.gpuAffinity(output("h200-1gpu/nvidia-smi-topo.txt")));
        assertEquals("1", NumaTopology.gpuAffinity(output("synthetic/nvidia-smi-topo-8gpu-2numa.txt")).get("GPU7"));
        assertEquals(List.of(0, 1, 3), NumaTopology.ranges("0-1,3"));
    }
}
