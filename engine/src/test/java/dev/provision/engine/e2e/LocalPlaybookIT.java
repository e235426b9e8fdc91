package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bundled demo playbook against this machine, through the local connection and the real launcher. */
class LocalPlaybookIT {
    @TempDir
    Path tmp;

    @Test
    void convergesThenReportsNoChangesOnSecondRun() throws Exception {
        Path target = tmp.resolve("demo");
        Provision.Result first = Provision.run("playbooks/demo.yml", "-e", "target=" + target);
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(first.recap("localhost", "changed") >= 8, first.output());
        assertTrue(first.output().contains("RUNNING HANDLER [note the change]"), first.output());
        assertEquals("node.conf was (re)written\n", Files.readString(target.resolve("changes.log")));
        assertTrue(Files.readString(target.resolve("node.conf")).contains("services = chrony, sshd, nfs"));
        assertTrue(Files.isDirectory(target.resolve("nfs")));

        Provision.Result second = Provision.run("playbooks/demo.yml", "-e", "target=" + target);
        assertEquals(0, second.exitCode(), second.output());
        assertEquals(0, second.recap("localhost", "changed"), second.output());
        assertFalse(second.output().contains("RUNNING HANDLER"), second.output());
    }

    @Test
    void checkDiffOnFreshDirectoryShowsDiffsAndChangesNothing() throws Exception {
        Path target = tmp.resolve("fresh");
        Files.createDirectories(target);
        String before = Provision.treeDigest(target);
        Provision.Result check = Provision.run("--check", "--diff", "playbooks/demo.yml", "-e", "target=" + target + "/x");
        assertEquals(0, check.exitCode(), check.output());
        assertTrue(check.output().contains("+++ after: " + target + "/x/README"), check.output());
        assertTrue(check.output().contains("+max_open_files=65535"), check.output());
        assertEquals(before, Provision.treeDigest(target), "check mode must not touch the target");
    }

    @Test
    void forecastOfCheckEqualsWhatApplyReports() throws Exception {
        Path target = tmp.resolve("forecast");
        Provision.Result check = Provision.run("--check", "playbooks/demo.yml", "-e", "target=" + target);
        Provision.Result apply = Provision.run("playbooks/demo.yml", "-e", "target=" + target);
        assertEquals(0, apply.exitCode(), apply.output());
        assertEquals(changedTasks(check.output()), changedTasks(apply.output()));
        assertEquals(check.recap("localhost", "changed"), apply.recap("localhost", "changed"));
    }

    @Test
    void detailedExitCodesTellCiThatChangesArePending() throws Exception {
        Path target = tmp.resolve("ci");
        Provision.Result pending = Provision.run("--check", "--detailed-exitcodes", "playbooks/demo.yml", "-e", "target=" + target);
        assertEquals(6, pending.exitCode(), pending.output());
        Provision.run("playbooks/demo.yml", "-e", "target=" + target);
        Provision.Result clean = Provision.run("--check", "--detailed-exitcodes", "playbooks/demo.yml", "-e", "target=" + target);
        assertEquals(0, clean.exitCode(), clean.output());
    }

    /** The list of "TASK [x]" headers followed by a changed line, in order. */
    private static String changedTasks(String output) {
        StringBuilder sb = new StringBuilder();
        String task = "";
        Matcher m = Pattern.compile("(?m)^(?:TASK|RUNNING HANDLER) \\[(.*)\\]|^changed: \\[(.*?)\\]").matcher(output);
        while (m.find()) {
            if (m.group(1) != null) {
                task = m.group(1);
            } else {
                sb.append(task).append(" @ ").append(m.group(2)).append('\n');
            }
        }
        return sb.toString();
    }
}
