package dev.provision.modules.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.stage.StagedSet;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The module's rows; the survey's format and the root hash are read from real script runs in
 * {@code StageScriptsTest}. Here the survey is the one a node with two verified files prints.
 */
class DatasetCheckModuleTest {
    private static final String A = "ae9a6306a205417afddd14316cc1d0d5e04a98f1be10865dce643925ee070ce2\t6\t644\t1796218580\tc.bin";
    private static final String B = "5f8c1b1e2c6c0b7e6b9f4f0b1a3a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29\t6\t644\t1796218580\tsub/a b.txt";

    private static String survey(String... files) {
        StringBuilder out = new StringBuilder("space\t1000000\t1000\t2000\n");
        for (String f : files) {
            out.append(f).append('\n');
        }
        return out.append("verified\t").append(A).append("\nverified\t").append(B).append('\n').toString();
    }

    private static Plan plan(String survey, Map<String, Object> extra) throws Exception {
        FakeHost host = new FakeHost().probe(StagedSet.command("/nvme/set"), new ProbeResult(0, survey, ""));
        Map<String, Object> args = new LinkedHashMap<>(Map.of("dest", "/nvme/set"));
        args.putAll(extra);
        DatasetCheckModule module = new DatasetCheckModule();
        return module.plan(module.params().validate(args), new FakeContext(host, java.nio.file.Path.of("/nonexistent")));
    }

    @Test
    void aSetAsVerifiedPassesAndOneWhoseFileChangedFailsNamingIt() throws Exception {
        Plan ok = plan(survey("file\t6\t644\t1796218580.25\tc.bin", "file\t6\t644\t1796218580.5\tsub/a b.txt"), Map.of());
        List<CheckResult> rows = ok.checks();
        assertEquals(Verdict.PASS, rows.get(0).verdict(), rows.toString());
        assertEquals(64, String.valueOf(ok.result().get("dataset_root")).length());

        Plan changed = plan(survey("file\t7\t644\t1796218590.0\tc.bin", "file\t6\t644\t1796218580.5\tsub/a b.txt"), Map.of());
        CheckResult row = changed.checks().get(0);
        assertEquals(Verdict.FAIL, row.verdict());
        assertTrue(row.detail().contains("c.bin") && row.detail().contains("stage again"), row.detail());

        Plan wrong = plan(survey("file\t6\t644\t1796218580.25\tc.bin", "file\t6\t644\t1796218580.5\tsub/a b.txt"),
                Map.of("expected_root_hash", "0".repeat(64)));
        assertEquals(Verdict.FAIL, wrong.checks().get(1).verdict());
    }

    @Test
    void filesTheSetDoesNotListAreAWarningThatSaysHowToRemoveThem() throws Exception {
        Plan stray = plan(survey("file\t6\t644\t1796218580.25\tc.bin", "file\t6\t644\t1796218580.5\tsub/a b.txt",
                "file\t9\t644\t1700000000.0\told/shard-9.tar"), Map.of());
        CheckResult row = stray.checks().getLast();
        assertEquals("dataset.no_stray_files", row.check());
        assertEquals(Verdict.WARN, row.verdict());
        assertTrue(row.detail().contains("old/shard-9.tar") && row.detail().contains("delete: true"), row.detail());
        assertEquals(Verdict.PASS, stray.checks().get(0).verdict(), "the set itself is as verified");
    }

    @Test
    void aNodeWithNothingStagedFailsSayingHowToStageIt() throws Exception {
        Plan none = plan("space\t1000000\t1000\t2000\n", Map.of());
        CheckResult row = none.checks().get(0);
        assertEquals(Verdict.FAIL, row.verdict());
        assertTrue(row.detail().contains("playbooks/stage.yml"), row.detail());
    }

    @Test
    void theFleetNamesTheNodeThatHoldsAnotherSet() {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        results.put("n1", Map.of("dataset_root", "aa"));
        results.put("n2", Map.of("dataset_root", "aa"));
        results.put("n3", Map.of("dataset_root", "bb"));
        Map<String, List<CheckResult>> rows = new DatasetCheckModule().compare(results);
        assertEquals(Verdict.PASS, rows.get("n1").get(0).verdict());
        assertEquals(Verdict.FAIL, rows.get("n3").get(0).verdict());
    }
}
