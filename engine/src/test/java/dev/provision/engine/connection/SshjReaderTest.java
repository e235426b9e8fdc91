package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.util.jar.JarInputStream;
import net.schmizz.sshj.transport.Reader;
import net.schmizz.sshj.transport.TransportImpl;
import org.junit.jupiter.api.Test;

/**
 * The engine's replacement of sshj's transport reader (its javadoc says why) is the one the JVM
 * loads, and sshj is the version it was written against. What it reads is checked over a real sshd
 * by {@link SshConnectionTest}: its large outputs come in channel packets of 32 KB, twice the
 * reader's buffer, so they cross it in pieces.
 */
class SshjReaderTest {
    /** The sshj whose reader {@link Reader} replaces; upgrading sshj means reading its reader again. */
    private static final String SSHJ_VERSION = "0.40.0";

    @Test
    void theReaderLoadedIsTheEnginesOwn() {
        URL reader = Reader.class.getProtectionDomain().getCodeSource().getLocation();
        URL engine = SshConnection.class.getProtectionDomain().getCodeSource().getLocation();
        assertEquals(engine, reader, "sshj's own reader was loaded: the engine's classes must come before sshj's jar");
    }

    @Test
    void sshjIsTheVersionTheReaderWasWrittenFor() throws Exception {
        URL sshj = TransportImpl.class.getProtectionDomain().getCodeSource().getLocation();
        String version;
        try (JarInputStream jar = new JarInputStream(sshj.openStream())) {
            version = jar.getManifest().getMainAttributes().getValue("Bundle-Version");
        }
        assertEquals(SSHJ_VERSION, version, "sshj changed: compare its net.schmizz.sshj.transport.Reader with the engine's"
                + " (same constructor, same contract with TransportImpl and Decoder), then update SSHJ_VERSION");
    }
}
