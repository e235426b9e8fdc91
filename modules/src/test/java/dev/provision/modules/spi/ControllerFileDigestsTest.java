package dev.provision.modules.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.text.Sha256;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControllerFileDigestsTest {
    @TempDir
    Path tmp;

    @Test
    void aLargeFileHasTheDigestJavaGivesIt() throws Exception {
        byte[] bytes = new byte[(int) ControllerFileDigests.NATIVE_FROM + 12345];
        new Random(7).nextBytes(bytes);
        Path file = Files.write(tmp.resolve("big.bin"), bytes);
        assertEquals(Sha256.hex(bytes), ControllerFileDigests.sha256(file));
    }

    @Test
    void eachProgramThatHashesGivesTheSameDigest() throws Exception {
        byte[] bytes = "a file with a space in its name\n".getBytes();
        Path file = Files.write(tmp.resolve("a -name"), bytes);
        for (List<String> program : List.of(List.of("/usr/bin/openssl", "dgst", "-sha256", "-r"), List.of("/usr/bin/sha256sum", "-b"))) {
            if (Files.isExecutable(Path.of(program.getFirst()))) {
                assertEquals(Optional.of(Sha256.hex(bytes)), ControllerFileDigests.natively(program, file), program.toString());
            }
        }
    }

    @Test
    void aProgramThatIsMissingFailsOrSaysSomethingElseGivesNoDigest() throws Exception {
        Path file = Files.writeString(tmp.resolve("f"), "x");
        assertTrue(ControllerFileDigests.natively(List.of("/nonexistent/sha256"), file).isEmpty());
        assertTrue(ControllerFileDigests.natively(List.of("/bin/false"), file).isEmpty());
        assertTrue(ControllerFileDigests.natively(List.of("/bin/echo", "not-a-digest"), file).isEmpty());
    }
}
