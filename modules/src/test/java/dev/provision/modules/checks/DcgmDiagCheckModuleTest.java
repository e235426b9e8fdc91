package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static dev.provision.modules.checks.ChecksFixtures.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dcgm_diag} on what {@code dcgmi diag -j} printed on real machines (fixtures/dcgm/, see its README), and without DCGM. */
class DcgmDiagCheckModuleTest {
    private final DcgmDiagCheckModule module = new DcgmDiagCheckModule();
    @TempDir
    Path controller;

    private Plan plan(ProbeResult answer, List<String> command, Map<String, Object> args) throws Exception {
        FakeHost host = new FakeHost().probe(command, answer);
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private Plan plan(ProbeResult answer, int level, Map<String, Object> args) throws Exception {
        long timeout = switch (level) {
            case 1 -> 300;
            case 2 -> 900;
            default -> 2700;
        };
        return plan(answer, DcgmDiagCheckModule.command("dcgmi", timeout, level), args);
    }

    /** DCGM 4's one test object from NVIDIA/DCGM#215 in the documented envelope (the fixture is a fragment). */
    private static String issue215Document() throws Exception {
        try (InputStream in = DcgmDiagCheckModuleTest.class.getResourceAsStream("/fixtures/dcgm/dcgm-4-issue215-diagnostic-test.txt")) {
            String test = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            test = test.substring(0, test.length() - 1); // the quote ends with the comma before the next test
            return "{\"DCGM Diagnostic\": {\"test_categories\": [{\"category\": \"Hardware\", \"tests\": [" + test + "]}]}}";
        }
    }

    @Test
    void aDcgm4RunPassingOnEightGpusPasses() throws Exception {
        Plan plan = plan(new ProbeResult(0, issue215Document(), ""), 3, Args.of("tier", "full"));
        assertFalse(failed(plan));
        assertVerdict(plan, "dcgm.diagnostic", Verdict.PASS);
        assertEquals("pass on 8 GPUs", row(plan, "dcgm.diagnostic").get("measured"));
        assertEquals("pass (level 3)", row(plan, "dcgm.diagnostic").get("expected"));
        assertEquals(3L, plan.result().get("dcgm_level"));
    }

    @Test
    void aFailedTestFailsWithDcgmsOwnTextAndWhatToDo() throws Exception {
        ChecksFixtures.Capture gb10 = load("dcgm/dcgm-4.2.3-gb10-r1.txt");
        Plan plan = plan(gb10.probe(), 1, Args.of("tier", "quick"));
        assertTrue(failed(plan), "dcgmi exited " + gb10.exitCode() + " with a Fail: the node is not ready");
        assertVerdict(plan, "dcgm.software", Verdict.FAIL);
        String detail = (String) row(plan, "dcgm.software").get("detail");
        assertTrue(detail.startsWith("DCGM software Fail on GPU 0 (Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence"
                + " mode by running \"nvidia-smi -i <gpuId> -pm 1 \" as root.): fix what DCGM names"), detail);
        assertEquals("fail on GPU 0", row(plan, "dcgm.software").get("measured"));
        assertEquals(1, rows(plan).size(), "one row per DCGM test: " + rows(plan).keySet());
    }

    @Test
    void testsDcgmSkippedAreNotJudgedNeverAPass() throws Exception {
        Plan plan = plan(load("dcgm/dcgm-3.3.1-t400-r3-skip.txt").probe(), 3, Args.of("level", 3));
        assertEquals(List.of("dcgm.pcie", "dcgm.gpu_memory", "dcgm.diagnostic", "dcgm.eud_test", "dcgm.targeted_stress"),
                List.copyOf(rows(plan).keySet()));
        rows(plan).forEach((check, r) -> {
            assertEquals("unknown", r.get("verdict"), check);
            assertEquals("skip on GPU 0", r.get("measured"), check);
            assertTrue(((String) r.get("detail")).startsWith("could not judge: DCGM did not run it on GPU 0: run dcgmi as root"), check);
        });
        assertFalse(failed(plan), "could not judge is not a failure");
        assertTrue(plan.reason().startsWith("dcgm_diag: 5 not judged; not judged: dcgm.pcie"), plan.reason());
    }

    /** The contract: a check whose tool is missing says UNKNOWN, never PASS and never FAIL. */
    @Test
    void dcgmiNotInstalledIsOneUnknownRowNeverAFailure() throws Exception {
        Plan plan = plan(new ProbeResult(127, "", "dcgmi: not found\n"), 2, Args.of());
        assertEquals(List.of("dcgm.diag"), List.copyOf(rows(plan).keySet()));
        assertVerdict(plan, "dcgm.diag", Verdict.UNKNOWN);
        assertTrue(((String) row(plan, "dcgm.diag").get("detail")).startsWith("could not run: dcgmi not installed"));
        assertFalse(failed(plan));
    }

    @Test
    void noHostEngineOrATimeoutIsUnknownSayingWhy() throws Exception {
        Plan down = plan(new ProbeResult(255, "Error: unable to establish a connection to the specified host: localhost\n", ""), 2, Args.of());
        assertVerdict(down, "dcgm.diag", Verdict.UNKNOWN);
        assertTrue(((String) row(down, "dcgm.diag").get("detail")).contains("host engine is not running"), row(down, "dcgm.diag").toString());
        assertTrue(((String) row(down, "dcgm.diag").get("detail")).contains("systemctl enable --now nvidia-dcgm"));

        Plan slow = plan(new ProbeResult(124, "", ""), DcgmDiagCheckModule.command("dcgmi", 60, 2), Args.of("timeout", "60"));
        assertVerdict(slow, "dcgm.diag", Verdict.UNKNOWN);
        assertTrue(((String) row(slow, "dcgm.diag").get("detail")).startsWith("could not judge: dcgmi diag -r 2 timed out after 60 s"));
        assertFalse(failed(slow));

        Plan garbage = plan(new ProbeResult(1, "Segmentation fault\n", ""), 2, Args.of());
        assertVerdict(garbage, "dcgm.diag", Verdict.UNKNOWN);
    }

    @Test
    void theLevelFollowsTheTierUnlessGivenAndBlankMeansDefault() throws Exception {
        ProbeResult missing = new ProbeResult(127, "", "dcgmi: not found\n");
        assertEquals(1L, plan(missing, 1, Args.of("tier", "quick")).result().get("dcgm_level"));
        assertEquals(2L, plan(missing, 2, Args.of("level", "", "timeout", "")).result().get("dcgm_level"));
        assertEquals(3L, plan(missing, 3, Args.of("tier", "acceptance")).result().get("dcgm_level"));
        assertEquals(3L, plan(missing, 3, Args.of("tier", "quick", "level", "3")).result().get("dcgm_level"));
        assertThrows(dev.provision.modules.spi.ModuleException.class, () -> plan(missing, 2, Args.of("level", 5)));
        assertThrows(dev.provision.modules.spi.ModuleException.class, () -> plan(missing, 2, Args.of("dcgmi", "-rf")));
    }

    @Test
    void statusWordsAsDcgmPrintsThemAndAnUnknownWordIsNoPass() {
        assertEquals(DcgmDiagOutput.Status.PASS, DcgmDiagOutput.Status.of("Pass"));
        assertEquals(DcgmDiagOutput.Status.PASS, DcgmDiagOutput.Status.of("PASS"));
        assertEquals(DcgmDiagOutput.Status.NOT_RUN, DcgmDiagOutput.Status.of("Not Run"));
        assertEquals(DcgmDiagOutput.Status.SKIP, DcgmDiagOutput.Status.of("Skip"));
        assertEquals(DcgmDiagOutput.Status.OTHER, DcgmDiagOutput.Status.of("Inconclusive"));
    }

    /** How a row is judged from DCGM's statuses (the mapping, not a parser: the statuses are DCGM's words). */
    @Test
    void warnWarnsNotRunIsUnknownAndAnExplainedSkipDoesNotApply() {
        DcgmDiagOutput.Result pass = new DcgmDiagOutput.Result("GPU 0", DcgmDiagOutput.Status.PASS, "Pass", List.of(), List.of());
        DcgmDiagOutput.Result warn = new DcgmDiagOutput.Result("GPU 1", DcgmDiagOutput.Status.WARN, "Warn", List.of("a warning"), List.of());
        CheckResult warned = DcgmDiagCheckModule.row(new DcgmDiagOutput.Test("Hardware", "memory", List.of(pass, warn), Optional.empty()), 2);
        assertEquals(Verdict.WARN, warned.verdict());
        assertTrue(warned.detail().startsWith("DCGM memory Warn on GPU 1 (a warning): watch it"), warned.detail());
        DcgmDiagOutput.Result notRun = new DcgmDiagOutput.Result("GPU 1", DcgmDiagOutput.Status.NOT_RUN, "Not Run", List.of(), List.of());
        assertEquals(Verdict.UNKNOWN,
                DcgmDiagCheckModule.row(new DcgmDiagOutput.Test("Stress", "pulse_test", List.of(pass, notRun), Optional.empty()), 3).verdict());
        DcgmDiagOutput.Result unsupported = new DcgmDiagOutput.Result("GPU 0", DcgmDiagOutput.Status.SKIP, "Skip",
                List.of("the test is not supported on this GPU"), List.of());
        assertEquals(Verdict.SKIP,
                DcgmDiagCheckModule.row(new DcgmDiagOutput.Test("Integration", "nvlink", List.of(unsupported), Optional.empty()), 2).verdict());
    }

    @Test
    void textBeforeTheDocumentIsSkippedAndNoDocumentIsRefused() throws Exception {
        DcgmDiagOutput diag = DcgmDiagOutput.parse("Successfully ran diagnostic for group.\n" + load("dcgm/dcgm-4.2.3-gb10-r1.txt").output());
        assertEquals("4.2.3", diag.version());
        assertEquals(List.of(29), diag.tests().get(0).results().get(0).errorIds());
        assertThrows(IllegalArgumentException.class, () -> DcgmDiagOutput.parse("Error: unable to connect"));
        assertThrows(IllegalArgumentException.class, () -> DcgmDiagOutput.parse("{\"other\": {}}"));
    }
}
