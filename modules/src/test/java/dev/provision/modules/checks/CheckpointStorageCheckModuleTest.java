package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.output;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
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

class CheckpointStorageCheckModuleTest {
    /** The captures' reports were written at this epoch; the tests read them 10 s later. */
    private static final long WRITTEN = 1796248159L;
    private static final String RESULT = "/ckpt/.provision-writetest-fake.result";
    private final CheckpointStorageCheckModule module = new CheckpointStorageCheckModule(InstantSource.fixed(Instant.ofEpochSecond(WRITTEN + 10)));
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost df(String fixture) {
        return new FakeHost().probe(DfOutput.command("/ckpt"), load(fixture).probe());
    }

    /** A report as the write task leaves it, its host renamed to the fake host's. */
    private static FakeHost report(String fixture) {
        return new FakeHost().file(RESULT, output(fixture).replace("node1", "fake"));
    }

    @Test
    void roomForTheCheckpointPassesAndNothingIsWrittenWithoutWriteTest() throws Exception {
        Plan plan = plan(df("synthetic/df-large-nfs.txt"), Args.of("path", "/ckpt", "expected_size", "2T"));
        assertFalse(failed(plan), plan.reason());
        assertTrue(plan.isEmpty());
        Map<String, Object> free = row(plan, "checkpoint.free");
        assertEquals("20 TiB free (80% used, /mnt/check points)", free.get("measured"));
        assertEquals(">= 2 TiB", free.get("expected"));
    }

    @Test
    void nearlyFullSmallTmpfsFailsWithAndWithoutAnExpectedSize() throws Exception {
        Plan sized = plan(df("synthetic/df-nearly-full.txt"), Args.of("path", "/ckpt", "expected_size", "1.5T"));
        assertVerdict(sized, "checkpoint.free", Verdict.FAIL);
        assertDetail("no room for a 1.5 TiB checkpoint on /ckpt", row(sized, "checkpoint.free").get("detail"));
        Plan unsized = plan(df("synthetic/df-nearly-full.txt"), Args.of("path", "/ckpt", "label", "scratch"));
        assertVerdict(unsized, "scratch.free", Verdict.FAIL);
        assertEquals("< 95% used", row(unsized, "scratch.free").get("expected"));
    }

    @Test
    void writeTestIsOneExplicitCheckWriteWithTheValuesAsPositionalParameters() throws Exception {
        Plan plan = plan(df("synthetic/df-large-nfs.txt"), Args.of("path", "/ckpt", "write_test", true, "test_size", "2G", "max_seconds", 30));
        assertEquals(1, plan.changes().size());
        assertTrue(plan.changes().get(0).summary().startsWith("check write: 2 GiB dd oflag=direct test of /ckpt"), plan.changes().get(0).summary());
        Command.Exec exec = assertInstanceOf(Command.Exec.class, plan.changes().get(0).commands().get(0));
        assertEquals(List.of("sh", "-c", CheckpointStorageCheckModule.SCRIPT, "sh", "/ckpt/.provision-writetest-fake", RESULT, "2048", "30",
                "fake", String.valueOf(WRITTEN + 10)), exec.argv());
    }

    @Test
    void noWriteTestWhereItWouldFillTheDiskAndItsSpeedIsNotJudged() throws Exception {
        Plan plan = plan(df("synthetic/df-nearly-full.txt"), Args.of("path", "/ckpt", "write_test", true));
        assertTrue(plan.isEmpty());
        assertVerdict(plan, "checkpoint.write_test", Verdict.UNKNOWN);
        assertVerdict(plan, "checkpoint.free", Verdict.FAIL);
    }

    @Test
    void realReportPassesTheMinimumAndGivesTheFigureForTheFleet() throws Exception {
        Plan plan = plan(report("dev/writetest-direct.txt"), Args.of("path", "/ckpt", "read_result", true, "min_write_mbps", 500));
        assertFalse(failed(plan), plan.reason());
        assertEquals("558 MB/s (256 MiB in 0.5 s, direct)", row(plan, "checkpoint.write_throughput").get("measured"));
        assertEquals(557.5, (Double) plan.result().get("write_mbps"), 0.1);
    }

    @Test
    void slowDiskFails() throws Exception {
        Plan plan = plan(report("synthetic/writetest-slow.txt"), Args.of("path", "/ckpt", "read_result", true, "min_write_mbps", 1000));
        Map<String, Object> r = row(plan, "checkpoint.write_throughput");
        assertEquals("fail", r.get("verdict"));
        assertEquals("50 MB/s (1 GiB in 21.5 s, direct)", r.get("measured"));
        assertEquals(">= 1000 MB/s", r.get("expected"));
        assertDetail("slow checkpoint storage: 5% of the minimum write rate", r.get("detail"));
    }

    @Test
    void timeLimitedAndBusyboxReportsAreRead() throws Exception {
        assertEquals("736 MB/s (702 MiB in 1.0 s, direct, stopped at the time limit)",
                row(plan(report("dev/writetest-time-limit.txt"), Args.of("path", "/ckpt", "read_result", true)), "checkpoint.write_throughput").get("measured"));
        assertEquals("859 MB/s (1 GiB in 1.3 s, buffered)",
                row(plan(report("synthetic/writetest-busybox.txt"), Args.of("path", "/ckpt", "read_result", true)), "checkpoint.write_throughput").get("measured"));
    }

    @Test
    void aFailedWriteFailsAMissingOrStaleReportIsNotJudged() throws Exception {
        Plan full = plan(report("synthetic/writetest-no-space.txt"), Args.of("path", "/ckpt", "read_result", true));
        assertDetail("dd exit 1: dd: error writing '/ckpt/.provision-writetest-fake': No space left on device",
                row(full, "checkpoint.write_throughput").get("detail"));
        assertVerdict(full, "checkpoint.write_throughput", Verdict.FAIL);
        Plan missing = plan(new FakeHost(), Args.of("path", "/ckpt", "read_result", true));
        assertEquals("no result", row(missing, "checkpoint.write_throughput").get("measured"));
        assertVerdict(missing, "checkpoint.write_throughput", Verdict.UNKNOWN);
        Plan stale = plan(report("dev/writetest-direct.txt"), Args.of("path", "/ckpt", "read_result", true, "max_result_age", 5));
        assertVerdict(stale, "checkpoint.write_throughput", Verdict.UNKNOWN);
    }

    @Test
    void fleetStepNamesTheSlowNode() {
        Map<String, Map<String, Object>> results = Map.of(
                "n1", Map.of("write_mbps", 900.0, "label", "checkpoint", "min_fraction", 0.5),
                "n2", Map.of("write_mbps", 950.0, "label", "checkpoint", "min_fraction", 0.5),
                "n3", Map.of("write_mbps", 120.0, "label", "checkpoint", "min_fraction", 0.5));
        Map<String, List<CheckResult>> rows = module.compare(results);
        assertEquals("fail", rows.get("n3").get(0).toMap().get("verdict"));
        assertEquals("checkpoint.write_vs_fleet", rows.get("n3").get(0).toMap().get("check"));
        assertEquals("pass", rows.get("n1").get(0).toMap().get("verdict"));
    }

    @Test
    void aWriteOverInABlinkIsNeverCalledSlowButTheTimedSlowOneIs() {
        Map<String, Map<String, Object>> results = Map.of(
                "n1", Map.of("write_mbps", 2100.0, "write_seconds", 0.002),
                "n2", Map.of("write_mbps", 1900.0, "write_seconds", 0.002),
                "n3", Map.of("write_mbps", 60.0, "write_seconds", 0.07),
                "n4", Map.of("write_mbps", 0.5, "write_seconds", 8.0));
        Map<String, List<CheckResult>> rows = module.compare(results);
        assertEquals("unknown", rows.get("n3").get(0).toMap().get("verdict"), "4 MiB in 0.07 s is noise: not a slow disk, not a pass");
        assertTrue(String.valueOf(rows.get("n3").get(0).toMap().get("detail")).contains("too short to call slow"));
        assertEquals("fail", rows.get("n4").get(0).toMap().get("verdict"));
        assertTrue(String.valueOf(rows.get("n4").get(0).toMap().get("detail")).contains("n4 (1 of 4 hosts)"),
                String.valueOf(rows.get("n4").get(0).toMap().get("detail")));
    }

    @Test
    void parsesSizesAndRefusesNonsense() throws Exception {
        assertEquals(1536L * 1024 * 1024 * 1024, ByteSize.parse("1.5T"));
        assertEquals(500L * 1024 * 1024 * 1024, ByteSize.parse("500GB"));
        assertEquals(1024L * 1024 * 1024, ByteSize.parse("1GiB"));
        assertThrows(ModuleException.class, () -> plan(df("synthetic/df-large-nfs.txt"), Args.of("path", "/ckpt", "expected_size", "big")));
        assertThrows(ModuleException.class, () -> plan(df("synthetic/df-large-nfs.txt"), Args.of("path", "ckpt")));
        assertEquals(81728604L * 1024, DfOutput.parse(output("dev/df-tmp.txt")).orElseThrow().availableBytes());
    }
}
