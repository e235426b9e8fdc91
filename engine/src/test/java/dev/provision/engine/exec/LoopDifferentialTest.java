package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.engine.cli.ProvisionCommand;
import dev.provision.engine.e2e.Launched;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loop lookups against Ansible itself: {@code loops/subelements.yml} (written in Jinja) runs through
 * the real {@code ansible-playbook -c local}; a copy, translated by {@code provision migrate --write},
 * runs through provision; both must leave the same lines in the same order. Skipped where Ansible is
 * not installed.
 */
class LoopDifferentialTest {
    private static final Path FIXTURE = Path.of("src/test/resources/loops/subelements.yml");
    private static final String VARS = """
            {"users": [
               {"username": "alice", "ssh_key": ["ssh-ed25519 AAAA1", "ssh-rsa BBBB2"], "shell": "/bin/bash"},
               {"username": "bob"},
               {"username": "carol", "ssh_key": []},
               {"username": "dan", "ssh_key": ["ssh-ed25519 CCCC3"]}],
             "teams": {"b": {"name": "ops", "auth": {"members": ["x", "y"]}},
                       "a": {"name": "dev", "auth": {"members": ["z"]}}}}
            """;

    @TempDir
    Path tmp;

    @Test
    void withSubelementsGivesTheItemsAnsibleGives() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/ansible-playbook")), "ansible-playbook is not installed (Debian: ansible-core)");
        Path vars = Files.writeString(tmp.resolve("vars.json"), VARS);
        Path original = Files.copy(FIXTURE, tmp.resolve("original.yml"));
        Path migrated = Files.copy(FIXTURE, tmp.resolve("migrated.yml"));
        assertEquals(0, provision("migrate", "--write", migrated.toString()), out.toString(StandardCharsets.UTF_8));

        Path byAnsible = Files.createDirectories(tmp.resolve("ansible"));
        ProcessBuilder pb = new ProcessBuilder("ansible-playbook", "-i", "localhost,", "-c", "local", "-e", "@" + vars,
                "-e", "out=" + byAnsible, original.toString()).redirectErrorStream(true);
        pb.environment().put("HOME", tmp.toString());
        pb.environment().put("ANSIBLE_LOCAL_TEMP", tmp.resolve("ansible-tmp").toString());
        pb.environment().put("ANSIBLE_NOCOLOR", "1");
        Launched.Output ansible = Launched.run(pb, Duration.ofMinutes(3));
        assertEquals(0, ansible.exitCode(), ansible.stdout());

        Path byProvision = Files.createDirectories(tmp.resolve("provision"));
        assertEquals(0, provision("-i", "localhost,", "-e", "@" + vars, "-e", "out=" + byProvision, migrated.toString()),
                out.toString(StandardCharsets.UTF_8) + "\nmigrated:\n" + Files.readString(migrated));

        for (String file : new String[] {"keys.txt", "teams.txt"}) {
            assertEquals(Files.readString(byAnsible.resolve(file)), Files.readString(byProvision.resolve(file)),
                    file + "\nmigrated:\n" + Files.readString(migrated));
        }
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int provision(String... args) {
        out.reset();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return ProvisionCommand.execute(args, print, print);
    }
}
