package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each document is run by the real {@code /bin/sh} with the real {@code base64} and {@code gzip}. */
class StdinDocumentsTest {
    @TempDir
    Path work;

    /** What {@code /bin/sh} leaves in {@code $__pv_d/i} after running {@code document}. */
    private byte[] decoded(byte[] document) throws Exception {
        Process sh = new ProcessBuilder("/bin/sh", "-s").redirectErrorStream(true).start();
        sh.getOutputStream().write(("__pv_d='" + work + "'\n").getBytes(StandardCharsets.UTF_8));
        sh.getOutputStream().write(document);
        sh.getOutputStream().close();
        String said = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(sh.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, sh.exitValue(), said);
        Path file = work.resolve("i");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        byte[] bytes = Files.readAllBytes(file);
        Files.delete(file);
        return bytes;
    }

    /** A known_hosts-like text: fixed words and random key material. Its length is this test's own. */
    private static byte[] knownHosts(int lines, long seed) {
        Random random = new Random(seed);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            byte[] key = new byte[32];
            random.nextBytes(key);
            text.append("node").append(i).append(",10.0.0.").append(i % 250).append(" ssh-ed25519 ")
                    .append(java.util.Base64.getEncoder().encodeToString(key)).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aLargerInputSentAgainIsCompressedAndArrivesWhole() throws Exception {
        byte[] content = knownHosts(1009, 1);
        byte[] first = StdinDocuments.of(content, true);
        byte[] again = StdinDocuments.of(content.clone(), true);
        assertArrayEquals(content, decoded(first));
        assertArrayEquals(content, decoded(again));
        assertTrue(again.length < first.length * 2 / 3, first.length + " then " + again.length + " bytes");
        assertTrue(StdinDocuments.of(content, true) == StdinDocuments.of(content, true), "built once, then reused");
    }

    @Test
    void aHostWithoutGzipAlwaysGetsBase64() throws Exception {
        byte[] content = knownHosts(1013, 2);
        byte[] first = StdinDocuments.of(content, false);
        byte[] again = StdinDocuments.of(content, false);
        assertEquals(first.length, again.length);
        assertArrayEquals(content, decoded(again));
    }

    @Test
    void anInputOfTheSameLengthThatDiffersIsSentAsItself() throws Exception {
        byte[] content = knownHosts(1019, 3);
        byte[] other = content.clone();
        other[other.length - 2] ^= 1;
        StdinDocuments.of(content, true);
        StdinDocuments.of(content, true);
        assertArrayEquals(other, decoded(StdinDocuments.of(other, true)));
        assertArrayEquals(other, decoded(StdinDocuments.of(other, true)));
        assertArrayEquals(content, decoded(StdinDocuments.of(content, true)));
    }

    @Test
    void changingTheArrayAfterSendingItDoesNotChangeWhatIsSentForIt() throws Exception {
        byte[] content = knownHosts(1021, 4);
        byte[] original = content.clone();
        StdinDocuments.of(content, true);
        content[0] = 'X';
        assertArrayEquals(content, decoded(StdinDocuments.of(content, true)));
        assertArrayEquals(original, decoded(StdinDocuments.of(original, true)));
    }

    @Test
    void smallAndBinaryInputsArriveWhole() throws Exception {
        byte[] every = ConnectionContract.everyByteValue(StdinDocuments.MIN_SIZE + 3);
        for (byte[] content : new byte[][] {"x".getBytes(), every, ConnectionContract.everyByteValue(StdinDocuments.MIN_SIZE - 1)}) {
            assertArrayEquals(content, decoded(StdinDocuments.of(content, true)));
            assertArrayEquals(content, decoded(StdinDocuments.of(content, true)));
        }
    }
}
