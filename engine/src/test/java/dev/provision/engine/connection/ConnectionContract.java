package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.modules.spi.Command;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@link Connection} must do, whatever carries it. Each implementation's test extends this
 * class and opens a connection to a host whose {@code /tmp} it may use. Every check goes through the
 * connection itself (a scratch directory made with {@code mktemp -d}, inspected with {@code stat}),
 * so the same tests hold for a remote host.
 */
@Timeout(120)
abstract class ConnectionContract {
    private static final Command.Attributes NONE = Command.Attributes.NONE;

    protected Connection connection;
    protected String scratch;

    /** Opens a fresh connection to the host under test. */
    protected abstract Connection openConnection() throws Exception;

    @BeforeEach
    void openAndMakeScratchDirectory() throws Exception {
        connection = openConnection();
        scratch = run("mktemp -d /tmp/provision-contract-XXXXXX").strip();
        assertTrue(scratch.startsWith("/tmp/provision-contract-"), scratch);
    }

    @AfterEach
    void removeScratchDirectoryAndClose() throws Exception {
        if (connection != null) {
            if (scratch != null) {
                connection.exec(ExecRequest.argv("rm", "-rf", "--", scratch));
            }
            connection.close();
        }
    }

    // --- exec ---

    @Test
    void returnsTheExitStatusOfTheCommand() throws Exception {
        assertEquals(0, connection.exec(ExecRequest.shell("true")).exitCode());
        assertEquals(1, connection.exec(ExecRequest.shell("false")).exitCode());
        assertEquals(42, connection.exec(ExecRequest.shell("exit 42")).exitCode());
    }

    @Test
    void runsTheCommandLineWithShellSemantics() throws Exception {
        ExecResult result = connection.exec(ExecRequest.shell("x=world; echo \"hello $x\" | tr a-z A-Z; echo oops >&2"));
        assertEquals("HELLO WORLD\n", result.stdoutText());
        assertEquals("oops\n", result.stderrText());
    }

    @Test
    void readsLargeStdoutAndStderrAtOnceWithoutDeadlock() throws Exception {
        // stderr first: a client that drained stdout before stderr would wait forever on a full pipe.
        ExecResult result = connection.exec(ExecRequest.shell(
                "head -c 2097152 /dev/zero | tr '\\0' e >&2; head -c 8388608 /dev/zero | tr '\\0' o; "
                        + "head -c 1000 /dev/zero | tr '\\0' f >&2"));
        assertEquals(0, result.exitCode());
        byte[] out = result.stdout();
        byte[] err = result.stderr();
        assertEquals(8 * 1024 * 1024, out.length);
        assertEquals(2 * 1024 * 1024 + 1000, err.length);
        assertTrue(allBytes(out, 0, out.length, (byte) 'o'));
        assertTrue(allBytes(err, 0, 2 * 1024 * 1024, (byte) 'e'));
        assertTrue(allBytes(err, 2 * 1024 * 1024, err.length, (byte) 'f'));
    }

    @Test
    void passesStandardInputThroughUnchanged() throws Exception {
        // Larger than any pipe or channel window: input and output must flow at the same time.
        byte[] input = everyByteValue(4 * 1024 * 1024);
        ExecResult result = connection.exec(ExecRequest.shell("cat").withStdin(input));
        assertEquals(0, result.exitCode());
        assertArrayEquals(input, result.stdout());
    }

    @Test
    void passesTheSameLargerInputThroughUnchangedEachTime() throws Exception {
        // The second time an SSH connection sends it compressed (StdinDocuments); a copy that
        // differs in one byte must not be taken for it.
        byte[] input = everyByteValue(300_001);
        byte[] changed = input.clone();
        changed[150_000] ^= 1;
        for (byte[] sent : new byte[][] {input, input.clone(), changed, input}) {
            ExecResult result = connection.exec(ExecRequest.shell("cat").withStdin(sent));
            assertEquals(0, result.exitCode());
            assertArrayEquals(sent, result.stdout());
        }
    }

    @Test
    void endsStandardInputSoThatReadersFinish() throws Exception {
        ExecResult result = connection.exec(ExecRequest.shell("wc -c").withStdin("four".getBytes(StandardCharsets.UTF_8)));
        assertEquals("4", result.stdoutText().strip());
    }

    @Test
    void toleratesACommandThatIgnoresItsInput() throws Exception {
        ExecResult result = connection.exec(ExecRequest.shell("echo done").withStdin(new byte[1024 * 1024]));
        assertEquals(0, result.exitCode());
        assertEquals("done\n", result.stdoutText());
    }

    @Test
    void killsACommandThatRunsPastItsTimeLimit() throws Exception {
        String marker = scratch + "/still-running";
        long start = System.nanoTime();
        ConnectionException failure = assertThrows(ConnectionException.class, () -> connection.exec(new ExecRequest(
                "sleep 5; touch " + marker, new byte[0], Duration.ofMillis(500))));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toSeconds() < 5, "returned at the time limit");
        assertTrue(failure.getMessage().contains("timed out"), failure.getMessage());
        Thread.sleep(6000);
        assertEquals(1, connection.exec(ExecRequest.argv("test", "-e", marker)).exitCode(), "the command was killed");
    }

    @Test
    void runsCommandsConcurrently() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            List<Future<ExecResult>> results = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                String word = "call-" + i;
                results.add(pool.submit(() -> connection.exec(ExecRequest.shell("sleep 0.2; echo " + word))));
            }
            for (int i = 0; i < 24; i++) {
                assertEquals("call-" + i + "\n", results.get(i).get().stdoutText());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void refusesCallsAfterClose() throws Exception {
        Connection closed = openConnection();
        closed.close();
        closed.close();
        assertThrows(ConnectionException.class, () -> closed.exec(ExecRequest.shell("true")));
    }

    // --- put and read ---

    @Test
    void putsAndReadsEveryByteValue() throws Exception {
        byte[] content = everyByteValue(256 * 4);
        String path = scratch + "/binary";
        connection.put(path, content, NONE);
        assertArrayEquals(content, connection.read(path).orElseThrow());
        assertEquals(content.length, Integer.parseInt(run("wc -c < " + path).strip()));
    }

    @Test
    void uploadsALargeControllerFileByteForByteWithItsMode(@org.junit.jupiter.api.io.TempDir java.nio.file.Path controller)
            throws Exception {
        byte[] content = new byte[5 * 1024 * 1024 + 3];
        new java.util.Random(7).nextBytes(content);
        java.nio.file.Path source = java.nio.file.Files.write(controller.resolve("data.bin"), content);
        String path = scratch + "/data.bin";
        connection.upload(upload(path, source, new Command.Attributes(Optional.of("0640"), Optional.empty(), Optional.empty())));
        assertEquals(dev.provision.modules.text.Sha256.hex(content), run("sha256sum < " + path).split(" ")[0]);
        assertEquals("640", run("stat -c %a " + path).strip());
        assertEquals("", run("ls -A " + scratch + " | grep provision- || true").strip(), "no temp file left");
    }

    @Test
    void refusesToUploadASourceThatChangedSinceThePlanAndLeavesTheTarget(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path controller) throws Exception {
        java.nio.file.Path source = java.nio.file.Files.write(controller.resolve("data.bin"), new byte[4096]);
        String path = scratch + "/data.bin";
        connection.put(path, "old\n".getBytes(StandardCharsets.UTF_8), NONE);
        Command.UploadFile planned = upload(path, source, NONE);
        java.nio.file.Files.write(source, new byte[8192]); // the source grew after the plan was made
        ConnectionException e = assertThrows(ConnectionException.class, () -> connection.upload(planned));
        assertTrue(e.getMessage().contains("changed since the plan was made"), e.getMessage());
        assertEquals("old\n", new String(connection.read(path).orElseThrow(), StandardCharsets.UTF_8));
    }

    private static Command.UploadFile upload(String path, java.nio.file.Path source, Command.Attributes attributes) throws Exception {
        var attrs = java.nio.file.Files.readAttributes(source, java.nio.file.attribute.BasicFileAttributes.class);
        return new Command.UploadFile(path, source, attrs.size(), attrs.lastModifiedTime().toMillis(), attributes);
    }

    @Test
    void putsAnEmptyFile() throws Exception {
        String path = scratch + "/empty";
        connection.put(path, new byte[0], NONE);
        assertArrayEquals(new byte[0], connection.read(path).orElseThrow());
    }

    @Test
    void readsAMissingFileAsEmpty() throws Exception {
        assertEquals(Optional.empty(), connection.read(scratch + "/no-such-file"));
        assertEquals(Optional.empty(), connection.read(scratch + "/no-such-dir/file"));
    }

    @Test
    void failsToReadWhatIsNotAReadableFile() throws Exception {
        ConnectionException failure = assertThrows(ConnectionException.class, () -> connection.read(scratch));
        assertTrue(failure.getMessage().contains(scratch), failure.getMessage());
    }

    @Test
    void failsToReadAFileBehindAnUnsearchableDirectory() throws Exception {
        assumeTrue(!run("id -u").strip().equals("0"), "root may search every directory");
        run("mkdir " + scratch + "/locked && echo secret > " + scratch + "/locked/file && chmod 000 " + scratch + "/locked");
        try {
            assertThrows(ConnectionException.class, () -> connection.read(scratch + "/locked/file"));
        } finally {
            run("chmod 700 " + scratch + "/locked");
        }
    }

    @Test
    void failsToPutIntoAMissingDirectory() throws Exception {
        ConnectionException failure = assertThrows(ConnectionException.class,
                () -> connection.put(scratch + "/missing/file", new byte[] {1}, NONE));
        assertTrue(failure.getMessage().contains(scratch + "/missing"), failure.getMessage());
        assertTrue(failure.getMessage().contains(connection.hostName()), failure.getMessage());
    }

    @Test
    void refusesToReplaceADirectory() throws Exception {
        run("mkdir " + scratch + "/dir");
        assertThrows(ConnectionException.class, () -> connection.put(scratch + "/dir", new byte[] {1}, NONE));
        assertEquals("", run("ls -A " + scratch + "/dir"), "nothing was moved into the directory");
    }

    @Test
    void replacesAFileAtomicallyAndLeavesNoTemporaryFile() throws Exception {
        String path = scratch + "/big";
        byte[] first = filled(5 * 1024 * 1024, (byte) 'A');
        byte[] second = filled(5 * 1024 * 1024 + 17, (byte) 'B');
        connection.put(path, first, NONE);
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> reads = reader.submit(() -> {
                int count = 0;
                while (writing.get() || count < 3) {
                    byte[] seen = connection.read(path).orElseThrow();
                    if (!Arrays.equals(seen, first) && !Arrays.equals(seen, second)) {
                        throw new AssertionError("read a partial file of " + seen.length + " bytes");
                    }
                    count++;
                }
                return count;
            });
            for (int i = 0; i < 8; i++) {
                connection.put(path, i % 2 == 0 ? second : first, NONE);
            }
            writing.set(false);
            assertTrue(reads.get() >= 3);
        } finally {
            writing.set(false);
            reader.shutdownNow();
        }
        assertArrayEquals(first, connection.read(path).orElseThrow());
        assertEquals("big\n", run("ls -A " + scratch));
    }

    @Test
    void removesTheTemporaryFileWhenAnAttributeCannotBeSet() throws Exception {
        String path = scratch + "/file";
        assertThrows(ConnectionException.class, () -> connection.put(path, new byte[] {1},
                new Command.Attributes(Optional.empty(), Optional.of("no-such-user-provision"), Optional.empty())));
        assertEquals("", run("ls -A " + scratch));
    }

    @Test
    void writesAndProgramsInOneExchangeEachWithItsOwnOutputAndStopAtTheFirstFailure() throws Exception {
        String path = scratch + "/99-cluster.conf";
        Steps done = connection.inOneExchange(List.of(
                new Command.PutFile(path, "vm.swappiness = 1\n".getBytes(StandardCharsets.UTF_8), NONE, List.of(), false),
                Command.Exec.of("cat", path),
                Command.Exec.of("sh", "-c", "printf applied; echo note >&2; exit 3"),
                Command.Exec.of("touch", scratch + "/never")));
        assertEquals(3, done.ran().size(), "the program after the failure did not run");
        assertTrue(done.ran().get(0).isEmpty(), "a write has no program result");
        assertEquals("vm.swappiness = 1\n", done.ran().get(1).orElseThrow().stdoutText());
        ExecResult failed = done.lastProgram().orElseThrow();
        assertEquals(3, failed.exitCode(), "the status of the first program that failed");
        assertEquals("applied", failed.stdoutText(), "each program's output, without a line break it did not print");
        assertEquals("note\n", failed.stderrText());
        assertTrue(done.stopped(4));
        assertEquals("vm.swappiness = 1\n", run("cat " + path));
        assertEquals("99-cluster.conf", run("ls -A " + scratch).strip());
    }

    @Test
    void theEnginesShellLinesRunInASubshellOfTheExchangeAndStopItWhenTheyFail() throws Exception {
        Steps done = connection.inOneExchange(List.of(
                new Command.Shell("cd " + scratch + " && mkdir -p made && echo here; exit 0"),
                Command.Exec.of("sh", "-c", "pwd"),
                new Command.Shell("echo broke >&2; exit 4"),
                Command.Exec.of("touch", scratch + "/never")));
        assertEquals(3, done.ran().size(), String.valueOf(done));
        assertEquals("here\n", done.ran().get(0).orElseThrow().stdoutText());
        assertTrue(!done.ran().get(1).orElseThrow().stdoutText().strip().equals(scratch), "a subshell's cd stays in it");
        assertEquals(4, done.lastProgram().orElseThrow().exitCode(), "its exit ends the subshell, and its status the sequence");
        assertEquals("broke\n", done.lastProgram().orElseThrow().stderrText());
        assertEquals("made", run("ls -A " + scratch).strip());
    }

    @Test
    void writesOneAfterAnotherEachReceiveExactlyTheirBytes() throws Exception {
        byte[] binary = new byte[70_000];
        new java.util.Random(7).nextBytes(binary);
        Steps done = connection.inOneExchange(List.of(
                new Command.PutFile(scratch + "/a", binary, NONE, List.of(), false),
                new Command.PutFile(scratch + "/empty", new byte[0], NONE, List.of(), false),
                new Command.PutFile(scratch + "/b", "no line break at the end".getBytes(StandardCharsets.UTF_8), NONE, List.of(), false),
                Command.Exec.of("true")));
        assertFalse(done.stopped(4), String.valueOf(done));
        assertArrayEquals(binary, connection.read(scratch + "/a").orElseThrow());
        assertEquals("", run("cat " + scratch + "/empty"));
        assertEquals("no line break at the end", run("cat " + scratch + "/b"));
        assertEquals("a\nb\nempty\n", run("ls -A " + scratch), "no temp file left");
    }

    @Test
    void aWriteThatFailsRunsNothingAfterItAndKeepsWhatRanBefore() throws Exception {
        String path = scratch + "/missing-dir/file";
        Steps done = connection.inOneExchange(List.of(
                new Command.PutFile(scratch + "/first", new byte[] {1}, NONE, List.of(), false),
                new Command.PutFile(path, new byte[] {1}, NONE, List.of(), false),
                Command.Exec.of("touch", scratch + "/ran")));
        assertEquals(1, done.ran().size(), "the first write ran");
        assertTrue(done.failedWrite().orElseThrow().getMessage().contains("cannot write " + path), String.valueOf(done.failedWrite()));
        assertEquals("first\n", run("ls -A " + scratch));
    }

    @Test
    void aValidatorThatRefusesLeavesTheTargetAsItWasAndSaysWhy() throws Exception {
        String path = scratch + "/checked";
        run("echo old > " + path);
        List<String> validator = List.of("sh", "-c", "grep -q good \"$1\" || { echo \"no good in $1\"; exit 1; }", "check", "%s");
        ConnectionException e = assertThrows(ConnectionException.class, () -> connection.put(
                new Command.PutFile(path, "bad\n".getBytes(StandardCharsets.UTF_8), NONE, validator, false)));
        assertTrue(e.getMessage().contains("no good in " + scratch + "/.provision-"), e.getMessage());
        assertEquals("old\n", run("cat " + path));
        assertEquals("checked", run("ls -A " + scratch).strip(), "no temp file left");
    }

    @Test
    void aValidatorThatAcceptsLetsTheWriteThrough() throws Exception {
        String path = scratch + "/checked";
        connection.put(new Command.PutFile(path, "good\n".getBytes(StandardCharsets.UTF_8), NONE,
                List.of("grep", "-q", "good", "%s"), false));
        assertEquals("good\n", run("cat " + path));
    }

    @Test
    void keepsABackupNamedAsAnsibleNamesIt() throws Exception {
        String path = scratch + "/kept";
        connection.put(new Command.PutFile(path, "one\n".getBytes(StandardCharsets.UTF_8), NONE, List.of(), true));
        assertEquals("kept", run("ls -A " + scratch).strip(), "nothing to back up yet");
        connection.put(new Command.PutFile(path, "two\n".getBytes(StandardCharsets.UTF_8), NONE, List.of(), true));
        String backup = run("ls -A " + scratch + " | grep -v '^kept$'").strip();
        assertTrue(backup.matches("kept\\.\\d+\\.\\d{4}-\\d\\d-\\d\\d@\\d\\d:\\d\\d:\\d\\d~"), backup);
        assertEquals("one\n", run("cat '" + scratch + "/" + backup + "'"));
        assertEquals("two\n", run("cat " + path));
    }

    @Test
    void appliesTheModeAskedFor() throws Exception {
        String path = scratch + "/mode";
        connection.put(path, new byte[] {1}, new Command.Attributes(Optional.of("0640"), Optional.empty(), Optional.empty()));
        assertEquals("640", run("stat -c %a " + path).strip());
        connection.put(path, new byte[] {2}, new Command.Attributes(Optional.of("0755"), Optional.empty(), Optional.empty()));
        assertEquals("755", run("stat -c %a " + path).strip());
        // modes the temp file is created with (no chmod), over a file whose mode differs
        for (String mode : List.of("0644", "600", "0444", "0666")) {
            connection.put(path, new byte[] {3}, new Command.Attributes(Optional.of(mode), Optional.empty(), Optional.empty()));
            assertEquals(Integer.toOctalString(Integer.parseInt(mode, 8)), run("stat -c %a " + path).strip(), mode);
        }
    }

    @Test
    void keepsTheModeOfTheExistingFileWhenNoneIsGiven() throws Exception {
        String path = scratch + "/kept";
        run("echo old > " + path + " && chmod 0604 " + path);
        connection.put(path, "new".getBytes(StandardCharsets.UTF_8), NONE);
        assertEquals("604", run("stat -c %a " + path).strip());
        assertEquals("new", new String(connection.read(path).orElseThrow(), StandardCharsets.UTF_8));
    }

    @Test
    void createsANewFileWithTheUmaskModeWhenNoneIsGiven() throws Exception {
        String path = scratch + "/fresh";
        connection.put(path, new byte[] {1}, NONE);
        String expected = run("printf '%o' $(( 0666 & ~$(umask) ))");
        assertEquals(expected, run("stat -c %a " + path).strip());
    }

    @Test
    void appliesOwnerAndGroupAskedFor() throws Exception {
        assumeTrue(run("id -u").strip().equals("0"), "only root may give files away");
        String group = run("id -gn nobody").strip();
        String path = scratch + "/owned";
        connection.put(path, new byte[] {1}, new Command.Attributes(Optional.of("0600"), Optional.of("nobody"), Optional.of(group)));
        assertEquals("nobody:" + group + ":600", run("stat -c %U:%G:%a " + path).strip());
        // Not given next time: kept from the existing file.
        connection.put(path, new byte[] {2}, NONE);
        assertEquals("nobody:" + group + ":600", run("stat -c %U:%G:%a " + path).strip());
    }

    @Test
    void writesAndReadsUnicodePaths() throws Exception {
        String directory = scratch + "/ünïcødé ☃";
        connection.exec(ExecRequest.argv("mkdir", directory));
        String path = directory + "/fïle ✓";
        byte[] content = "grüße ☃\n".getBytes(StandardCharsets.UTF_8);
        connection.put(path, content, NONE);
        assertArrayEquals(content, connection.read(path).orElseThrow());
        ExecResult listed = connection.exec(ExecRequest.argv("ls", directory));
        assertEquals("fïle ✓\n", listed.stdoutText());
    }

    @Test
    void writesPathsWithShellSyntaxLiterallyAndInjectsNothing() throws Exception {
        String pwned = scratch + "/pwned";
        String directory = scratch + "/a'; touch " + pwned + "; '";
        connection.exec(ExecRequest.argv("mkdir", "-p", directory));
        List<String> paths = List.of(
                directory + "/x",
                scratch + "/$(touch " + "pwned)",
                scratch + "/`touch pwned`",
                scratch + "/\"; touch pwned; \"",
                scratch + "/new\nline",
                scratch + "/-rf");
        for (String path : paths) {
            byte[] content = path.getBytes(StandardCharsets.UTF_8);
            connection.put(path, content, NONE);
            assertArrayEquals(content, connection.read(path).orElseThrow(), path);
        }
        assertEquals(1, connection.exec(ExecRequest.argv("test", "-e", pwned)).exitCode(), "no command was injected");
        assertFalse(run("ls -A " + scratch).contains("pwned\n"), "no file named pwned was created");
    }

    @Test
    void refusesARelativePath() {
        assertThrows(ConnectionException.class, () -> connection.put("relative/file", new byte[] {1}, NONE));
        assertThrows(ConnectionException.class, () -> connection.read("relative/file"));
    }

    // --- helpers ---

    /** Runs a test's own command line (never one built from untrusted values) and returns its stdout. */
    protected String run(String commandLine) throws ConnectionException {
        ExecResult result = connection.exec(ExecRequest.shell(commandLine));
        if (result.exitCode() != 0) {
            throw new AssertionError(commandLine + " failed with " + result.exitCode() + ": " + result.stderrText());
        }
        return result.stdoutText();
    }

    static byte[] everyByteValue(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }

    private static boolean allBytes(byte[] bytes, int from, int to, byte value) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != value) {
                return false;
            }
        }
        return true;
    }
}
