package dev.provision.engine.playbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.InvalidInputException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a YAML document may cost its readers: aliases, nesting, size (the files of MalformedPlaybookTest show the rest). */
class YamlDocumentLimitsTest {
    private static final Path FILE = Path.of("vars.yml");

    @Test
    void doublingAliasesAreRefusedBeforeAnyoneExpandsThem() {
        StringBuilder text = new StringBuilder("l0: &l0 [lol, lol]\n");
        for (int i = 1; i <= 40; i++) { // 2^40 values: would run for hours
            text.append("l").append(i).append(": &l").append(i).append(" [*l").append(i - 1).append(", *l").append(i - 1).append("]\n");
        }
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(InvalidInputException.class, () -> YamlDocument.parse(FILE, text.toString())));
        assertEquals("vars.yml:19:6: aliases here expand to more than 1000000 values (a 'billion laughs'?); "
                + "write the values out or use fewer aliases", e.getMessage());
    }

    @Test
    void mergedMappingsThatMergeEachOtherTwiceAreCountedToo() {
        StringBuilder text = new StringBuilder("m0: &m0 {a: 1, b: 2}\n");
        for (int i = 1; i <= 30; i++) { // each level nests two deeper (a mapping, a list): 30 stay within 64
            text.append("m").append(i).append(": &m").append(i).append(" {<<: [*m").append(i - 1).append(", *m").append(i - 1)
                    .append("]}\n");
        }
        InvalidInputException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(InvalidInputException.class, () -> YamlDocument.parse(FILE, text.toString())));
        assertTrue(e.getMessage().contains("aliases here expand to more than 1000000 values"), e.getMessage());
    }

    @Test
    void hundredsOfHostsMayShareDefaults() throws Exception {
        StringBuilder text = new StringBuilder("defaults: &defaults {ansible_user: root, ansible_port: 22}\nhosts:\n");
        for (int i = 0; i < 2000; i++) {
            text.append("  node").append(i).append(": {<<: *defaults, ansible_host: 10.0.").append(i / 250).append('.')
                    .append(i % 250).append("}\n");
        }
        YamlDocument doc = YamlDocument.parse(FILE, text.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> hosts = (Map<String, Object>) doc.mapping(doc.root().orElseThrow(), "vars").get("hosts");
        assertEquals(2000, hosts.size());
        assertEquals(Map.of("ansible_user", "root", "ansible_port", 22, "ansible_host", "10.0.7.249"), hosts.get("node1999"));
    }

    @Test
    void recursiveAliasInAFlowListIsRefused() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> YamlDocument.parse(FILE, "a: &a [1, [2, *a]]\n"));
        assertEquals("vars.yml:1:11: this alias refers to a value that contains it (a recursive alias); remove it", e.getMessage());
    }

    @Test
    void sharedValuesThatDoNotRecurseAreFine() throws Exception {
        YamlDocument doc = YamlDocument.parse(FILE, "a: &a [1, 2]\nb: [*a, *a]\n");
        assertEquals(Map.of("a", List.of(1, 2), "b", List.of(List.of(1, 2), List.of(1, 2))),
                doc.mapping(doc.root().orElseThrow(), "vars"));
    }

    @Test
    void longerThanFourMebibytesIsRefused() {
        String text = "a: \"" + "123456789 ".repeat(450_000) + "\"\nb: 1\n";
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> YamlDocument.parse(FILE, text));
        assertEquals("vars.yml:1:4: invalid YAML: the document is longer than 4 Mi characters", e.getMessage());
    }

    @Test
    void readingStopsWhenItsTimeIsUp() {
        TimedReader reader = new TimedReader("a: 1\n", Duration.ofNanos(-1));
        assertThrows(TimedReader.OutOfTime.class, () -> reader.read(new char[10], 0, 10));
    }

    @Test
    void controlCharactersInValuesAreEscapedInMessages() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> PlaybookLoader.load(
                write("- hosts: all\n  become: \"yes\\e[2J\"\n"), new FakeCatalog()));
        assertTrue(e.getMessage().endsWith("'become' must be true or false, not a string ('yes\\u001b[2J')"), e.getMessage());
    }

    private static Path write(String text) throws Exception {
        Path file = java.nio.file.Files.createTempFile("playbook", ".yml");
        file.toFile().deleteOnExit();
        return java.nio.file.Files.writeString(file, text);
    }
}
