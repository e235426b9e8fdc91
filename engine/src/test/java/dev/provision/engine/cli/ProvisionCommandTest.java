package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command in process, with captured streams (the launcher-level behaviour is in the e2e CliIT). */
class ProvisionCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private Path playbook() throws Exception {
        return Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - debug:
                        msg: "answer=${answer}"
                """);
    }

    @Test
    void theChangedKeyHintNamesAFewHostsAndCountsMany() {
        assertEquals("node01, node02", ProvisionCommand.namesInBrief(List.of("node01", "node02")));
        List<String> five = List.of("n1", "n2", "n3", "n4", "n5");
        assertEquals("n1, n2, n3, n4, n5", ProvisionCommand.namesInBrief(five));
        List<String> rack = java.util.stream.IntStream.rangeClosed(1, 1000).mapToObj(i -> "node" + i).toList();
        assertEquals("1000 hosts (node1, node2, node3, node4 and 996 more, all named in the command below)",
                ProvisionCommand.namesInBrief(rack));
    }

    @Test
    void extraVarsFileIsOursNotAPicocliArgumentFile() throws Exception {
        Path vars = Files.writeString(tmp.resolve("vars.yml"), "answer: 42\n");
        int code = run(playbook().toString(), "-e", "@" + vars);
        assertEquals(0, code, out + "\n" + err);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("ok: [localhost] => answer=42"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void askBecomePassWithoutATerminalIsAUsageErrorThatNamesTheVariable() throws Exception {
        int code = run("-K", playbook().toString(), "-e", "answer=1");
        assertEquals(ExitCode.USAGE.code(), code);
        assertEquals("ERROR: -K asks for the sudo password on a terminal, and there is none; set PROVISION_BECOME_PASSWORD instead\n",
                err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void saysInOneWarningWhichFilesOfAnInventoryDirectoryItSkipped() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("inventory"));
        Files.writeString(dir.resolve("hosts"), "[local]\nlocalhost\n");
        Files.writeString(dir.resolve("old.ini"), "[old]\nnode9\n");
        Files.writeString(dir.resolve("README.md"), "# the lab\n");
        int code = run("--list-hosts", "-i", dir.toString(), playbook().toString());
        assertEquals(0, code, out + "\n" + err);
        assertEquals("[WARNING]: inventory: skipped what is not an inventory: " + dir.resolve("README.md") + " (Ansible ignores"
                + " '.md' files in an inventory directory), " + dir.resolve("old.ini") + " (Ansible ignores '.ini' files in an"
                + " inventory directory; give it with its own -i to read it)\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertEquals(ExitCode.USAGE.code(), run("--nope", "site.yml"));
        assertTrue(err.toString(StandardCharsets.UTF_8).endsWith("Try 'provision --help' for more information.\n"));
    }

    @Test
    void failedHostsGetARetryCommandWithTheirNamesAsLimit() throws Exception {
        Path failing = Files.writeString(tmp.resolve("fail.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - fail:
                        msg: no
                """);
        int code = run(failing.toString(), "--limit", "localhost,other");
        assertEquals(ExitCode.HOST_FAILED.code(), code);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("    provision " + failing + " --limit localhost\n"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void forksBelowOneIsAUsageError() throws Exception {
        for (String forks : List.of("0", "-1")) {
            err.reset();
            assertEquals(ExitCode.USAGE.code(), run("--forks", forks, "--syntax-check", playbook().toString()));
            assertEquals("provision: --forks must be at least 1, not " + forks + "\nTry 'provision --help' for more information.\n",
                    err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void connectTimeoutBelowOneIsAUsageError() throws Exception {
        assertEquals(ExitCode.USAGE.code(), run("--connect-timeout", "0", "--syntax-check", playbook().toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("provision: --connect-timeout must be at least 1 second, not 0\n"));
    }

    @Test
    void malformedExtraVarsAreOneErrorLineNotAnInternalError() throws Exception {
        assertEquals(ExitCode.INVALID_INPUT.code(), run("-e", "a='unterminated", playbook().toString()));
        assertEquals("ERROR: <command line>: -e 'a='unterminated': unterminated single quote at column 3; quote the value "
                + "whole, or put the variables in a file and give -e @FILE\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void runawayExpressionFailsItsTaskAtItsPosition() throws Exception {
        Path recursive = Files.writeString(tmp.resolve("recursive.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - debug:
                        msg: '<#macro m><@m/></#macro><@m/>'
                """);
        assertEquals(ExitCode.HOST_FAILED.code(), run(recursive.toString()));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("failed: [localhost] => " + recursive + ":5:9: \"<#macro m>"
                + "<@m/></#macro><@m/>\" recursion too deep"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void exitCodesAreDistinct() {
        assertEquals(ExitCode.values().length, java.util.Arrays.stream(ExitCode.values()).mapToInt(ExitCode::code).distinct().count());
    }

    @Test
    void inlineExtraVarsAreNeverRepeatedInTheRetryHintOrTheReport() throws Exception {
        Path failing = Files.writeString(tmp.resolve("fail.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - fail:
                        msg: no
                """);
        Path vars = Files.writeString(tmp.resolve("vars.yml"), "site: a\n");
        Path json = tmp.resolve("report.json");
        int code = run(failing.toString(), "-e", "db_password=hunter2", "--extra-vars={\"token\": \"s3cret\"}", "-e", "@" + vars,
                "--json", json.toString());
        assertEquals(ExitCode.HOST_FAILED.code(), code);
        String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        String report = Files.readString(json);
        for (String secret : new String[] {"hunter2", "s3cret", "db_password"}) {
            assertFalse(printed.contains(secret), secret + " in:\n" + printed);
            assertFalse(report.contains(secret), secret + " in the report:\n" + report);
        }
        assertTrue(printed.contains("-e '<your -e values>' -e @" + vars), printed);
    }

    @Test
    void aDryRunShowsTheOutputOfAProgramItDidNotRunAsAPlaceholderAndWillNotSaveAPlanBuiltOnIt() throws Exception {
        Path target = tmp.resolve("kernel.txt");
        Path book = Files.writeString(tmp.resolve("kernel.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - name: read the kernel
                      command: uname -r
                      register: kernel
                    - copy:
                        dest: %s
                        content: "kernel ${kernel.stdout}\\n"
                """.formatted(target));
        int code = run("--check", "--diff", book.toString());
        String shown = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, shown + err);
        assertTrue(shown.contains("+kernel <output of 'read the kernel' at " + book + ":4:7, known when it runs>"), shown);
        assertTrue(shown.contains("changed: [localhost] (forecast: depends on what earlier tasks change or print in this run)"), shown);
        assertFalse(Files.exists(target), "a dry run writes nothing");

        Path plan = tmp.resolve("kernel.plan");
        out.reset();
        int saved = run("--check", "--save-plan", plan.toString(), book.toString());
        assertTrue(saved != 0, "refused");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot save this plan: task 'copy' (" + book + ":7:7) on localhost "
                + "uses the output of a program the dry run did not run"), err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(plan), "no plan written");
    }
}
