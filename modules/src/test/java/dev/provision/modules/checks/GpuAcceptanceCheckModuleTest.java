package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu_acceptance} on what the benchmark printed on a real H200, idle and while another process kept it busy. */
class GpuAcceptanceCheckModuleTest {
    private final GpuAcceptanceCheckModule module = new GpuAcceptanceCheckModule();
    @TempDir
    Path controller;

    private Plan plan(String output, int seconds, Map<String, Object> args) throws Exception {
        FakeHost host = new FakeHost()
                .probe(NcclBandwidthCheckModule.COUNT_COMMAND, new ProbeResult(0, "NVIDIA H200\n", ""))
                .probe(List.of("python3", "-c", GpuAcceptanceCheckModule.BENCHMARK, String.valueOf(seconds)), new ProbeResult(0, output, ""));
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    @Test
    void anIdleH200PassesEveryReference() throws Exception {
        Plan plan = plan(load("h200-1gpu/gpu-acceptance.txt").output(), 3, Args.of());
        assertFalse(failed(plan), plan.result().toString());
        assertEquals("648.0 TFLOPS", row(plan, "gpu_acceptance.gpu0.gemm").get("measured"));
        assertEquals(">= 556.5 TFLOPS (0.7 x 795)", row(plan, "gpu_acceptance.gpu0.gemm").get("expected"));
        assertVerdict(plan, "gpu_acceptance.gpu0.gemm", Verdict.PASS);
        assertVerdict(plan, "gpu_acceptance.gpu0.hbm", Verdict.PASS);
        assertVerdict(plan, "gpu_acceptance.gpu0.host_to_device", Verdict.PASS);
        assertVerdict(plan, "gpu_acceptance.gpu0.answers", Verdict.PASS);
        assertEquals(648.0, plan.result().get("gemm_tflops"));
        assertEquals("GPU 0", plan.result().get("gemm_tflops_gpu"));
        assertEquals(795.0, plan.result().get("expected_gemm_tflops"), "the readiness page draws it");
    }

    @Test
    void aBusyGpuFailsComputeAndMemoryWithWhatToDo() throws Exception {
        Plan plan = plan(load("h200-1gpu/gpu-acceptance-busy.txt").output(), 3, Args.of());
        assertTrue(failed(plan));
        assertVerdict(plan, "gpu_acceptance.gpu0.gemm", Verdict.FAIL);
        assertVerdict(plan, "gpu_acceptance.gpu0.hbm", Verdict.FAIL);
        assertVerdict(plan, "gpu_acceptance.gpu0.host_to_device", Verdict.PASS);
        assertTrue(((String) row(plan, "gpu_acceptance.gpu0.gemm").get("detail")).startsWith("34% of H200's reference: the GPU is busy"),
                row(plan, "gpu_acceptance.gpu0.gemm").toString());
    }

    @Test
    void aWrongAnswerIsCriticalWhateverTheSpeed() throws Exception {
        String wrong = load("h200-1gpu/gpu-acceptance.txt").output().replace("checksum=180646.000000 cpu", "checksum=180647.000000 cpu");
        Plan plan = plan(wrong, 3, Args.of());
        assertVerdict(plan, "gpu_acceptance.gpu0.answers", Verdict.FAIL);
        assertTrue(((String) row(plan, "gpu_acceptance.gpu0.answers").get("detail")).startsWith("CRITICAL"));
        assertVerdict(plan, "gpu_acceptance.gpu0.gemm", Verdict.PASS);
    }

    @Test
    void theBudgetShortensTheTierAndNoFiguresIsUnknownNotPass() throws Exception {
        Plan plan = plan("Traceback ...\nRuntimeError: CUDA driver version is insufficient\n", 1, Args.of("tier", "full", "budget", 4));
        assertVerdict(plan, "gpu_acceptance.run", Verdict.UNKNOWN);
        assertFalse(failed(plan));
        assertTrue(((String) row(plan, "gpu_acceptance.run").get("detail")).startsWith("could not judge: the benchmark gave no figures"));
        assertEquals(1L, plan.result().get("seconds_per_measurement"));
    }

    @Test
    void aNodeWhoseSlowestGpuIsFarBelowTheFleetIsNamedEvenAboveTheReference() {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        double[] gemm = {651, 648, 655, 649, 652, 580, 650, 653};
        for (int k = 0; k < gemm.length; k++) {
            results.put("n" + (k + 1), Map.of("gemm_tflops", gemm[k], "gemm_tflops_gpu", "GPU 3", "hbm_gbps", 3980.0,
                    "h2d_gbps", 54.9, "d2h_gbps", 54.9));
        }
        Map<String, List<CheckResult>> rows = module.compare(results);
        CheckResult n6 = rows.get("n6").stream().filter(r -> r.check().equals("gpu_acceptance.gemm_vs_fleet")).findFirst().orElseThrow();
        assertEquals(Verdict.FAIL, n6.verdict(), n6.toString());
        assertEquals("GPU 3: 580 TFLOPS", n6.measured());
        assertTrue(n6.detail().startsWith("far below the fleet: n6 (1 of 8 hosts)"), n6.detail());
        for (String healthy : List.of("n1", "n2", "n3", "n4", "n5", "n7", "n8")) {
            assertTrue(rows.get(healthy).stream().allMatch(r -> r.verdict() == Verdict.PASS), healthy + ": " + rows.get(healthy));
        }
    }

    @Test
    void aTierOtherThanQuickStandardOrFullIsRefusedBeforePlanning() {
        org.junit.jupiter.api.Assertions.assertThrows(dev.provision.modules.spi.ParamException.class,
                () -> module.params().validate(Args.of("tier", "fast")));
        org.junit.jupiter.api.Assertions.assertThrows(dev.provision.modules.spi.ParamException.class,
                () -> module.params().validate(Args.of("quick", "yes")), "quick is a value, not a parameter");
    }

    /** The --json report of the real H200's idle acceptance run through provision (docs/preflight-h200/acceptance/). */
    private FakeContext withBaseline(String output, String reportHost) throws Exception {
        String report;
        try (var in = getClass().getResourceAsStream("/baseline/h200-acceptance-report.json")) {
            report = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        FakeHost host = new FakeHost()
                .probe(NcclBandwidthCheckModule.COUNT_COMMAND, new ProbeResult(0, "NVIDIA H200\n", ""))
                .probe(List.of("python3", "-c", GpuAcceptanceCheckModule.BENCHMARK, "3"), new ProbeResult(0, output, ""));
        // the report was made on "localhost"; the fake host is "fake"
        return new FakeContext(host, controller).controllerFile("acceptance.json",
                report.replace("\"host\" : \"localhost\"", "\"host\" : \"" + reportHost + "\""));
    }

    @Test
    void aGpuFarBelowItsOwnAcceptanceFiguresFailsAgainstTheBaseline() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("baseline", "acceptance.json")),
                withBaseline(load("h200-1gpu/gpu-acceptance-busy.txt").output(), "fake"));
        assertVerdict(plan, "gpu_acceptance.gpu0.gemm_vs_baseline", Verdict.FAIL);
        assertEquals("270.9 TFLOPS (was 660.3)", row(plan, "gpu_acceptance.gpu0.gemm_vs_baseline").get("measured"));
        assertEquals(">= 594.3 TFLOPS (0.9 x baseline)", row(plan, "gpu_acceptance.gpu0.gemm_vs_baseline").get("expected"));
        assertTrue(((String) row(plan, "gpu_acceptance.gpu0.gemm_vs_baseline").get("detail"))
                .startsWith("59% below its own figure in acceptance.json"), row(plan, "gpu_acceptance.gpu0.gemm_vs_baseline").toString());
        assertVerdict(plan, "gpu_acceptance.gpu0.hbm_vs_baseline", Verdict.FAIL);
        assertVerdict(plan, "gpu_acceptance.gpu0.host_to_device_vs_baseline", Verdict.PASS);
    }

    @Test
    void anIdleRerunMatchesItsBaselineAndANewNodeIsToldToKeepOne() throws Exception {
        Plan idle = module.plan(module.params().validate(Args.of("baseline", "acceptance.json")),
                withBaseline(load("h200-1gpu/gpu-acceptance.txt").output(), "fake"));
        assertFalse(failed(idle), idle.result().toString());
        assertVerdict(idle, "gpu_acceptance.gpu0.gemm_vs_baseline", Verdict.PASS); // 648.0 against 660.3: 98 %
        Plan stranger = module.plan(module.params().validate(Args.of("baseline", "acceptance.json")),
                withBaseline(load("h200-1gpu/gpu-acceptance.txt").output(), "node07"));
        assertVerdict(stranger, "gpu_acceptance.baseline", Verdict.WARN);
        assertTrue(stranger.checks().toString().contains("has no figures of this node"), stranger.checks().toString());
    }

    @Test
    void aBaselineThatIsNoAcceptanceReportIsOneClearError() throws Exception {
        FakeContext context = withBaseline(load("h200-1gpu/gpu-acceptance.txt").output(), "fake").controllerFile("other.json", "{\"plays\": []}");
        dev.provision.modules.spi.ModuleException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.provision.modules.spi.ModuleException.class,
                () -> module.plan(module.params().validate(Args.of("baseline", "other.json")), context));
        assertTrue(e.getMessage().contains("holds no gpu_acceptance figures"), e.getMessage());
    }
}
