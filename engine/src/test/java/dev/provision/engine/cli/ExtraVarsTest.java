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
    void wordWithoutEqualsIsRefused() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> ExtraVars.parse(List.of("novalue")));
        assertTrue(e.getMessage().contains("expected key=value"), e.getMessage());
    }
}
