package dev.provision.engine.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TextFilesTest {
    @TempDir
    Path tmp;

    @Test
    void endlessDeviceIsRefusedAfterTheLimitNotReadToTheEnd() {
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(InvalidInputException.class, () -> TextFiles.read(Path.of("/dev/zero"), "extra-vars")));
        assertEquals("/dev/zero: extra-vars file is larger than 4 MiB; is it the right file?", e.getMessage());
    }

    @Test
    void invalidUtf8IsReportedWithLineColumnAndByteOffset() throws Exception {
        Path file = Files.write(tmp.resolve("site.yml"), "a: 1\nb: \"caf\u00e9 \u00ff\" \u0000\n".getBytes(StandardCharsets.ISO_8859_1));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> TextFiles.read(file, "playbook"));
        assertEquals(file + ":2:8: playbook file is not valid UTF-8: byte 0xe9 at byte offset 12; save the file as UTF-8",
                e.getMessage());
    }

    @Test
    void columnsCountCharactersNotBytes() throws Exception {
        byte[] text = "k: \"\u00e9\ud83d\ude00".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = java.util.Arrays.copyOf(text, text.length + 1);
        bytes[text.length] = (byte) 0xc3; // a first byte with nothing after it
        Path file = Files.write(tmp.resolve("vars.yml"), bytes);
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> TextFiles.read(file, "vars"));
        assertEquals(file + ":1:7: vars file is not valid UTF-8: byte 0xc3 at byte offset 10; save the file as UTF-8",
                e.getMessage());
    }

    @Test
    void byteOrderMarkIsDropped() throws Exception {
        Path file = Files.write(tmp.resolve("bom.yml"), "\ufeffa: 1\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("a: 1\n", TextFiles.read(file, "vars"));
    }

    @Test
    void missingFileAndDirectoryAreNamed() throws Exception {
        assertEquals(tmp.resolve("nope.yml") + ": playbook file not found", assertThrows(InvalidInputException.class,
                () -> TextFiles.read(tmp.resolve("nope.yml"), "playbook")).getMessage());
        assertEquals(tmp + ": cannot read inventory file: Is a directory", assertThrows(InvalidInputException.class,
                () -> TextFiles.read(tmp, "inventory")).getMessage());
    }
}
