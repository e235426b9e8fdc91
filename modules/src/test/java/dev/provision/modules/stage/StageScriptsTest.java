package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node-side scripts themselves, run here with this machine's sh, find, sha256sum and rsync on real directories. */
class StageScriptsTest {
    @TempDir
    Path dir;
    private Path src;
    private Path dest;

    record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run sh(List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @BeforeEach
    void dataSet() throws IOException {
        src = dir.resolve("src");
        dest = dir.resolve("dest");
        Files.createDirectories(src.resolve("sub"));
        Files.writeString(src.resolve("sub/a b.txt"), "alpha\n");
        Files.writeString(src.resolve("c.bin"), "gamma\n");
    }

    private Manifest manifest(String record) throws Exception {
        Run r = sh(StageModule.manifestArgv(src.toString(), 2, record));
        assertEquals(0, r.exitCode(), r.stderr());
        return Manifest.parse(r.stdout());
    }

    private Run pull() throws Exception {
        Files.createDirectories(dest.resolve(".provision-stage"));
        Files.writeString(dest.resolve(".provision-stage/manifest"), manifest("").text());
        List<String> argv = new ArrayList<>(List.of("sh", "-c", StageModule.pullScript(), "sh", dest.toString(), "source", src.toString(),
                "/nonexistent-key", "/nonexistent-known-hosts", "2", "5"));
        return sh(argv);
    }

    @Test
    void theManifestHashesEveryFileInPathOrder() throws Exception {
        Manifest m = manifest("");

        assertEquals(List.of("c.bin", "sub/a b.txt"), m.entries().stream().map(Manifest.Entry::path).toList());
        assertEquals("ae9a6306a205417afddd14316cc1d0d5e04a98f1be10865dce643925ee070ce2", m.entries().get(0).sha256(), "sha256sum of gamma");
        assertEquals(6, m.entries().get(0).size());
    }

    @Test
    void aFileUnchangedSinceTheRecordKeepsItsRecordedHashAndAChangedOneIsHashedAgain() throws Exception {
        Manifest fresh = manifest("");
        Path record = dir.resolve("record");
        Files.writeString(record, fresh.text().replace(fresh.entries().get(0).sha256(), "0".repeat(64)));

        Manifest reused = manifest(record.toString());
        assertEquals("0".repeat(64), reused.entries().get(0).sha256(), "taken from the record, not read");
        assertEquals(fresh.entries().get(1), reused.entries().get(1));

        Files.writeString(src.resolve("c.bin"), "gamma, longer\n");
        assertFalse(manifest(record.toString()).entries().get(0).sha256().startsWith("0000"), "size changed: hashed again");
    }

    @Test
    void aPullFetchesVerifiesAndRecordsThenABadFileIsRemovedNotKept() throws Exception {
        Assumptions.assumeTrue(sh(List.of("sh", "-c", "command -v rsync")).exitCode() == 0, "rsync is not installed here");
        Run first = pull();
        assertEquals(0, first.exitCode(), first.stdout() + first.stderr());
        assertTrue(first.stdout().contains("got\tsub/a b.txt\n"), first.stdout());
        assertTrue(first.stdout().contains("verified\t2\t12\t" + manifest("").rootHash() + "\n"), first.stdout());
        assertEquals("alpha\n", Files.readString(dest.resolve("sub/a b.txt")));
        assertEquals(manifest("").text(), Files.readString(dest.resolve(".provision-stage/verified")));
        assertFalse(Files.exists(dest.resolve(".provision-stage/tmp")), "no temp files left");

        // Same size and mtime, other bytes, record gone: the quick check keeps it, the hash finds it.
        Path a = dest.resolve("sub/a b.txt");
        var mtime = Files.getLastModifiedTime(a);
        Files.writeString(a, "ALPHA\n");
        Files.setLastModifiedTime(a, mtime);
        Files.delete(dest.resolve(".provision-stage/verified"));
        Run second = pull();
        assertEquals(5, second.exitCode(), second.stdout() + second.stderr());
        assertEquals("bad\tsub/a b.txt\n", second.stdout());
        assertFalse(Files.exists(a), "a file that is not the manifest's is removed");

        Run third = pull();
        assertEquals(0, third.exitCode(), third.stdout() + third.stderr());
        assertEquals("alpha\n", Files.readString(a));
    }

    @Test
    void theDatasetCheckReadsTheRootHashThePullVerifiedAndTheFilesChangedSince() throws Exception {
        Run pulled = pull();
        assertEquals(0, pulled.exitCode(), pulled.stderr());
        String[] said = pulled.stdout().lines().filter(l -> l.startsWith("verified\t")).findFirst().orElseThrow().split("\t");
        String root = said[said.length - 1];
        Run survey = sh(StagedSet.command(dest.toString()));
        assertEquals(0, survey.exitCode(), survey.stderr());

        StagedSet set = StagedSet.parse(survey.stdout());
        assertEquals(java.util.Optional.of(root), set.rootHash(), "the root hash the node verified");
        assertEquals(2, set.files());
        assertEquals(12, set.bytes());
        assertEquals(0, set.changedCount());

        Files.writeString(dest.resolve("c.bin"), "gamma, longer\n");
        StagedSet changed = StagedSet.parse(sh(StagedSet.command(dest.toString())).stdout());
        assertEquals(List.of("c.bin"), changed.changed());
        assertEquals(java.util.Optional.of(root), changed.rootHash(), "what was verified, still");

        StagedSet none = StagedSet.parse(sh(StagedSet.command(dir.resolve("empty").toString())).stdout());
        assertTrue(none.rootHash().isEmpty());
    }
}
