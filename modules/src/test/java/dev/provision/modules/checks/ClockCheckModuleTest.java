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
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClockCheckModuleTest {
    /** The controller's clock: 1796218580.000 before the probe, 1796218580.100 after. */
    private final ClockCheckModule module = new ClockCheckModule(ticking(Instant.ofEpochSecond(1796218580L), 100));
    @TempDir
    Path controller;

    private static InstantSource ticking(Instant start, long stepMillis) {
        Instant[] now = {start.minusMillis(stepMillis)};
        return () -> now[0] = now[0].plusMillis(stepMillis);
    }

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost host(String date, ProbeResult chrony) {
        return new FakeHost().probe(List.of("date", "+%s.%N"), new ProbeResult(0, date + "\n", ""))
                .probe(List.of("chronyc", "tracking"), chrony);
    }

    @Test
    void syncedNodeCloseToTheControllerPasses() throws Exception {
        Plan plan = plan(host("1796218580.060000000", load("synthetic/chronyc-tracking.txt").probe()), Args.of());
        assertFalse(failed(plan), plan.reason());
        assertEquals(0.01, (double) plan.result().get("controller_offset_seconds"), 1e-6);
        assertEquals(1796218580.06, (double) plan.result().get("epoch"), 1e-6);
        assertEquals("+0.010 s (±0.050)", row(plan, "clock.controller_offset").get("measured"));
        assertVerdict(plan, "clock.chrony_sync", Verdict.PASS);
        assertVerdict(plan, "clock.chrony_offset", Verdict.PASS);
    }

    @Test
    void nodeFarBehindTheControllerFails() throws Exception {
        Plan plan = plan(host("1796218577.000000000", load("synthetic/chronyc-tracking.txt").probe()), Args.of("max_offset", 0.5));
        assertVerdict(plan, "clock.controller_offset", Verdict.FAIL);
        assertTrue(((String) row(plan, "clock.controller_offset").get("detail")).contains("behind the controller's"));
    }

    @Test
    void stoppedChronydFails() throws Exception {
        Plan plan = plan(host("1796218580.05", load("synthetic/chronyc-no-daemon.txt").probe()), Args.of());
        assertTrue(failed(plan));
        assertVerdict(plan, "clock.chronyd", Verdict.FAIL);
        assertDetail("chronyd not running: 506 Cannot talk to daemon", row(plan, "clock.chronyd").get("detail"));
    }

    @Test
    void unsynchronisedChronyFailsSyncAndOffset() throws Exception {
        Plan plan = plan(host("1796218580.05", load("synthetic/chronyc-unsynchronised.txt").probe()), Args.of());
        assertVerdict(plan, "clock.chrony_sync", Verdict.FAIL);
        assertVerdict(plan, "clock.chrony_offset", Verdict.FAIL);
    }

    @Test
    void missingChronyIsSkippedWhenNotRequired() throws Exception {
        Plan plan = plan(host("1796218580.05", new ProbeResult(127, "", "sh: chronyc: not found")), Args.of("require_chrony", false));
        assertVerdict(plan, "clock.chronyd", Verdict.SKIP);
        assertFalse(failed(plan));
    }
}
