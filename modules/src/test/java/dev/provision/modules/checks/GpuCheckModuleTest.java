package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
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

class GpuCheckModuleTest {
    private final GpuCheckModule module = new GpuCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static final List<String> KERNEL_LOG = List.of("sh", "-c", KernelXid.SCRIPT);

    private static FakeHost answering(String fixture) {
        return answering(fixture, "h200-1gpu/nvidia-smi-q.txt", "synthetic/kernel-log-clean.txt");
    }

    private static FakeHost answering(String csv, String query, String kernelLog) {
        return new FakeHost().probe(NvidiaSmiCsv.COMMAND, load(csv).probe())
                .probe(NvidiaSmiQuery.COMMAND, load(query).probe())
                .probe(KERNEL_LOG, load(kernelLog).probe());
    }

    @Test
    void healthyH200PassesEveryRowItCanMeasure() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt"),
                Args.of("expected_count", 1, "expected_model", "H200", "min_driver", "550"));
        assertFalse(failed(plan), plan.reason());
        assertTrue(plan.isEmpty(), "checks change nothing");
        assertEquals("1", row(plan, "gpu.count").get("measured"));
        assertEquals("NVIDIA H200", row(plan, "gpu.model").get("measured"));
        assertEquals("580.159.04", row(plan, "gpu.driver_version").get("measured"));
        assertVerdict(plan, "gpu.ecc_mode", Verdict.PASS);
        assertVerdict(plan, "gpu.ecc_volatile_uncorrected", Verdict.PASS);
        assertVerdict(plan, "gpu.retired_pages_pending", Verdict.SKIP);
        assertVerdict(plan, "gpu.remapped_rows_pending", Verdict.PASS);
        assertEquals(1L, plan.result().get("gpu_count"));
        assertEquals("Gen5 x16", row(plan, "gpu.pcie_link").get("measured"));
        assertEquals("Gen5 x16", row(plan, "gpu.pcie_link").get("expected"));
        assertVerdict(plan, "gpu.pcie_link", Verdict.PASS);
        assertVerdict(plan, "gpu.persistence_mode", Verdict.PASS);
        assertVerdict(plan, "gpu.mig_mode", Verdict.PASS);
        assertVerdict(plan, "gpu.throttle", Verdict.PASS);
        assertEquals("35 C (hottest)", row(plan, "gpu.temperature").get("measured"));
        assertVerdict(plan, "gpu.recovery_action", Verdict.PASS);
        assertVerdict(plan, "gpu.xid", Verdict.PASS);
        assertEquals(16L, plan.result().get("pcie_width_min"));
        assertTrue(plan.reason().startsWith("gpu: 14 passed, 1 skipped"), plan.reason());
    }

    @Test
    void wrongCountModelAndOldDriverFail() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt"),
                Args.of("expected_count", 8, "expected_model", "H100", "min_driver", "590.10"));
        assertTrue(failed(plan));
        assertVerdict(plan, "gpu.count", Verdict.FAIL);
        assertVerdict(plan, "gpu.model", Verdict.FAIL);
        assertVerdict(plan, "gpu.driver_version", Verdict.FAIL);
        assertEquals("8", row(plan, "gpu.count").get("expected"));
    }

    @Test
    void eccErrorsAndPendingRemapFailNamingTheGpu() throws Exception {
        Plan plan = plan(answering("synthetic/nvidia-smi-csv-ecc-errors.txt"), Args.of());
        assertTrue(failed(plan));
        assertVerdict(plan, "gpu.ecc_volatile_uncorrected", Verdict.FAIL);
        assertEquals("3", row(plan, "gpu.ecc_volatile_uncorrected").get("measured"));
        assertTrue(((String) row(plan, "gpu.ecc_volatile_uncorrected").get("detail")).contains("GPU 2 (00000000:3A:00.0): 3"));
        assertVerdict(plan, "gpu.ecc_aggregate_uncorrected", Verdict.FAIL);
        assertVerdict(plan, "gpu.remapped_rows_pending", Verdict.FAIL);
        assertVerdict(plan, "gpu.ecc_mode", Verdict.FAIL);
        assertTrue(plan.reason().contains("gpu.ecc_volatile_uncorrected"), plan.reason());
    }

    @Test
    void eccDisabledOnlyWarnsWhenNotRequired() throws Exception {
        Plan plan = plan(answering("synthetic/nvidia-smi-csv-ecc-errors.txt"), Args.of("require_ecc", false));
        assertVerdict(plan, "gpu.ecc_mode", Verdict.WARN);
    }

    @Test
    void missingDriverIsOneClearFailure() throws Exception {
        Plan plan = plan(answering("synthetic/nvidia-smi-driver-missing.txt"), Args.of("expected_count", 8));
        assertTrue(failed(plan));
        assertEquals(1, ChecksFixtures.rows(plan).size());
        assertVerdict(plan, "gpu.driver", Verdict.FAIL);
        assertTrue(((String) row(plan, "gpu.driver").get("detail")).contains("couldn't communicate with the NVIDIA driver"));
    }

    @Test
    void lostGpuFailsAndTheRestAreCounted() throws Exception {
        Plan plan = plan(answering("synthetic/nvidia-smi-gpu-lost.txt"), Args.of("expected_count", 3));
        assertVerdict(plan, "gpu.lost", Verdict.FAIL);
        assertEquals("1 lost: 0000:3A:00.0", row(plan, "gpu.lost").get("measured"));
        assertVerdict(plan, "gpu.count", Verdict.FAIL);
        assertEquals("2", row(plan, "gpu.count").get("measured"));
    }

    @Test
    void refusedQueryFallsBackToTheFullReport() throws Exception {
        FakeHost host = answering("h200-1gpu/nvidia-smi-csv-checks.txt")
                .probe(NvidiaSmiCsv.COMMAND, new ProbeResult(2, "Field \"remapped_rows.pending\" is not a valid field to query.\n", ""));
        Plan plan = plan(host, Args.of("expected_count", 1));
        assertFalse(failed(plan), plan.reason());
        assertEquals("NVIDIA H200", row(plan, "gpu.model").get("measured"));
        assertVerdict(plan, "gpu.ecc_aggregate_uncorrected", Verdict.PASS);
        assertVerdict(plan, "gpu.pcie_link", Verdict.PASS);
        assertEquals(1, host.probesRun().stream().filter(NvidiaSmiQuery.COMMAND::equals).count(), "the -q report is read once");
    }

    @Test
    void gen4X8LinkSlowdownHeatPersistenceAndRecoveryFailNamingTheGpu() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "synthetic/nvidia-smi-q-gen4-x8.txt",
                "synthetic/kernel-log-clean.txt"), Args.of());
        assertTrue(failed(plan));
        Map<String, Object> link = row(plan, "gpu.pcie_link");
        assertEquals("fail", link.get("verdict"));
        assertEquals("Gen5 x16, Gen4 x8", link.get("measured"));
        assertEquals("Gen5 x16", link.get("expected"));
        assertDetail("degraded PCIe link: GPU 3B:00.0 at Gen4 x8 (x16 possible)", link.get("detail"));
        assertVerdict(plan, "gpu.persistence_mode", Verdict.FAIL);
        assertTrue(((String) row(plan, "gpu.persistence_mode").get("detail")).contains("(GPU 3B:00.0): enable it"));
        assertVerdict(plan, "gpu.throttle", Verdict.FAIL);
        assertDetail("hardware is lowering clocks: GPU 3B:00.0: HW Slowdown, HW Thermal Slowdown", row(plan, "gpu.throttle").get("detail"));
        assertVerdict(plan, "gpu.temperature", Verdict.FAIL);
        assertEquals("91 C (hottest)", row(plan, "gpu.temperature").get("measured"));
        assertVerdict(plan, "gpu.recovery_action", Verdict.FAIL);
        assertEquals(8L, plan.result().get("pcie_width_min"));
    }

    @Test
    void persistenceOnlyWarnsWhenNotRequiredAndMigExpectationIsChecked() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "synthetic/nvidia-smi-q-gen4-x8.txt",
                "synthetic/kernel-log-clean.txt"), Args.of("require_persistence", false, "expected_mig", "Enabled"));
        assertVerdict(plan, "gpu.persistence_mode", Verdict.WARN);
        assertVerdict(plan, "gpu.mig_mode", Verdict.FAIL);
    }

    @Test
    void idleGpuBelowItsLinkGenerationOnlyWarns() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "synthetic/nvidia-smi-q-idle-gen1.txt",
                "synthetic/kernel-log-clean.txt"), Args.of());
        assertVerdict(plan, "gpu.pcie_link", Verdict.WARN);
        assertEquals("Gen1 x16", row(plan, "gpu.pcie_link").get("measured"));
    }

    @Test
    void expectedLinkAboveWhatTheHostGivesFails() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt"), Args.of("expected_pcie_gen", 6));
        assertVerdict(plan, "gpu.pcie_link", Verdict.FAIL);
        assertEquals("Gen6 xmax", row(plan, "gpu.pcie_link").get("expected"));
    }

    @Test
    void xid79InTheKernelLogFailsAndSaysDrain() throws Exception {
        Plan plan = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "h200-1gpu/nvidia-smi-q.txt",
                "synthetic/kernel-log-xid79.txt"), Args.of());
        assertTrue(failed(plan));
        Map<String, Object> xid = row(plan, "gpu.xid");
        assertEquals("fail", xid.get("verdict"));
        assertEquals("3 events: Xid 13 on 0000:3b:00, Xid 79 on 0000:3b:00 (x2)", xid.get("measured"));
        assertEquals("drain this node: Xid 79 (GPU has fallen off the bus) on 0000:3b:00 (from journalctl)", xid.get("detail"));
        assertEquals(List.of(13L, 79L), plan.result().get("xid_codes"));
    }

    @Test
    void applicationXidOnlyWarnsAndAnUnreadableLogIsNotJudged() throws Exception {
        Plan warn = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "h200-1gpu/nvidia-smi-q.txt",
                "synthetic/kernel-log-xid13-dmesg.txt"), Args.of());
        assertVerdict(warn, "gpu.xid", Verdict.WARN);
        assertFalse(failed(warn));
        Plan unreadable = plan(answering("h200-1gpu/nvidia-smi-csv-checks.txt", "h200-1gpu/nvidia-smi-q.txt",
                "synthetic/kernel-log-unreadable.txt"), Args.of());
        assertVerdict(unreadable, "gpu.xid", Verdict.UNKNOWN);
        assertFalse(failed(unreadable), "could not judge is not a failure");
        assertTrue(((String) row(unreadable, "gpu.xid").get("detail")).contains("become: true"), "says what to do");
    }
}
