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
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuFabricCheckModuleTest {
    private static final List<String> SCAN = List.of("sh", "-c", GpuFabricCheckModule.NVSWITCH_SCRIPT);
    private static final List<String> SYSTEMCTL = List.of("systemctl", "is-active", "nvidia-fabricmanager");
    private final GpuFabricCheckModule module = new GpuFabricCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    /** An HGX board: four NVSwitches, eight GPUs. */
    private static FakeHost hgx(String systemctl, String query, String nvlink) {
        return new FakeHost().probe(SCAN, load("synthetic/nvswitch-sysfs-4.txt").probe())
                .probe(SYSTEMCTL, load(systemctl).probe())
                .probe(NvidiaSmiQuery.COMMAND, load(query).probe())
                .probe(NvlinkStatus.COMMAND, load(nvlink).probe());
    }

    @Test
    void singleGpuH200WithoutNvswitchSkipsTheFabricRows() throws Exception {
        FakeHost host = new FakeHost().probe(SCAN, new ProbeResult(0, "", ""))
                .probe(NvlinkStatus.COMMAND, load("h200-1gpu/nvidia-smi-nvlink.txt").probe());
        Plan plan = plan(host, Args.of());
        assertFalse(failed(plan), plan.reason());
        assertEquals("0 NVSwitches", row(plan, "gpu_fabric.nvswitch").get("measured"));
        assertVerdict(plan, "gpu_fabric.fabricmanager", Verdict.SKIP);
        assertVerdict(plan, "gpu_fabric.nvlink", Verdict.SKIP);
        assertFalse(host.probesRun().contains(SYSTEMCTL), "no fabric manager asked for without NVSwitches");
    }

    @Test
    void fabricManagerDownFailsAndTheFabricIsNotTrained() throws Exception {
        Plan plan = plan(hgx("synthetic/systemctl-fabricmanager-inactive.txt", "synthetic/nvidia-smi-q-fabric-in-progress.txt",
                "synthetic/nvidia-smi-nvlink-8gpu-one-down.txt"), Args.of("expected_nvlinks", 18));
        assertTrue(failed(plan));
        assertEquals("4 NVSwitches", row(plan, "gpu_fabric.nvswitch").get("measured"));
        Map<String, Object> fm = row(plan, "gpu_fabric.fabricmanager");
        assertEquals("fail", fm.get("verdict"));
        assertEquals("inactive", fm.get("measured"));
        assertTrue(((String) fm.get("detail")).startsWith("nvidia-fabricmanager is inactive"), fm.toString());
        assertVerdict(plan, "gpu_fabric.state", Verdict.FAIL);
        assertEquals("In Progress", row(plan, "gpu_fabric.state").get("measured"));
        Map<String, Object> nvlink = row(plan, "gpu_fabric.nvlink");
        assertEquals("fail", nvlink.get("verdict"));
        assertEquals("17-18 up per GPU", nvlink.get("measured"));
        assertDetail("NVLinks down: GPU 3: 17 of 18 up, down: 7", nvlink.get("detail"));
        assertEquals(17L, plan.result().get("nvlink_active_min"));
    }

    @Test
    void trainedFabricWithEveryLinkUpPasses() throws Exception {
        FakeHost host = hgx("synthetic/systemctl-fabricmanager-inactive.txt", "synthetic/nvidia-smi-q-fabric-completed.txt",
                "synthetic/nvidia-smi-nvlink-8gpu-one-down.txt")
                .probe(SYSTEMCTL, new ProbeResult(0, "active\n", ""))
                .probe(NvlinkStatus.COMMAND, new ProbeResult(0, output("synthetic/nvidia-smi-nvlink-8gpu-one-down.txt")
                        .replace("<inactive>", "26.562 GB/s"), ""));
        Plan plan = plan(host, Args.of());
        assertFalse(failed(plan), plan.reason());
        assertVerdict(plan, "gpu_fabric.fabricmanager", Verdict.PASS);
        assertVerdict(plan, "gpu_fabric.state", Verdict.PASS);
        assertEquals("18 up per GPU", row(plan, "gpu_fabric.nvlink").get("measured"));
    }

    @Test
    void withoutSystemdTheDaemonIsLookedForByName() throws Exception {
        FakeHost host = hgx("synthetic/systemctl-fabricmanager-inactive.txt", "synthetic/nvidia-smi-q-fabric-completed.txt",
                "synthetic/nvidia-smi-nvlink-8gpu-one-down.txt")
                .probe(SYSTEMCTL, new ProbeResult(127, "", "sh: systemctl: not found\n"))
                .probe(1, "", "", GpuFabricCheckModule.PGREP.toArray(String[]::new));
        assertEquals("not running", row(plan(host, Args.of()), "gpu_fabric.fabricmanager").get("measured"));
    }

    @Test
    void parsesNvlinkStatusPerGpu() {
        List<NvlinkStatus.Gpu> gpus = NvlinkStatus.parse(output("synthetic/nvidia-smi-nvlink-8gpu-one-down.txt"));
        assertEquals(8, gpus.size());
        assertEquals(new NvlinkStatus.Gpu(3, "NVIDIA H100 80GB HBM3", 18, List.of(7)), gpus.get(3));
        assertEquals(List.of(), NvlinkStatus.parse(output("h200-1gpu/nvidia-smi-nvlink.txt")), "the real capture without peers");
    }
}
