package dev.provision.engine.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad inputs met in the field that once got less than a clear error, each run through the real entry
 * point: one error with its position, the exit code of its kind, no Java in the output ({@link Verdict}),
 * and nothing of a file that is not the user's own. The launcher's own case (a current directory the
 * user cannot enter) is {@code cli.LauncherTest}; {@code PROVISION_BECOME_PASSWORD} with a line break,
 * which needs a child's environment, is {@code e2e.MalformedCliIT}.
 */
class HostileInputTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /** Stands for a password hash: it must never reach the output. */
    private static final String SECRET = "SECRETHASHq7Zx";

    @TempDir
    Path dir;

    /** A sudo password of two lines in the inventory: refused at its line before any host is contacted. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"hosts.yml", "hosts.ini"})
    void aBecomePasswordWithALineBreakInTheInventoryIsRefusedAtItsLine(String name) throws Exception {
        Path inventory = Files.writeString(dir.resolve(name), name.endsWith(".yml")
                ? "all:\n  hosts:\n    node1:\n      ansible_host: 10.0.0.1\n      ansible_become_password: \"" + SECRET + "\\nrm -rf /\"\n"
                : "[gpu]\nnode1 ansible_host=10.0.0.1 ansible_become_password='\"" + SECRET + "\\nrm\"'\n"); // a Python literal
        Path playbook = Files.writeString(dir.resolve("site.yml"),
                "- hosts: all\n  gather_facts: false\n  become: true\n  tasks:\n    - command: id\n");

        CliRun.Outcome run = run("-i", inventory.toString(), playbook.toString());

        assertClean(run, 4);
        assertEquals(List.of("ERROR: " + inventory + (name.endsWith(".yml") ? ":5:32" : ":2:53") + ": ansible_become_password holds"
                + " a line break; sudo reads the password as one line"), run.err().lines().toList(), run.all());
        assertEquals("", run.out(), "nothing ran");
    }

    /** A play's pattern is the playbook's mistake: at its hosts: line, in a run and under --syntax-check. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"~[", "node[10:01]", "gpu:!node[x]"})
    void aBadPatternInAPlayIsBlamedOnItsHostsLine(String pattern) throws Exception {
        Path playbook = Files.writeString(dir.resolve("site.yml"), "- hosts: localhost\n  gather_facts: false\n  tasks: []\n"
                + "- name: the GPU nodes\n  hosts: \"" + pattern + "\"\n  gather_facts: false\n  tasks: []\n");
        for (List<String> args : List.of(List.of("-i", "localhost,", playbook.toString()),
                List.of("--syntax-check", playbook.toString()))) {
            CliRun.Outcome run = run(args.toArray(String[]::new));
            assertClean(run, 4);
            String error = run.err().strip();
            assertTrue(error.startsWith("ERROR: " + playbook + ":5:10: "), run.all());
            assertFalse(error.contains("<command line>"), run.all());
        }
    }

    /** include_vars of a file that is not YAML: where and what was expected, never a line of it. */
    @Test
    void includeVarsOfAShadowFileNeverQuotesIt() throws Exception {
        Path shadow = Files.writeString(dir.resolve("shadow"), "root:$6$" + SECRET + "$Vd8kq/0:19000:0:99999:7:::\n"
                + "daemon:*:19000:0:99999:7:::\n");
        Path playbook = Files.writeString(dir.resolve("site.yml"), "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
                + "    - include_vars: " + shadow + "\n");

        CliRun.Outcome run = run("-i", "localhost,", playbook.toString());

        assertClean(run, 2);
        assertTrue(run.out().contains("failed: [localhost] => " + shadow + ":1:1: this key is not a variable name"), run.all());
    }

    @Test
    void varsFilesOfAPasswdFileNeverQuotesIt() throws Exception {
        Path passwd = Files.writeString(dir.resolve("passwd"), "root:x:0:0:" + SECRET + ":/root:/bin/bash\n");
        Path playbook = Files.writeString(dir.resolve("site.yml"), "- hosts: localhost\n  gather_facts: false\n"
                + "  vars_files:\n    - " + passwd + "\n  tasks: []\n");

        CliRun.Outcome run = run("-i", "localhost,", playbook.toString());

        assertClean(run, 4);
        assertEquals("ERROR: " + passwd + ":1:1: a vars file must be a mapping (key: value lines), not a string",
                run.err().strip(), run.all());
    }

    /** A vars file whose YAML is broken where it names an alias, a tag or an escape: none of them is quoted. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"a: *" + SECRET, "a: !" + SECRET + " x", "a: !!" + SECRET + " 1", "a: \"\\q" + SECRET + "\"",
            SECRET + ": 1\n" + SECRET + ": 2", "<<: " + SECRET, "a: [1\n" + SECRET + ": 2"})
    void aBrokenVarsFileNeverQuotesWhatItHolds(String text) throws Exception {
        Path vars = Files.writeString(dir.resolve("vars.yml"), text + "\n");
        Path playbook = Files.writeString(dir.resolve("site.yml"), "- hosts: localhost\n  gather_facts: false\n"
                + "  tasks:\n    - include_vars: " + vars + "\n");

        CliRun.Outcome run = run("-i", "localhost,", playbook.toString());

        assertClean(run, 2);
        assertTrue(run.out().contains("failed: [localhost] => " + vars + ":"), run.all());
    }

    private CliRun.Outcome run(String... args) throws InterruptedException {
        return CliRun.run(List.of(args), LIMIT);
    }

    private void assertClean(CliRun.Outcome run, int exitCode) {
        assertEquals(exitCode, run.exitCode(), run.all());
        assertEquals(List.of(), Verdict.problems(run, dir), run.all());
        for (String unwanted : List.of("Exception", "java.", "internal error", SECRET)) {
            assertFalse(run.all().contains(unwanted), () -> "'" + unwanted + "' in the output:\n" + run.all());
        }
    }
}
