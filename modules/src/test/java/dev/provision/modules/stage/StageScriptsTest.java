package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

    private Manifest listing() throws Exception {
        Run r = sh(StageModule.manifestArgv(src.toString()));
        assertEquals(0, r.exitCode(), r.stderr());
        return Manifest.parse(r.stdout());
    }

    /** The manifest of {@code src} made here, independently of the scripts: SHA-256 of each file's bytes, size, mode, mtime. */
    private String expectedManifest() throws Exception {
        StringBuilder text = new StringBuilder();
        for (Manifest.Entry e : listing().entries()) {
            Path f = src.resolve(e.path());
            String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
            String mode = Integer.toOctalString((Integer) Files.getAttribute(f, "unix:mode") & 07777);
            text.append(sha).append('\t').append(Files.size(f)).append('\t').append(mode).append('\t')
                    .append(Files.getLastModifiedTime(f).toMillis() / 1000).append('\t').append(e.path()).append('\n');
        }
        return text.toString();
    }

    private Run pull() throws Exception {
        return pull(dest, "source", src.toString(), "none");
    }

    private Run pull(Path into, String mode, String from, String next) throws Exception {
        Files.createDirectories(into.resolve(".provision-stage"));
        Files.writeString(into.resolve(".provision-stage/manifest"), listing().text());
        return sh(List.of("sh", "-c", StageModule.pullScript(), "sh", into.toString(), mode, from, "/nonexistent-key",
                "/nonexistent-known-hosts", "2", "5", next));
    }

    @Test
    void theListingNamesEveryFileInPathOrderAndReadsNoData() throws Exception {
        Manifest m = listing();

        assertEquals(List.of("c.bin", "sub/a b.txt"), m.entries().stream().map(Manifest.Entry::path).toList());
        assertEquals("-", m.entries().get(0).sha256(), "no hash: no file's data is read to plan");
        assertEquals(6, m.entries().get(0).size());
        assertFalse(m.complete());
    }

    @Test
    void theReaderHashesWhatItReadAndRecordsTheManifestTheSourceHas() throws Exception {
        Run first = pull();
        assertEquals(0, first.exitCode(), first.stdout() + first.stderr());
        assertTrue(first.stdout().contains("got\tsub/a b.txt\n"), first.stdout());
        String expected = expectedManifest();
        assertEquals(expected, Files.readString(dest.resolve(".provision-stage/verified")));
        assertTrue(first.stdout().contains("verified\t2\t12\t" + Manifest.parse(expected).rootHash() + "\n"), first.stdout());
        assertEquals("alpha\n", Files.readString(dest.resolve("sub/a b.txt")));
        assertFalse(Files.exists(dest.resolve(".provision-stage/tmp")), "no temp files left");
    }

    /**
     * A long list (more than 10 000 files) is read in chunks side by side (256 files or 8 MiB each, the
     * first and a larger file straight into the stream) and sent in order: every file arrives whole,
     * the manifest is the source's.
     */
    @Test
    void aLongListIsReadInChunksSideBySideAndEveryFileArrivesWhole() throws Exception {
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 10_100; i++) {
            byte[] bytes = new byte[random.nextInt(300)];
            random.nextBytes(bytes);
            Files.write(src.resolve("sub/f" + i), bytes);
        }
        byte[] big = new byte[64 * 1024 * 1024 + 5];
        random.nextBytes(big);
        Files.write(src.resolve("m.bin"), big);

        Run first = pull();
        assertEquals(0, first.exitCode(), first.stdout() + first.stderr());
        assertEquals(expectedManifest(), Files.readString(dest.resolve(".provision-stage/verified")));
        assertArrayEquals(big, Files.readAllBytes(dest.resolve("m.bin")));
        assertArrayEquals(Files.readAllBytes(src.resolve("sub/f10099")), Files.readAllBytes(dest.resolve("sub/f10099")));
        assertFalse(Files.exists(dest.resolve(".provision-stage/spool")), "no spool left");
        assertFalse(Files.exists(dest.resolve(".provision-stage/chunks")), "no chunk list left");
    }

    @Test
    void aFileTheRecordVouchesForKeepsItsRecordedHashAndIsNotReadAgain() throws Exception {
        assertEquals(0, pull().exitCode());
        // the record says another hash for c.bin as held: the reader trusts it (quick check) and does not read c.bin
        Path record = dest.resolve(".provision-stage/verified");
        String vouched = Files.readString(record).replaceFirst("^[0-9a-f]{64}", "0".repeat(64));
        Files.writeString(record, vouched);

        Run again = pull();
        assertEquals(0, again.exitCode(), again.stdout() + again.stderr());
        assertFalse(again.stdout().contains("got\t"), again.stdout());
        assertEquals(vouched, Files.readString(record));
    }

    @Test
    void aReaderReplacesAHeldCopyThatIsNotTheSourcesAndKeepsOneThatIs() throws Exception {
        assertEquals(0, pull().exitCode());
        // same size and mtime, other bytes, record gone: the reader reads it again and compares
        Path a = dest.resolve("sub/a b.txt");
        var mtime = Files.getLastModifiedTime(a);
        Files.writeString(a, "ALPHA\n");
        Files.setLastModifiedTime(a, mtime);
        Files.delete(dest.resolve(".provision-stage/verified"));

        Run second = pull();
        assertEquals(0, second.exitCode(), second.stdout() + second.stderr());
        assertEquals("got\tsub/a b.txt", second.stdout().lines().filter(l -> l.startsWith("got")).collect(java.util.stream.Collectors.joining("\n")),
                "c.bin, held as the source has it, is not received again");
        assertEquals("alpha\n", Files.readString(a));
        assertEquals(expectedManifest(), Files.readString(dest.resolve(".provision-stage/verified")));
    }

    @Test
    void aSourceFileThatChangedSincePlanningFailsTheReadAndNothingIsRecorded() throws Exception {
        Files.createDirectories(dest.resolve(".provision-stage"));
        Files.writeString(dest.resolve(".provision-stage/manifest"), listing().text());
        Files.writeString(src.resolve("c.bin"), "gamma, longer\n");
        Run r = sh(List.of("sh", "-c", StageModule.pullScript(), "sh", dest.toString(), "source", src.toString(), "/k", "/kh", "2", "5", "none"));

        assertEquals(4, r.exitCode(), r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("changed\tc.bin\n"), r.stdout());
        assertFalse(Files.exists(dest.resolve("c.bin")), "the changed file is not linked into place");
        assertEquals("", Files.readString(dest.resolve(".provision-stage/verified")), "nothing recorded");
    }

    @Test
    void aChainNodeVerifiesAgainstTheManifestTheReaderSendsAfterTheDataAndFindsABadHeldCopy() throws Exception {
        // two nodes on this machine: ssh stood in by a script that runs the far command here, with the
        // second node's destination read as the first's (on a cluster both are the same path)
        Path first = dir.resolve("n1/set");
        Path second = dir.resolve("n2/set");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("ssh"), "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -[oi]) shift 2 ;; -*) shift ;; *) shift; break ;; esac; done\n"
                + "exec sh -c \"$(printf '%s ' \"$@\" | sed \"s#" + second + "#" + first + "#g\")\"\n");
        Files.setPosixFilePermissions(bin.resolve("ssh"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        // the second node holds c.bin as listed but with other bytes, and no record
        Files.createDirectories(second);
        Files.writeString(second.resolve("c.bin"), "GAMMA\n");
        Files.setLastModifiedTime(second.resolve("c.bin"), Files.getLastModifiedTime(src.resolve("c.bin")));
        for (Path n : List.of(first, second)) {
            Files.createDirectories(n.resolve(".provision-stage"));
            Files.writeString(n.resolve(".provision-stage/manifest"), listing().text());
        }
        ProcessBuilder reader = new ProcessBuilder("timeout", "60", "sh", "-c", StageModule.pullScript(), "sh", first.toString(), "chain-source", src.toString(),
                "/k", "/kh", "2", "5", "next");
        ProcessBuilder follower = new ProcessBuilder("timeout", "60", "sh", "-c", StageModule.pullScript(), "sh", second.toString(), "chain", "root@n1",
                "/k", "/kh", "2", "5", "none");
        follower.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process r = reader.start();
        Process f = follower.start();
        r.getOutputStream().close();
        f.getOutputStream().close();
        String rOut = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8) + new String(r.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8);
        String fOut = new String(f.getInputStream().readAllBytes(), StandardCharsets.UTF_8) + new String(f.getErrorStream().readAllBytes(),
                StandardCharsets.UTF_8);
        assertTrue(r.waitFor(60, TimeUnit.SECONDS) && f.waitFor(60, TimeUnit.SECONDS));

        String root = Manifest.parse(expectedManifest()).rootHash();
        assertEquals(0, r.exitValue(), rOut);
        assertTrue(rOut.contains("verified\t2\t12\t" + root), rOut);
        assertEquals(5, f.exitValue(), fOut);
        assertEquals("got\tsub/a b.txt\nbad\tc.bin\n", fOut, "received what it lacked, found its held copy bad against the reader's manifest");
        assertFalse(Files.exists(second.resolve("c.bin")), "a bad file is removed");

        // the next round (from a holder, here the same chain again): it gets c.bin and verifies the reader's root
        Process again = follower.start();
        Process rr = reader.start();
        again.getOutputStream().close();
        rr.getOutputStream().close();
        String out = new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(again.waitFor(60, TimeUnit.SECONDS) && rr.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, again.exitValue(), out);
        assertTrue(out.contains("got\tc.bin\n") && out.contains("verified\t2\t12\t" + root), out);
        assertEquals(expectedManifest(), Files.readString(second.resolve(".provision-stage/verified")));
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
    void theControllersListingIsTheScriptsLineForLine() throws Exception {
        Files.createDirectories(src.resolve("dir with space/ünïcode"));
        Files.writeString(src.resolve("dir with space/ünïcode/x-y.bin"), "x");
        Files.writeString(src.resolve("dir with space/a"), "");
        Files.writeString(src.resolve("a-b"), "ab");
        Files.writeString(src.resolve("a"), "a");
        Files.setPosixFilePermissions(src.resolve("a"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Files.setLastModifiedTime(src.resolve("a-b"), java.nio.file.attribute.FileTime.fromMillis(1_600_000_000_999L));
        assertEquals(0, sh(List.of("chmod", "4755", src.resolve("c.bin").toString())).exitCode());

        assertEquals(listing().text(), ControllerManifest.of(src).text());
    }

    @Test
    void theControllersListingRefusesWhatTheScriptRefuses() throws Exception {
        Files.createSymbolicLink(src.resolve("link"), src.resolve("c.bin"));
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.provision.modules.spi.ModuleException.class,
                () -> ControllerManifest.of(src));
        assertEquals("neither a regular file nor a directory (not staged): ./link", e.getMessage());
        assertEquals(3, sh(StageModule.manifestArgv(src.toString())).exitCode(), "the script refuses it too");
    }

    /** The controller's feed (feed.sh) piped into the node's pull as the engine streams it; {@code feed}: its argv. */
    private Run fed(List<String> feed) throws Exception {
        Files.createDirectories(dest.resolve(".provision-stage"));
        Files.writeString(dest.resolve(".provision-stage/manifest"), ControllerManifest.of(src).text());
        List<String> pullArgv = List.of("sh", "-c", StageModule.pullScript(), "sh", dest.toString(), "feed", "-",
                "/nonexistent-key", "/nonexistent-known-hosts", "2", "5", "none");
        Process tar = new ProcessBuilder(feed).start();
        tar.getOutputStream().write("c.bin\nsub/a b.txt\n".getBytes(StandardCharsets.UTF_8));
        tar.getOutputStream().close();
        Process pull = new ProcessBuilder(pullArgv).start();
        tar.getInputStream().transferTo(pull.getOutputStream());
        pull.getOutputStream().close();
        String out = new String(pull.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(pull.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, tar.waitFor());
        return new Run(pull.waitFor(), out, err);
    }

    @Test
    void aFeedFromTheControllersTarIsUnpackedHashedAndRecordedAndTheProgressProbeCountedIt() throws Exception {
        Run r = fed(FanOut.controllerFeedArgv(src.toString()));
        assertEquals(0, r.exitCode(), r.stdout() + r.stderr());

        assertTrue(r.stdout().contains("got\tsub/a b.txt\n") && r.stdout().contains("got\tc.bin\n"), r.stdout());
        assertTrue(r.stdout().contains("verified\t2\t12\t" + Manifest.parse(expectedManifest()).rootHash() + "\n"), r.stdout());
        assertEquals("alpha\n", Files.readString(dest.resolve("sub/a b.txt")));
        assertEquals(Files.getLastModifiedTime(src.resolve("c.bin")).toMillis() / 1000,
                Files.getLastModifiedTime(dest.resolve("c.bin")).toMillis() / 1000, "mtime kept");
        assertEquals(expectedManifest(), Files.readString(dest.resolve(".provision-stage/verified")));
        assertFalse(Files.exists(dest.resolve(".provision-stage/read-whole")), "the mark is not a file of the set");
        assertEquals("0 0\n", sh(StageModule.progressArgv(dest.toString())).stdout(), "nothing in flight once verified");

        // while a fetch runs: what rsync completed (its length) and what is under tmp
        Files.createDirectories(dest.resolve(".provision-stage/tmp/sub"));
        Files.writeString(dest.resolve(".provision-stage/tmp/sub/part"), "12345");
        Files.writeString(dest.resolve(".provision-stage/rsync.out"), ">f+++++++++ 1000 x y\n.d..t...... 4096 sub/\n>f+++++++++ 24 z\n");
        assertEquals("1029 3\n", sh(StageModule.progressArgv(dest.toString())).stdout());

        // a chain's unpacking says what landed (BYTES FILES, then the member in flight, whose size so far
        // is added): the files under tmp are not counted one by one
        Files.writeString(dest.resolve(".provision-stage/received"), "700 2\nsub/part\n");
        Files.writeString(dest.resolve(".provision-stage/tmp/other"), "not counted");
        assertEquals("1729 4\n", sh(StageModule.progressArgv(dest.toString())).stdout());
    }

    @Test
    void aFeedWithoutTheControllersMarkThatItReadEveryFileWholeRecordsNothing() throws Exception {
        // the controller's tar alone, as when it exited non-zero (a file changed as it read it) before the mark
        Run r = fed(List.of("tar", "-c", "-f", "-", "-C", src.toString(), "--no-recursion", "--verbatim-files-from", "-T", "-"));

        assertEquals(4, r.exitCode(), r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("read\tthe controller did not read the source whole"), r.stdout());
        assertEquals("", Files.readString(dest.resolve(".provision-stage/verified")));
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

    @Test
    void theRemovalTakesOnlyTheListedFilesAndTheDirectoriesItEmptied(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dest)
            throws Exception {
        java.nio.file.Files.createDirectories(dest.resolve("old/deep"));
        java.nio.file.Files.createDirectories(dest.resolve("keep"));
        java.nio.file.Files.createDirectories(dest.resolve(".provision-stage"));
        for (String f : List.of("old/deep/x.bin", "keep/y.bin", "keep/z.bin", "-n odd name", ".provision-stage/verified")) {
            java.nio.file.Files.writeString(dest.resolve(f), f);
        }
        dev.provision.modules.spi.Change removal = StageModule.removal(dest.toString(), List.of("-n odd name", "keep/y.bin", "old/deep/x.bin"));
        for (dev.provision.modules.spi.Command c : removal.commands()) {
            dev.provision.modules.spi.Command.Exec exec = (dev.provision.modules.spi.Command.Exec) c;
            Process p = new ProcessBuilder(exec.argv()).redirectErrorStream(true).start();
            p.getOutputStream().write(exec.stdin());
            p.getOutputStream().close();
            String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), said);
        }
        assertTrue(!java.nio.file.Files.exists(dest.resolve("-n odd name")));
        assertTrue(!java.nio.file.Files.exists(dest.resolve("keep/y.bin")));
        assertTrue(java.nio.file.Files.exists(dest.resolve("keep/z.bin")), "not listed: kept");
        assertTrue(!java.nio.file.Files.exists(dest.resolve("old")), "emptied, with its parent");
        assertTrue(java.nio.file.Files.exists(dest.resolve(".provision-stage/verified")));
        assertTrue(java.nio.file.Files.isDirectory(dest), "dest itself stays");
    }
}
