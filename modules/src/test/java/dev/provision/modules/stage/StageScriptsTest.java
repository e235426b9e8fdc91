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

    @Test
    void theControllersManifestIsTheScriptsLineForLine() throws Exception {
        Files.createDirectories(src.resolve("dir with space/ünïcode"));
        Files.writeString(src.resolve("dir with space/ünïcode/x-y.bin"), "x");
        Files.writeString(src.resolve("dir with space/a"), "");
        Files.writeString(src.resolve("a-b"), "ab");
        Files.writeString(src.resolve("a"), "a");
        Files.setPosixFilePermissions(src.resolve("a"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.setLastModifiedTime(src.resolve("a-b"), java.nio.file.attribute.FileTime.fromMillis(1_600_000_000_999L));
        assertEquals(0, sh(List.of("chmod", "4755", src.resolve("c.bin").toString())).exitCode());

        Manifest here = ControllerManifest.of(src, 2, List.of());

        assertEquals(manifest("").text(), here.text());
        assertEquals(manifest("").rootHash(), here.rootHash());
    }

    @Test
    void theControllersManifestTakesTheHashOfAFileTheRecordVouchesForAndRefusesWhatTheScriptRefuses() throws Exception {
        Manifest fresh = ControllerManifest.of(src, 2, List.of());
        String vouched = fresh.entries().get(0).line().replace(fresh.entries().get(0).sha256(), "0".repeat(64));
        assertEquals("0".repeat(64), ControllerManifest.of(src, 2, List.of(vouched)).entries().get(0).sha256());

        Files.createSymbolicLink(src.resolve("link"), src.resolve("c.bin"));
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.provision.modules.spi.ModuleException.class,
                () -> ControllerManifest.of(src, 2, List.of()));
        assertEquals("neither a regular file nor a directory (not staged): ./link", e.getMessage());
        assertEquals(3, sh(StageModule.manifestArgv(src.toString(), 2, "")).exitCode(), "the script refuses it too");
    }

    @Test
    void aFeedFromTheControllersTarIsUnpackedVerifiedAndRecordedAndTheProgressProbeCountedIt() throws Exception {
        Manifest m = ControllerManifest.of(src, 2, List.of());
        Files.createDirectories(dest.resolve(".provision-stage"));
        Files.writeString(dest.resolve(".provision-stage/manifest"), m.text());
        List<String> pullArgv = List.of("sh", "-c", StageModule.pullScript(), "sh", dest.toString(), "feed", "-",
                "/nonexistent-key", "/nonexistent-known-hosts", "2", "5", "none");
        // the controller's tar of what the node lacks, piped into the node's pull as the engine streams it
        Process tar = new ProcessBuilder(FanOut.controllerTarArgv(src.toString())).start();
        tar.getOutputStream().write("c.bin\nsub/a b.txt\n".getBytes(StandardCharsets.UTF_8));
        tar.getOutputStream().close();
        Process pull = new ProcessBuilder(pullArgv).start();
        tar.getInputStream().transferTo(pull.getOutputStream());
        pull.getOutputStream().close();
        String out = new String(pull.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(pull.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, pull.waitFor(), out + err);
        assertEquals(0, tar.waitFor());

        assertTrue(out.contains("got\tsub/a b.txt\n") && out.contains("got\tc.bin\n"), out);
        assertTrue(out.contains("verified\t2\t12\t" + m.rootHash() + "\n"), out);
        assertEquals("alpha\n", Files.readString(dest.resolve("sub/a b.txt")));
        assertEquals(Files.getLastModifiedTime(src.resolve("c.bin")).toMillis() / 1000,
                Files.getLastModifiedTime(dest.resolve("c.bin")).toMillis() / 1000, "mtime kept");
        assertEquals(m.text(), Files.readString(dest.resolve(".provision-stage/verified")));
        assertEquals("0 0\n", sh(StageModule.progressArgv(dest.toString())).stdout(), "nothing in flight once verified");

        // while a fetch runs: what rsync completed (its length) and what is under tmp
        Files.createDirectories(dest.resolve(".provision-stage/tmp/sub"));
        Files.writeString(dest.resolve(".provision-stage/tmp/sub/part"), "12345");
        Files.writeString(dest.resolve(".provision-stage/rsync.out"), ">f+++++++++ 1000 x y\n.d..t...... 4096 sub/\n>f+++++++++ 24 z\n");
        assertEquals("1029 3\n", sh(StageModule.progressArgv(dest.toString())).stdout());
    }

    @Test
    void aHopQuotesEveryWordForTheFarShell() throws Exception {
        // ssh stood in by a script that runs the far command line with sh, as sshd does: the words must arrive intact
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path ssh = bin.resolve("ssh");
        Files.writeString(ssh, "#!/bin/sh\nfor last; do :; done\nexec sh -c \"$last\"\n");
        Files.setPosixFilePermissions(ssh, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        List<String> argv = StageModule.hopArgv("/k", "/kh", 5, "root@10.0.0.5",
                List.of("sh", "-c", "printf '[%s]' \"$@\"", "sh", "it's", "$(x) `y` ;z", "a\nb"));
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor());
        assertEquals("[it's][$(x) `y` ;z][a\nb]", out);
    }
}
