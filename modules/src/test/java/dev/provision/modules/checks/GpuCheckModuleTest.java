package dev.provision.modules.checks;

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

    private static FakeHost answering(String fixture) {
        return new FakeHost().probe(NvidiaSmiCsv.COMMAND, load(fixture).probe());
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
        assertTrue(plan.reason().startsWith("gpu: 7 passed, 1 skipped"), plan.reason());
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
        FakeHost host = new FakeHost()
                .probe(NvidiaSmiCsv.COMMAND, new ProbeResult(2, "Field \"remapped_rows.pending\" is not a valid field to query.\n", ""))
                .probe(NvidiaSmiQuery.COMMAND, load("h200-1gpu/nvidia-smi-q.txt").probe());
        Plan plan = plan(host, Args.of("expected_count", 1));
        assertFalse(failed(plan), plan.reason());
        assertEquals("NVIDIA H200", row(plan, "gpu.model").get("measured"));
        assertVerdict(plan, "gpu.ecc_aggregate_uncorrected", Verdict.PASS);
    }
}
