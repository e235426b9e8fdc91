package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalConnectionTest extends ConnectionContract {

    @Override
    protected Connection openConnection() {
        return new LocalConnection("controller");
    }

    @Test
    void namesTheHostItWasOpenedFor() {
        assertEquals("controller", connection.hostName());
    }

    @Test
    void escapesANonAsciiCommandLineSoThatTheShellRestoresItsExactBytes() throws Exception {
        String commandLine = "printf '%s' 'ünï ☃ \"$x\" `y` \\ end'";
        String escaped = LocalConnection.octalEscaped(commandLine);
        assertEquals(escaped, new String(escaped.getBytes(StandardCharsets.US_ASCII), StandardCharsets.US_ASCII));
        Process process = new ProcessBuilder(List.of("/bin/sh", "-c",
                "exec /bin/sh -c \"$(printf '%b' '" + escaped + "')\"")).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertEquals(0, process.waitFor());
        assertEquals("ünï ☃ \"$x\" `y` \\ end", new String(out, StandardCharsets.UTF_8));
    }
}
