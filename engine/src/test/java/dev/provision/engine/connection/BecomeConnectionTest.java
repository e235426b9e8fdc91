package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.text.ShellWords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Become against a fake {@code sudo} on the PATH that behaves like the real one where it matters: it
 * reads exactly one password line from standard input with {@code -S} when the "sudoers" (a flag
 * file) says a password is needed, and reads nothing for a NOPASSWD rule.
 */
class BecomeConnectionTest {
    private static final String PASSWORD = "pa ss'w\"rd $(x)";

    @TempDir
    Path directory;
    private Path bin;

    @BeforeEach
    void installFakeSudo() throws Exception {
        bin = Files.createDirectories(directory.resolve("bin"));
        String state = ShellWords.quote(directory.toString());
        Path sudo = bin.resolve("sudo");
        Files.writeString(sudo, String.join("\n",
                "#!/bin/sh",
                "state=" + state,
                "printf '%s\\n' \"$*\" >> \"$state/calls\"",
                "user=root; prompt=no",
                "while [ $# -gt 0 ]; do",
                "  case \"$1\" in -S) prompt=yes;; -u) shift; user=$1;; -p) shift;; --) shift; break;; esac",
                "  shift",
                "done",
                "if [ $prompt = yes ] && [ -e \"$state/asks\" ]; then",
                "  IFS= read -r answer",
                "  [ \"$answer\" = \"$(cat \"$state/password\")\" ] || { echo 'sudo: 1 incorrect password attempt' >&2; exit 1; }",
                "fi",
                "printf '%s\\n' \"$user\" > \"$state/user\"",
                "exec \"$@\"",
                ""));
        Files.setPosixFilePermissions(sudo, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(directory.resolve("password"), PASSWORD + "\n");
    }

    /** The local host with the fake sudo first on the PATH. */
    private Connection host() {
        Connection local = new LocalConnection("node01");
        String path = "PATH=" + ShellWords.quote(bin.toString()) + ":$PATH; export PATH\n";
        return new Connection() {
            @Override
            public String hostName() {
                return local.hostName();
            }

            @Override
            public ExecResult exec(ExecRequest request) throws ConnectionException {
                return local.exec(new ExecRequest(path + request.commandLine(), request.stdin(), request.timeout()));
            }

            @Override
            public void put(String p, byte[] content, Command.Attributes attributes) {
                throw new AssertionError("become must write through exec");
            }

            @Override
            public Optional<byte[]> read(String p) {
                throw new AssertionError("become must read through exec");
            }

            @Override
            public void close() {
                local.close();
            }
        };
    }

    private void sudoAsksForPassword() throws Exception {
        Files.writeString(directory.resolve("asks"), "");
    }

    private String calls() throws Exception {
        return Files.readString(directory.resolve("calls"));
    }

    @Test
    void runsEveryCommandThroughSudoWithoutPrompting() throws Exception {
        try (Connection become = new BecomeConnection(host(), "postgres")) {
            ExecResult result = become.exec(ExecRequest.shell("echo \"as $0\""));
            assertEquals("as /bin/sh\n", result.stdoutText());
            assertEquals("-n -u postgres -- /bin/sh -c echo \"as $0\"\n", calls());
            assertEquals("postgres\n", Files.readString(directory.resolve("user")));
        }
    }

    @Test
    void answersThePasswordPromptAndGivesTheCommandOnlyItsOwnInput() throws Exception {
        sudoAsksForPassword();
        byte[] input = ConnectionContract.everyByteValue(70_000);
        try (Connection become = new BecomeConnection(host(), "root", PASSWORD.toCharArray())) {
            ExecResult result = become.exec(ExecRequest.shell("cat").withStdin(input));
            assertEquals(0, result.exitCode(), result.stderrText());
            assertArrayEquals(input, result.stdout());
            assertTrue(calls().startsWith("-k -S -p  -u root -- /bin/sh -c "), calls());
        }
    }

    @Test
    void neverPassesThePasswordToTheCommandWhenSudoDoesNotAsk() throws Exception {
        try (Connection become = new BecomeConnection(host(), "root", PASSWORD.toCharArray())) {
            ExecResult result = become.exec(ExecRequest.shell("cat").withStdin("data\n".getBytes(StandardCharsets.UTF_8)));
            assertEquals("data\n", result.stdoutText());
            ExecResult empty = become.exec(ExecRequest.shell("cat"));
            assertEquals("", empty.stdoutText());
        }
    }

    @Test
    void keepsThePasswordOutOfCommandLinesMessagesAndItsName() throws Exception {
        sudoAsksForPassword();
        Files.writeString(directory.resolve("password"), "another\n");
        try (BecomeConnection become = new BecomeConnection(host(), "root", PASSWORD.toCharArray())) {
            ExecResult result = become.exec(ExecRequest.shell("true"));
            assertEquals(1, result.exitCode());
            assertFalse(result.stderrText().contains(PASSWORD));
            ConnectionException failure = assertThrows(ConnectionException.class,
                    () -> become.put(directory.resolve("file").toString(), new byte[] {1}, Command.Attributes.NONE));
            assertFalse(failure.getMessage().contains(PASSWORD), failure.getMessage());
            assertFalse(become.toString().contains(PASSWORD));
            assertFalse(calls().contains("pa ss"), calls());
        }
    }

    @Test
    void refusesAPasswordWithALineBreakWithoutShowingIt() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new BecomeConnection(host(), "root", "top\nsecret".toCharArray()));
        assertFalse(refused.getMessage().contains("secret"));
    }

    @Test
    void writesAndReadsFilesThroughSudo() throws Exception {
        sudoAsksForPassword();
        String path = directory.resolve("written by root").toString();
        byte[] content = ConnectionContract.everyByteValue(1024);
        try (Connection become = new BecomeConnection(host(), "root", PASSWORD.toCharArray())) {
            become.put(path, content, new Command.Attributes(Optional.of("0600"), Optional.empty(), Optional.empty()));
            assertArrayEquals(content, Files.readAllBytes(Path.of(path)));
            assertArrayEquals(content, become.read(path).orElseThrow());
            assertEquals(Optional.empty(), become.read(path + ".missing"));
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(path))));
        // Each call's marker appears once in its logged arguments: put, read and read, all through sudo.
        assertEquals(3, calls().split("provision-become-", -1).length - 1, calls());
    }
}
