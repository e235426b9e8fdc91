package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExtraVarsTest {
    @TempDir
    Path tmp;

    @Test
    void keyValuePairsWithQuotes() throws Exception {
        assertEquals(Map.of("a", "1", "b", "two words"), ExtraVars.parse(List.of("a=1 b='two words'")));
    }

    @Test
    void inlineJsonKeepsTypes() throws Exception {
        assertEquals(Map.of("n", 3, "l", List.of("x", "y")), ExtraVars.parse(List.of("{\"n\": 3, \"l\": [\"x\", \"y\"]}")));
    }

    @Test
    void fileAndLaterValuesWin() throws Exception {
        Path f = tmp.resolve("vars.yml");
        Files.writeString(f, "a: from-file\nb: 2\n");
        assertEquals(Map.of("a", "cli", "b", 2), ExtraVars.parse(List.of("@" + f, "a=cli")));
    }

    @Test
    void malformedYamlNamesLineAndColumn() {
        Path f = tmp.resolve("bad.yml");
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> {
            Files.writeString(f, "a: [1, 2\n");
            ExtraVars.parse(List.of("@" + f));
        });
        assertTrue(e.getMessage().startsWith(f + ":2:1: malformed extra vars"), e.getMessage());
    }

    @Test
    void unterminatedQuoteIsTheUsersMistake() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("a='unterminated")));
        assertEquals("<command line>: -e 'a='unterminated': unterminated single quote at column 3; quote the value whole, "
                + "or put the variables in a file and give -e @FILE", e.getMessage());
    }

    @Test
    void endlessFileIsRefused() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("@/dev/zero")));
        assertEquals("/dev/zero: extra-vars file is larger than 4 MiB; is it the right file?", e.getMessage());
    }

    @Test
    void inlineYamlIsBoundedLikeFiles() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("{a: &a [1, *a]}")));
        assertEquals("-e:1:5: malformed extra vars: this alias refers to a value that contains it (a recursive alias); remove it",
                e.getMessage());
    }

    @Test
    void invalidUtf8InAFileIsPlaced() throws Exception {
        Path f = Files.write(tmp.resolve("vars.yml"), new byte[] {'a', ':', ' ', (byte) 0xff, '\n'});
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("@" + f)));
        assertEquals(f + ":1:4: malformed extra vars: extra-vars file is not valid UTF-8: byte 0xff at byte offset 3; "
                + "save the file as UTF-8", e.getMessage());
    }

    @Test
    void yamlValuesFollowThePlaybooksRules() throws Exception {
        assertEquals(Map.of("mode", "0644", "on", true), ExtraVars.parse(List.of("{mode: 0644, on: yes}")));
    }

    @Test
    void wordWithoutEqualsIsRefused() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("novalue")));
        assertTrue(e.getMessage().contains("expected key=value"), e.getMessage());
    }
}
