package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The git module through the real launcher against a real repository on this machine: the quad, a new commit, a dirty checkout. */
class GitModuleIT {
    @TempDir
    Path tmp;

    private void git(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString(), "-c", "user.name=t", "-c", "user.email=t@t"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", command) + "\n" + out);
    }

    @Test
    void clonesOnceFollowsTheBranchAndRefusesToDiscardLocalChanges() throws Exception {
        Path source = Files.createDirectories(tmp.resolve("source"));
        git(source, "init", "-q", "-b", "main");
        Files.writeString(source.resolve("README"), "one\n");
        git(source, "add", "README");
        git(source, "commit", "-q", "-m", "one");
        Path dest = tmp.resolve("work/checkout");
        Path playbook = tmp.resolve("git.yml");
        Files.writeString(playbook, """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - git:
                        repo: "file://${source}"
                        dest: "${dest}"
                        version: main
                """);
        String[] vars = {"-e", "source=" + source, "-e", "dest=" + dest};
        Provision.Result check = Provision.run(concat("--check", playbook.toString(), vars));
        assertEquals(1, check.recap("localhost", "changed"), check.output());
        assertFalse(Files.exists(dest), "check mode must not clone");
        Provision.Result apply = Provision.run(concat(playbook.toString(), vars));
        assertEquals(1, apply.recap("localhost", "changed"), apply.output());
        assertEquals("one\n", Files.readString(dest.resolve("README")));
        assertFalse(Files.exists(tmp.resolve("work/checkout.provision-clone")), "no clone left beside dest");
        assertEquals(0, Provision.run(concat("--check", playbook.toString(), vars)).recap("localhost", "changed"));
        assertEquals(0, Provision.run(concat(playbook.toString(), vars)).recap("localhost", "changed"));

        Files.writeString(source.resolve("README"), "two\n");
        git(source, "commit", "-q", "-am", "two");
        Provision.Result moved = Provision.run(concat(playbook.toString(), vars));
        assertEquals(1, moved.recap("localhost", "changed"), moved.output());
        assertTrue(moved.output().contains("move " + dest + " from "), moved.output());
        assertEquals("two\n", Files.readString(dest.resolve("README")));

        Files.writeString(source.resolve("README"), "three\n");
        git(source, "commit", "-q", "-am", "three");
        Files.writeString(dest.resolve("README"), "edited here\n");
        Provision.Result dirty = Provision.run(concat(playbook.toString(), vars));
        assertEquals(2, dirty.exitCode(), dirty.output());
        assertTrue(dirty.output().contains("has local modifications"), dirty.output());
        assertEquals("edited here\n", Files.readString(dest.resolve("README")), "nothing discarded without force");
    }

    private static String[] concat(String first, String... rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    private static String[] concat(String first, String second, String... rest) {
        List<String> all = new ArrayList<>(List.of(first, second));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }
}
