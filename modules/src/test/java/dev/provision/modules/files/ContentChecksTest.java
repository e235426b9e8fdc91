package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** validate and backup ride on the plan's file writes, for the engine to honour in the same step. */
class ContentChecksTest {
    @TempDir
    Path controller;

    private Command.PutFile onlyPut(Plan plan) {
        List<Command> commands = plan.changes().stream().flatMap(c -> c.commands().stream()).toList();
        assertEquals(1, commands.size(), commands.toString());
        return (Command.PutFile) commands.getFirst();
    }

    @Test
    void validateIsSplitIntoWordsWithTheFilePlaceholderKept() {
        FakeHost host = new FakeHost().file("/etc/sudoers", "root ALL=(ALL) ALL\n");
        Plan plan = Expect.check(new LineInFileModule(), new FakeContext(host, controller),
                Args.of("path", "/etc/sudoers", "line", "%wheel ALL=(ALL) ALL", "validate", "/usr/sbin/visudo -cf '%s'"),
                Expect.planned("put /etc/sudoers [0644 root root] \"root ALL=(ALL) ALL\\n%wheel ALL=(ALL) ALL\\n\""));
        assertEquals(List.of("/usr/sbin/visudo", "-cf", "%s"), onlyPut(plan).validate());
    }

    @Test
    void backupIsAskedOfTheWrite() {
        FakeHost host = new FakeHost().file("/etc/hosts", "a\n");
        Plan plan = Expect.check(new BlockInFileModule(), new FakeContext(host, controller),
                Args.of("path", "/etc/hosts", "block", "b", "backup", true),
                Expect.planned("put /etc/hosts [0644 root root] \"a\\n# BEGIN ANSIBLE MANAGED BLOCK\\nb\\n# END ANSIBLE MANAGED BLOCK\\n\""));
        assertTrue(onlyPut(plan).backup());
    }

    @Test
    void aConvergedFileNeedsNeitherCheckNorBackup() {
        FakeHost host = new FakeHost().file("/etc/motd", "hi\n");
        Expect.check(new CopyModule(), new FakeContext(host, controller),
                Args.of("dest", "/etc/motd", "content", "hi\n", "validate", "true %s", "backup", true),
                Expect.converged("/etc/motd already has the wanted content"));
    }

    @Test
    void validateWithoutThePlaceholderIsRefused() {
        FakeHost host = new FakeHost().file("/etc/motd", "old\n");
        Expect.check(new CopyModule(), new FakeContext(host, controller),
                Args.of("dest", "/etc/motd", "content", "hi\n", "validate", "true"), fails("validate must contain %s"));
    }
}
