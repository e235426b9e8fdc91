package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageModuleTest {
    private static final String MANIFEST = ManifestTest.LINE + "\n";
    /** What manifest.sh prints for that file: no hash. */
    private static final String LISTING = ManifestTest.LINE.replaceFirst("^[0-9a-f]{64}", "-") + "\n";
    private final StageModule module = new StageModule();

    private Plan plan(String survey, Map<String, Object> extra) throws ModuleException, dev.provision.modules.spi.ParamException {
        FakeHost host = new FakeHost()
                .probe(StageModule.manifestArgv("/shared/set"), new ProbeResult(0, LISTING, ""))
                .probe(StageModule.surveyArgv("/nvme/set"), new ProbeResult(0, survey, ""));
        Map<String, Object> raw = new HashMap<>(Map.of("src", "/shared/set", "dest", "/nvme/set/"));
        raw.putAll(extra);
        Params params = module.params().validate(raw);
        return module.plan(params, new FakeContext(host, Path.of("/nonexistent")));
    }

    @Test
    void aFreshNodePlansItsRecordDirectoryAndTheManifestAndListsWhatItWillFetch() throws Exception {
        Plan plan = plan("space\t1000000\t1000\t2000\n", Map.of());

        assertEquals(1, plan.changes().size());
        assertTrue(plan.changes().get(0).summary().startsWith("stage 1 files (3 B) into /nvme/set"), plan.changes().get(0).summary());
        List<Command> commands = plan.changes().get(0).commands();
        assertEquals("/nvme/set/.provision-stage", assertInstanceOf(Command.MakeDirectory.class, commands.get(0)).path());
        Command.PutFile manifest = assertInstanceOf(Command.PutFile.class, commands.get(1));
        assertEquals("/nvme/set/.provision-stage/manifest", manifest.path());
        assertEquals(LISTING, new String(manifest.content(), StandardCharsets.UTF_8), "the listing: the reader hashes");
        assertTrue(!plan.result().containsKey("root_hash"), "not known before the source is read");
        assertEquals(List.of("dir/a b.bin"), plan.result().get("missing"));
        assertEquals(3L, plan.result().get("missing_bytes"));
        assertEquals("dir/a b.bin\n", plan.changes().get(0).diffs().get(0).after());
    }

    @Test
    void aNodeThatVerifiedTheSetIsConvergedWithTheRootHash() throws Exception {
        Plan plan = plan("space\t1\t1\t1\nfile\t3\t644\t1700000000.0\tdir/a b.bin\nverified\t" + ManifestTest.LINE + "\n", Map.of());

        assertTrue(plan.isEmpty());
        assertEquals("1 files (3 B) verified in /nvme/set, root sha256 f20c3f6465dee9e75a5894d1e9b29a02778ddc6b3a8b658d1cf51e0d3d6fff75",
                plan.reason());
    }

    /** The survey of a node that verified the set and holds {@code old/x.bin}, which the source no longer has. */
    private static final String STAGED_WITH_STALE = "space\t1\t1\t1\nfile\t3\t644\t1700000000.0\tdir/a b.bin\n"
            + "file\t5\t644\t1600000000.0\told/x.bin\nverified\t" + ManifestTest.LINE + "\n";

    @Test
    void filesTheSourceNoLongerHasAreKeptAndCountedUnlessDeleteIsAsked() throws Exception {
        Plan kept = plan(STAGED_WITH_STALE, Map.of());
        assertTrue(kept.isEmpty());
        assertTrue(kept.reason().endsWith("; 1 files under /nvme/set are not in the source (delete: true removes them)"), kept.reason());
        assertEquals(1L, kept.result().get("stale_files"));

        Plan deleted = plan(STAGED_WITH_STALE, Map.of("delete", true));
        assertEquals(1, deleted.changes().size(), "the set is verified: only the removal");
        assertEquals("remove 1 files from /nvme/set that the source does not have", deleted.changes().get(0).summary());
        assertEquals("old/x.bin\n", deleted.changes().get(0).diffs().get(0).before());
        List<Command> commands = deleted.changes().get(0).commands();
        Command.Exec files = assertInstanceOf(Command.Exec.class, commands.get(0));
        assertEquals("/nvme/set", files.argv().getLast(), "dest a positional parameter");
        assertEquals("old/x.bin\0", new String(files.stdin(), StandardCharsets.UTF_8), "the paths on stdin, never argv");
        assertEquals("old\0", new String(assertInstanceOf(Command.Exec.class, commands.get(1)).stdin(), StandardCharsets.UTF_8));
    }

    @Test
    void aFreshNodeRemovesWhatTheSourceDoesNotHaveBeforeItFetches() throws Exception {
        Plan plan = plan("space\t1000000\t1000\t2000\nfile\t5\t644\t1600000000.0\tstale.bin\n", Map.of("delete", true));
        assertEquals(2, plan.changes().size());
        assertEquals("remove 1 files from /nvme/set that the source does not have", plan.changes().get(0).summary());
        assertEquals(1, plan.changes().get(0).commands().size(), "no directory to empty");
        assertTrue(plan.changes().get(1).summary().startsWith("stage 1 files (3 B) into /nvme/set"), plan.changes().get(1).summary());
    }

    @Test
    void aNodeWithoutRoomIsRefusedWithTheFigures() {
        ModuleException e = assertThrows(ModuleException.class, () -> plan("space\t2\t1000\t2000\n", Map.of()));
        assertEquals("not enough room in /nvme/set: 3 B to fetch + 5% of the set's 3 B margin = 3 B, 2 B free; nothing was transferred",
                e.getMessage());
        ModuleException inodes = assertThrows(ModuleException.class, () -> plan("space\t1000000\t10\t2000\n", Map.of()));
        assertTrue(inodes.getMessage().startsWith("not enough inodes in /nvme/set: 1 files to fetch + margin = 17, 10 free"),
                inodes.getMessage());
    }

    @Test
    void aFilesystemWithoutAnInodeLimitIsNotRefusedForInodes() throws Exception {
        assertEquals(1, plan("space\t1000000\t0\t0\n", Map.of()).changes().size());
    }

    @Test
    void pathsAndNamesThatCouldReachAShellOrSshAsOptionsAreRefused() {
        for (Map<String, Object> bad : List.of(Map.<String, Object>of("dest", "/nvme/set;rm -rf /"), Map.<String, Object>of("dest", "relative"),
                Map.<String, Object>of("dest", "/nvme/../etc"), Map.<String, Object>of("address", "-oProxyCommand=x"),
                Map.<String, Object>of("ssh_key", "/k -o X"), Map.<String, Object>of("src", "/a b"))) {
            assertThrows(ModuleException.class, () -> plan("space\t1000000\t0\t0\n", bad), bad.toString());
        }
    }

    @Test
    void aControllerSourceIsListedOnTheControllerAndTheNodeOnlySurveyed(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("a"), "abc");
        FakeHost host = new FakeHost().probe(StageModule.surveyArgv("/nvme/set"), new ProbeResult(0, "space\t1000000\t0\t0\n", ""));
        Params params = module.params().validate(Map.of("src", dir.toString(), "dest", "/nvme/set", "src_on", "controller"));

        Plan plan = module.plan(params, new FakeContext(host, Path.of("/nonexistent")));

        assertEquals(List.of("a"), plan.result().get("missing"));
        assertTrue(plan.changes().get(0).summary().startsWith("stage 1 files (3 B) into /nvme/set"), plan.changes().get(0).summary());
        Map<?, ?> transfer = (Map<?, ?>) plan.result().get(FanOut.RESULT_KEY);
        assertEquals("controller", transfer.get("src_on"));
        assertEquals(List.of("a"), transfer.get("lacks"));
    }

    @Test
    void aControllerSourceThatIsNotADirectoryIsRefusedInOneLine() {
        ModuleException e = assertThrows(ModuleException.class, () -> plan("space\t1\t1\t1\n",
                Map.of("src_on", "controller", "src", "/nonexistent/set")));
        assertEquals("/nonexistent/set is not a directory on the controller", e.getMessage());
    }

    @Test
    void aNodeSourceNeedsItsNodeAndReadsTheManifestThereThroughTheClusterIdentity() throws Exception {
        ModuleException none = assertThrows(ModuleException.class, () -> plan("space\t1\t1\t1\n", Map.of("src_on", "node")));
        assertTrue(none.getMessage().startsWith("src_host:"), none.getMessage());
        ModuleException bad = assertThrows(ModuleException.class, () -> plan("space\t1\t1\t1\n",
                Map.of("src_on", "node", "src_host", "-oProxyCommand=x")));
        assertTrue(bad.getMessage().startsWith("src_host:"), bad.getMessage());

        List<String> manifest = StageModule.manifestArgv("/shared/set");
        FakeHost host = new FakeHost()
                .probe(StageModule.hopArgv("/root/.ssh/id_ed25519", "/etc/ssh/ssh_known_hosts", 10, "root@10.0.0.5", manifest),
                        new ProbeResult(0, LISTING, ""))
                .probe(StageModule.surveyArgv("/nvme/set"), new ProbeResult(0, "space\t1000000\t0\t0\n", ""));
        Params params = module.params().validate(Map.of("src", "/shared/set", "dest", "/nvme/set", "src_on", "node",
                "src_host", "node05", "src_address", "10.0.0.5"));
        Plan plan = module.plan(params, new FakeContext(host, Path.of("/nonexistent")));
        assertEquals(List.of("dir/a b.bin"), plan.result().get("missing"));
        assertEquals("node05", ((Map<?, ?>) plan.result().get(FanOut.RESULT_KEY)).get("src_host"));
    }
}
