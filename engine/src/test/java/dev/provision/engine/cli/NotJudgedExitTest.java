package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Not ready" and "could not judge" are two exit codes: against this machine (local connection), a
 * check whose tool is missing ({@code dcgm_diag} with no such dcgmi) gives an UNKNOWN row, which
 * fails nothing, exits {@link ExitCode#NOT_JUDGED} and is named after the recap; a failing task
 * still wins with {@link ExitCode#HOST_FAILED}.
 */
class NotJudgedExitTest {
    /** A program no machine has: the probe cannot run. */
    private static final String NO_DCGMI = "provision-test-no-such-dcgmi";

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    private Path playbook(String more) throws Exception {
        return Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - name: DCGM
                      dcgm_diag:
                        tier: quick
                        dcgmi: %s
                %s""".formatted(NO_DCGMI, more));
    }

    @Test
    void aCheckThatCouldNotRunExitsNotJudgedAndSaysWhichOnWhichHost() throws Exception {
        Path report = tmp.resolve("report.html");
        int code = run("-i", "localhost,", "--report", report.toString(), playbook("").toString());
        assertEquals(ExitCode.NOT_JUDGED.code(), code, output());
        assertEquals(8, code, "documented in --help, the man page and the README");
        assertTrue(output().contains("dcgm.diag  -         -         unknown  could not run: dcgmi not installed"), output());
        assertTrue(output().contains("failed=0"), "UNKNOWN fails nothing:\n" + output());
        assertTrue(output().contains("Could not judge (UNKNOWN: a check could not run; not a pass): localhost: dcgm.diag"), output());
        String page = Files.readString(report);
        assertTrue(page.contains("<span class=\"chip v-unknown\">1 unknown</span>"), "the page counts it");
        assertTrue(page.contains("<h1>NOT JUDGED: 1 of 1 nodes have checks that could not run</h1>"), "never READY");
    }

    @Test
    void aFailureStillWinsAsNotReady() throws Exception {
        int code = run("-i", "localhost,", playbook("""
                    - name: not ready
                      fail: {msg: a planted failure}
                """).toString());
        assertEquals(ExitCode.HOST_FAILED.code(), code, output());
        assertTrue(output().contains("Could not judge (UNKNOWN: a check could not run; not a pass): localhost: dcgm.diag"), output());
    }

    @Test
    void preflightSaysNoCheckFailedButNamesTheUnjudgedOnes() throws Exception {
        Path preflight = Path.of("").toAbsolutePath().getParent().resolve("playbooks/preflight.yml");
        assumeTrue(Files.isRegularFile(preflight), "run from the repository's engine/ module");
        int code = run("-i", "localhost,", preflight.toString(), "-e", "preflight_checks=dcgm", "-e", "dcgmi_path=" + NO_DCGMI);
        assertEquals(ExitCode.NOT_JUDGED.code(), code, output());
        assertTrue(output().contains("ok: [localhost] => no check failed, but these could not be judged (unknown): dcgm.diag"), output());
    }
}
