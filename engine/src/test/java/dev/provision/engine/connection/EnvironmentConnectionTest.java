package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code environment:} through a real shell: the variables are set, and a value is only ever a value. */
class EnvironmentConnectionTest {
    @TempDir
    Path tmp;

    private final Connection local = new LocalConnection("controller");

    @Test
    void theCommandSeesTheVariablesAndItsOwnInputAndTimeLimit() throws Exception {
        Connection c = EnvironmentConnection.of(local, Map.of("HTTP_PROXY", "http://proxy:3128", "EMPTY", ""));
        ExecResult r = c.exec(ExecRequest.shell("printf '%s|%s|' \"$HTTP_PROXY\" \"${EMPTY-unset}\"; cat")
                .withStdin("input".getBytes()));
        assertEquals(0, r.exitCode());
        assertEquals("http://proxy:3128||input", r.stdoutText());
    }

    @Test
    void aHostileValueStaysAValue() throws Exception {
        Path marker = tmp.resolve("pwned");
        String hostile = "$(touch " + marker + ") `touch " + marker + "` ' \" ; touch " + marker + "\nnext";
        Connection c = EnvironmentConnection.of(local, Map.of("V", hostile));
        ExecResult r = c.exec(ExecRequest.shell("printf '%s' \"$V\""));
        assertEquals(hostile, r.stdoutText());
        assertFalse(Files.exists(marker), "a value ran as shell");
    }

    @Test
    void aNameThatWouldBeAnOptionOrAnAssignmentIsRefused() {
        for (String name : new String[] {"-i", "A=B", "1X", "A B", ""}) {
            Map<String, String> variables = new LinkedHashMap<>();
            variables.put(name, "x");
            assertThrows(IllegalArgumentException.class, () -> EnvironmentConnection.of(local, variables), name);
        }
    }

    @Test
    void noVariablesIsTheConnectionItself() {
        assertSame(local, EnvironmentConnection.of(local, Map.of()));
    }

    @Test
    void insideBecomeTheVariablesAreSetAfterSudoNotBeforeIt() throws Exception {
        Connection recording = new Connection() {
            String last;

            @Override
            public String hostName() {
                return "h";
            }

            @Override
            public ExecResult exec(ExecRequest request) {
                last = request.commandLine();
                return new ExecResult(0, last.getBytes(), new byte[0]);
            }

            @Override
            public void close() {
            }
        };
        Connection c = EnvironmentConnection.of(new BecomeConnection(recording, "root"), Map.of("A", "1"));
        String line = c.exec(ExecRequest.shell("true")).stdoutText();
        // sudo's env_reset drops what is set before it: env must run inside
        assertEquals(0, line.indexOf("sudo"), line);
        assertEquals(true, line.indexOf("env ") > line.indexOf("sudo") && line.contains("A=1"), line);
    }
}
