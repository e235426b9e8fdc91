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

class NcclBandwidthCheckModuleTest {
    private static final List<String> ALL_REDUCE_PERF = List.of("/opt/nccl-tests/all_reduce_perf", "-b", "8M", "-e", "1G", "-f", "2", "-g", "8");
    private final NcclBandwidthCheckModule module = new NcclBandwidthCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost gpus(String name, int count) {
        return new FakeHost().probe(NcclBandwidthCheckModule.COUNT_COMMAND, new ProbeResult(0, (name + "\n").repeat(count), ""));
    }

    private static FakeHost withAllReducePerf(String name, String fixture) {
        return gpus(name, 8)
                .probe(List.of("sh", "-c", "command -v all_reduce_perf"), new ProbeResult(0, "/opt/nccl-tests/all_reduce_perf\n", ""))
                .probe(ALL_REDUCE_PERF, load(fixture).probe());
    }

    @Test
    void oneGpuIsSkippedWithoutRunningAnything() throws Exception {
        FakeHost host = new FakeHost().probe(NcclBandwidthCheckModule.COUNT_COMMAND, load("h200-1gpu/nvidia-smi-names.txt").probe());
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "nccl.busbw", Verdict.SKIP);
        assertEquals("busbw is 0 by definition with one GPU", row(plan, "nccl.busbw").get("detail"));
        assertEquals(1, host.probesRun().size());
        assertFalse(failed(plan));
    }

    @Test
    void nvidiaH200AtTableFigurePasses() throws Exception {
        Plan plan = plan(withAllReducePerf("NVIDIA H200", "synthetic/nccl-tests-new-header.txt"), Args.of());
        assertVerdict(plan, "nccl.busbw", Verdict.PASS);
        assertEquals(487.99, plan.result().get("busbw_gbps"));
        assertEquals(395.85, plan.result().get("avg_busbw_gbps"));
        assertEquals("all_reduce_perf", plan.result().get("tool"));
        assertEquals(">= 384 GB/s (0.8 x 480)", row(plan, "nccl.busbw").get("expected"));
    }

    @Test
    void belowTheFractionOfTheExpectedFigureFails() throws Exception {
        Plan plan = plan(withAllReducePerf("NVIDIA H100 80GB HBM3", "synthetic/nccl-tests-old-header.txt"),
                Args.of("expected_busbw", 600, "min_fraction", "0.9"));
        assertTrue(failed(plan));
        assertEquals("455.9 GB/s", row(plan, "nccl.busbw").get("measured"));
        assertDetail("below 90% of 600 GB/s", row(plan, "nccl.busbw").get("detail"));
    }

    @Test
    void tableEntriesOverrideAndUnknownModelsWarn() throws Exception {
        Plan overridden = plan(withAllReducePerf("NVIDIA H100 80GB HBM3", "synthetic/nccl-tests-old-header.txt"),
                Args.of("busbw_table", Map.of("H100", 700)));
        assertVerdict(overridden, "nccl.busbw", Verdict.FAIL);
        Plan unknown = plan(withAllReducePerf("NVIDIA L40S", "synthetic/nccl-tests-old-header.txt"), Args.of());
        assertVerdict(unknown, "nccl.busbw", Verdict.WARN);
    }

    @Test
    void withoutNcclTestsTheShippedPytorchBenchmarkRuns() throws Exception {
        FakeHost host = gpus("NVIDIA H200", 8)
                .probe(List.of("sh", "-c", "command -v all_reduce_perf"), new ProbeResult(1, "", ""))
                .probe(List.of("python3", "-c", NcclBandwidthCheckModule.BENCHMARK, "8"), new ProbeResult(0,
                        "# all_reduce bus bandwidth, world=8\nsize=1073741824 time_us=4000.0 algbw_GBps=268.44 busbw_GBps=469.76\nbusbw_gbps=469.76\n", ""));
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "nccl.busbw", Verdict.PASS);
        assertEquals("pytorch", plan.result().get("tool"));
        assertEquals(469.76, plan.result().get("busbw_gbps"));
        assertTrue(NcclBandwidthCheckModule.BENCHMARK.contains("start_method=\"fork\""), "the script is the shipped resource");
    }

    @Test
    void crashedBenchmarkFailsWithItsLastLine() throws Exception {
        FakeHost host = gpus("NVIDIA H200", 2)
                .probe(List.of("sh", "-c", "command -v all_reduce_perf"), new ProbeResult(1, "", ""))
                .probe(List.of("python3", "-c", NcclBandwidthCheckModule.BENCHMARK, "2"),
                        new ProbeResult(1, "# all_reduce bus bandwidth, world=2\n", "Traceback...\ntorch.distributed.DistBackendError: NCCL error\n"));
        Plan plan = plan(host, Args.of());
        assertTrue(failed(plan));
        assertTrue(((String) row(plan, "nccl.busbw").get("detail")).contains("DistBackendError: NCCL error: "),
                (String) row(plan, "nccl.busbw").get("detail"));
    }

    private Plan twoGpuH200(double busbw, Map<String, Object> args) throws Exception {
        FakeHost host = gpus("NVIDIA H200", 2)
                .probe(List.of("sh", "-c", "command -v all_reduce_perf"), new ProbeResult(1, "", ""))
                .probe(List.of("python3", "-c", NcclBandwidthCheckModule.BENCHMARK, "2"), new ProbeResult(0,
                        "# all_reduce bus bandwidth, world=2\nbusbw_gbps=" + busbw + "\n", ""));
        return plan(host, args);
    }

    /** This week's 2 x H200 (NV18, NCCL 2.28.9, NVLS off): nccl-tests 324.1 GB/s, provision 322.4 at 1 GiB; once judged against the 8-GPU 480. */
    @Test
    void aHealthyTwoGpuH200At324GbpsPassesAgainstTheTwoGpuFigure() throws Exception {
        Plan plan = twoGpuH200(324.1, Args.of());
        assertVerdict(plan, "nccl.busbw", Verdict.PASS);
        assertEquals(">= 296 GB/s (0.8 x 370)", row(plan, "nccl.busbw").get("expected"));
        assertEquals(370.0, plan.result().get("expected_busbw_gbps"));
        assertEquals("H200, NVLink 4, 2-4 GPUs (NVLS or not)", plan.result().get("expected_basis"));
    }

    @Test
    void aTwoGpuH200AtSixtyPercentFailsAndBetweenEightyAndEightyFiveWarns() throws Exception {
        Plan slow = twoGpuH200(0.6 * 370, Args.of());
        assertVerdict(slow, "nccl.busbw", Verdict.FAIL);
        assertDetail("below 80% of 370 GB/s (H200, NVLink 4, 2-4 GPUs (NVLS or not))", row(slow, "nccl.busbw").get("detail"));
        assertVerdict(twoGpuH200(0.82 * 370, Args.of()), "nccl.busbw", Verdict.WARN);
        assertVerdict(twoGpuH200(0.82 * 370, Args.of("warn_fraction", 0.8)), "nccl.busbw", Verdict.PASS);
    }

    @Test
    void eightH200sWithNvlsOffAreJudgedAgainstTheFigureWithoutNvls() throws Exception {
        FakeHost host = gpus("NVIDIA H200", 8)
                .probe(List.of("sh", "-c", "command -v all_reduce_perf"), new ProbeResult(1, "", ""))
                .probe(List.of("python3", "-c", NcclBandwidthCheckModule.BENCHMARK, "8"), new ProbeResult(0, "busbw_gbps=360.0\n", ""));
        Plan plan = module.plan(module.params().validate(Args.of()), new FakeContext(host, controller).variable("NCCL_NVLS_ENABLE", "0"));
        assertVerdict(plan, "nccl.busbw", Verdict.PASS);
        assertEquals(370.0, plan.result().get("expected_busbw_gbps"));
    }
}
