package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    /**
     * Run by a user other than root, consecutive tasks that make a file and then edit it (planned
     * together, applied in one exchange) leave it that user's: the edit once gave it to root (chown
     * refused, the run failed).
     */
    @Test
    void consecutiveEditsOfAFileMadeByAnotherUserKeepItTheirs() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs the launcher as nobody: needs root");
        assumeTrue(new ProcessBuilder("runuser", "-u", "nobody", "--", "test", "-r", Provision.REPO.resolve("engine/target/provision.jar").toString())
                .start().waitFor() == 0, "nobody cannot read this checkout");
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Path playbook = Files.writeString(tmp.resolve("edits.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - copy: {dest: "%1$s/out/a.conf", content: "a = 1\\n"}
                    - lineinfile: {path: "%1$s/out/a.conf", line: "b = 2"}
                    - blockinfile: {path: "%1$s/out/a.conf", block: "c = 3"}
                """.formatted(tmp));
        Files.createDirectories(tmp.resolve("out"));
        Files.setPosixFilePermissions(tmp.resolve("out"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        ProcessBuilder pb = new ProcessBuilder("runuser", "-u", "nobody", "--", "env", "HOME=" + tmp, "PROVISION_FACT_CACHE=" + tmp + "/facts",
                Provision.LAUNCHER, playbook.toString()).directory(tmp.toFile()).redirectErrorStream(true);
        Process run = pb.start();
        String output = new String(run.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, run.waitFor(), output);
        assertEquals("a = 1\nb = 2\n# BEGIN ANSIBLE MANAGED BLOCK\nc = 3\n# END ANSIBLE MANAGED BLOCK\n", Files.readString(tmp.resolve("out/a.conf")));
        assertEquals("nobody", Files.getOwner(tmp.resolve("out/a.conf")).getName());
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
