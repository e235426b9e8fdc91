package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ansible's quad for every module, through the real launcher against this machine: check (would
 * change, target untouched), apply (changed), check (no change), apply (no change). One small
 * playbook per case under {@code e2e/quad/}; each writes under {@code -e dir=...}, which starts with
 * a seed file {@code seed.txt} (mode 0644) for the cases that edit or remove an existing file.
 */
class QuadIT {
    static final Path QUAD = Provision.REPO.resolve("engine/src/test/resources/e2e/quad");
    static final Path CONTROL = Provision.REPO.resolve("engine/src/test/resources/e2e/control");
    static final String SEED = "# seed\nmax_open_files=1024\n";

    @TempDir
    Path tmp;

    static Stream<String> cases() throws IOException {
        try (Stream<Path> files = Files.list(QUAD)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yml"))
                    .map(n -> n.substring(0, n.length() - 4)).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void checkApplyCheckApply(String name) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve(name));
        Path seed = dir.resolve("seed.txt");
        Files.writeString(seed, SEED);
        Files.setPosixFilePermissions(seed, PosixFilePermissions.fromString("rw-r--r--"));
        String playbook = QUAD.resolve(name + ".yml").toString();
        String fresh = Provision.treeDigest(dir);

        Provision.Result check = Provision.run("--check", "--diff", playbook, "-e", "dir=" + dir);
        assertEquals(0, check.exitCode(), check.output());
        assertEquals(1, check.recap("localhost", "changed"), "check must forecast a change:\n" + check.output());
        assertEquals(fresh, Provision.treeDigest(dir), "check mode must leave the target untouched:\n" + check.output());

        Provision.Result apply = Provision.run(playbook, "-e", "dir=" + dir);
        assertEquals(0, apply.exitCode(), apply.output());
        assertEquals(1, apply.recap("localhost", "changed"), apply.output());
        String converged = Provision.treeDigest(dir);
        assertNotEquals(fresh, converged, "apply must change the target");

        Provision.Result recheck = Provision.run("--check", playbook, "-e", "dir=" + dir);
        assertEquals(0, recheck.exitCode(), recheck.output());
        assertEquals(0, recheck.recap("localhost", "changed"), "check after apply must find nothing to do:\n" + recheck.output());

        Provision.Result reapply = Provision.run(playbook, "-e", "dir=" + dir);
        assertEquals(0, reapply.exitCode(), reapply.output());
        assertEquals(0, reapply.recap("localhost", "changed"), "a second apply must change nothing:\n" + reapply.output());
        assertEquals(converged, Provision.treeDigest(dir), "a second apply must leave the target as it was");
    }

    @Test
    void controlModulesChangeNothingInAnyOfTheFourRuns() throws Exception {
        String playbook = CONTROL.resolve("quiet.yml").toString();
        for (String mode : new String[] {"--check", "--diff", "--check", "--diff"}) {
            Provision.Result r = Provision.run(mode, playbook);
            assertEquals(0, r.exitCode(), r.output());
            assertEquals(0, r.recap("localhost", "changed"), r.output());
            assertEquals(4, r.recap("localhost", "ok"), r.output());
            assertTrue(r.output().contains("ok: [localhost] => the answer is 42"), r.output());
        }
    }

    @Test
    void failEndsTheRunWithExitTwoAndItsMessage() throws Exception {
        for (String mode : new String[] {"--check", "--diff"}) {
            Provision.Result r = Provision.run(mode, CONTROL.resolve("fail.yml").toString());
            assertEquals(2, r.exitCode(), r.output());
            assertTrue(r.output().contains("failed: [localhost] => stop here: the disk is full"), r.output());
            assertEquals(1, r.recap("localhost", "failed"), r.output());
        }
    }

    /** {@code tempfile} always changes, so it has no quad: a dry run makes nothing, each run a new file. */
    @Test
    void tempfileMakesANewFileOnEveryRunAndRegistersItsPath() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("tempfile"));
        String playbook = CONTROL.resolve("tempfile.yml").toString();
        Provision.Result check = Provision.run("--check", "--diff", playbook, "-e", "dir=" + dir);
        assertEquals(0, check.exitCode(), check.output());
        assertEquals(2, check.recap("localhost", "changed"), check.output());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count(), "check mode must make nothing:\n" + check.output());
        }
        for (int run = 1; run <= 2; run++) {
            Provision.Result apply = Provision.run(playbook, "-e", "dir=" + dir);
            assertEquals(0, apply.exitCode(), apply.output());
            Path made = Path.of(Files.readString(dir.resolve("made.txt")).strip());
            assertEquals(dir, made.getParent(), apply.output());
            assertTrue(made.getFileName().toString().matches("t\\.\\w{8}\\.conf"), made.toString());
            assertTrue(Files.isRegularFile(made), made.toString());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
            try (Stream<Path> files = Files.list(dir)) {
                assertEquals(run + 1, files.count(), "one new temporary file per run");
            }
        }
    }
}
