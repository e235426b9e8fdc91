package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookups behind with_dict, with_fileglob and with_first_found, on a real directory tree. */
class LoopLookupsTest {
    @TempDir
    Path playbook;
    Path role;
    List<Path> files;
    List<Path> vars;

    @BeforeEach
    void tree() throws Exception {
        role = Files.createDirectories(playbook.resolve("roles/slurm"));
        Files.createDirectories(role.resolve("files/bin"));
        Files.createDirectories(role.resolve("vars"));
        Files.createDirectories(playbook.resolve("files"));
        for (String f : List.of("files/bin/prolog.sh", "files/bin/epilog.sh", "files/bin/README", "files/c.sh", "vars/ubuntu.yml",
                "vars/redhat.yml")) {
            Files.writeString(role.resolve(f), f);
        }
        Files.createDirectories(role.resolve("files/bin/sub.sh"));
        Files.writeString(playbook.resolve("files/site.sh"), "x");
        files = searchPath("files");
        vars = searchPath("vars");
    }

    private List<Path> searchPath(String kind) {
        return List.of(role.resolve(kind), role, playbook.resolve(kind), playbook);
    }

    @Test
    void dictGivesKeyAndValueInOrder() throws Exception {
        assertEquals(List.of(Map.of("key", "b", "value", 2), Map.of("key", "a", "value", 1)),
                LoopLookups.dict(new java.util.LinkedHashMap<>(Map.of("b", 2)) {{ put("a", 1); }}));
        assertThrows(LoopLookups.LookupException.class, () -> LoopLookups.dict(List.of("a")));
    }

    @Test
    void subelementsPairsEachElementWithItsSubItemsAndLeavesTheKeyOut() throws Exception {
        Map<String, Object> alice = Map.of("name", "alice", "keys", List.of("k1", "k2"));
        Map<String, Object> bob = Map.of("name", "bob");
        assertEquals(List.of(List.of(Map.of("name", "alice"), "k1"), List.of(Map.of("name", "alice"), "k2")),
                LoopLookups.subelements(List.of(List.of(alice, bob), "keys", Map.of("skip_missing", true))));
        LoopLookups.LookupException missing = assertThrows(LoopLookups.LookupException.class,
                () -> LoopLookups.subelements(List.of(List.of(alice, bob), "keys", Map.of("skip_missing", false))));
        assertTrue(missing.getMessage().contains("could not find 'keys'") && missing.getMessage().contains("{name}"), missing.getMessage());
        assertThrows(LoopLookups.LookupException.class, () -> LoopLookups.subelements(
                List.of(List.of(Map.of("keys", "k1")), "keys", Map.of("skip_missing", true))), "the key must name a list");
        assertEquals(List.of(List.of(Map.of("auth", Map.of()), "x")), LoopLookups.subelements(List.of(
                Map.of("a", Map.of("auth", Map.of("members", List.of("x")))), "auth.members", Map.of("skip_missing", false))),
                "a mapping of elements counts its values; a dotted path reaches inside");
        assertEquals(List.of(), LoopLookups.subelements(List.of(List.of(Map.of("skipped", true)), "keys", Map.of("skip_missing", false))),
                "an element registered as skipped adds nothing");
    }

    @Test
    void fileglobMatchesFilesOfOneDirectorySortedAndAbsolute() throws Exception {
        assertEquals(List.of(role.resolve("files/bin/epilog.sh").toString(), role.resolve("files/bin/prolog.sh").toString()),
                LoopLookups.fileglob(List.of("bin/*.sh"), files), "a directory named *.sh is not a match");
        assertEquals(List.of(role.resolve("files/c.sh").toString()), LoopLookups.fileglob(List.of("*.sh"), files),
                "the role's files/ is looked in first, and only the first directory that exists");
        assertEquals(List.of(playbook.resolve("files/site.sh").toString()),
                LoopLookups.fileglob(List.of(playbook.resolve("files") + "/*.sh"), files), "absolute pattern");
        assertEquals(List.of(), LoopLookups.fileglob(List.of("nowhere/*"), files), "no match adds nothing, as in Ansible");
    }

    @Test
    void firstFoundTakesTheFirstNameThatExistsUnderThePathsGiven() throws Exception {
        Map<String, Object> spec = Map.of("files", List.of("debian.yml", "ubuntu.yml", "redhat.yml"), "paths", List.of("../vars"));
        assertEquals(List.of(role.resolve("vars/ubuntu.yml").toString()), LoopLookups.firstFound(List.of(spec), vars));
        assertEquals(List.of(role.resolve("vars/redhat.yml").toString()), LoopLookups.firstFound(List.of("rocky.yml", "redhat.yml"), vars));
    }

    @Test
    void firstFoundWithNothingFoundFailsNamingWhereItLookedUnlessSkipIsSet() throws Exception {
        LoopLookups.LookupException e = assertThrows(LoopLookups.LookupException.class,
                () -> LoopLookups.firstFound(List.of("suse.yml"), vars));
        assertTrue(e.getMessage().contains(role.resolve("vars/suse.yml").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("skip: true"), e.getMessage());
        assertEquals(List.of(), LoopLookups.firstFound(List.of(Map.of("files", List.of("suse.yml"), "skip", true)), vars));
    }

    @Test
    void firstFoundLooksInTheDirectoryOfWhatTheModuleReads() {
        assertEquals("vars", LoopLookups.subdirectory("include_vars"));
        assertEquals("templates", LoopLookups.subdirectory("template"));
        assertEquals("files", LoopLookups.subdirectory("copy"));
    }
}
