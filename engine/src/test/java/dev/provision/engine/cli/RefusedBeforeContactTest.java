package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs that would contact nobody, and playbooks that the run would refuse, are refused before any
 * host is contacted: exit 4 and one clear line (one per problem), and {@code --syntax-check} refuses
 * exactly what the run refuses. The inventory's hosts have unroutable documentation addresses and a
 * 1 s connect timeout, so a case that wrongly got as far as connecting would fail with exit 3, not 4.
 */
class RefusedBeforeContactTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Path inventory;

    @BeforeEach
    void inventory() throws Exception {
        inventory = Files.writeString(tmp.resolve("inventory.yml"), """
                all:
                  children:
                    gpu:
                      hosts:
                        node01: {ansible_host: 192.0.2.1}
                        node02: {ansible_host: 192.0.2.2}
                    storage:
                      hosts:
                        nas01: {ansible_host: 192.0.2.9}
                """);
    }

    private int run(String playbookText, String... options) throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), playbookText);
        List<String> args = new ArrayList<>(List.of("-i", inventory.toString(), "--connect-timeout", "1",
                "--known-hosts", tmp.resolve("known_hosts").toString()));
        args.addAll(List.of(options));
        args.add(playbook.toString());
        return ProvisionCommand.execute(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String error() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void assertRefused(int code, String expected) {
        assertEquals(ExitCode.INVALID_INPUT.code(), code, out + "\n" + error());
        assertEquals(expected + "\n", error());
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("TASK ["), "nothing ran:\n" + out);
    }

    private static final String GPU_PLAY = """
            - hosts: gpu
              gather_facts: false
              tasks:
                - debug: {msg: hi}
            """;

    @Test
    void limitNamingNoHostIsRefusedWithTheClosestName() throws Exception {
        assertRefused(run(GPU_PLAY, "--limit", "node1"),
                "ERROR: <command line>: no host matches hosts: gpu with --limit node1: the inventory has no host or group 'node1' (did you mean 'node01'?)");
    }

    @Test
    void limitNamingAHostOutsideThePlaysHostsIsRefused() throws Exception {
        assertRefused(run(GPU_PLAY, "--limit", "nas01"),
                "ERROR: <command line>: no host matches hosts: gpu with --limit nas01; the inventory's groups: all, gpu, storage, ungrouped");
    }

    @Test
    void playPatternMatchingNothingIsRefusedWhenItIsTheOnlyPlay() throws Exception {
        assertRefused(run(GPU_PLAY.replace("hosts: gpu", "hosts: gpus")),
                "ERROR: " + tmp.resolve("site.yml") + ":1:10: no host matches hosts: gpus; the inventory's groups: all, gpu,"
                        + " storage, ungrouped");
    }

    @Test
    void playMatchingNothingWhileAnotherDoesIsAWarningNotAnError() throws Exception {
        int code = run(GPU_PLAY + GPU_PLAY.replace("hosts: gpu", "hosts: gpus"), "--check", "--limit", "nosuch*");
        assertEquals(ExitCode.INVALID_INPUT.code(), code, "a wildcard that matches nothing selects nobody:\n" + error());
        out.reset();
        err.reset();
        Path local = Files.writeString(tmp.resolve("local.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                - hosts: nosuchgroup
                  gather_facts: false
                  tasks:
                    - debug: {msg: never}
                """);
        code = ProvisionCommand.execute(new String[] {"-i", "localhost,", local.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, out + "\n" + error());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("[WARNING]: no hosts matched 'nosuchgroup', skipping this play"), out.toString());
    }

    @Test
    void replacedHostNotInTheInventoryIsRefused() throws Exception {
        assertRefused(run(GPU_PLAY, "--replaced", "node99"),
                "ERROR: <command line>: --replaced node99: no such host in the inventory (did you mean 'node01'?)");
    }

    @Test
    void emptyInventoryIsRefusedAndSaysSo() throws Exception {
        Files.writeString(inventory, "all:\n  hosts: {}\n");
        assertRefused(run(GPU_PLAY.replace("hosts: gpu", "hosts: all")),
                "ERROR: <command line>: no host matches hosts: all: the inventory has no hosts (is -i the right file?)");
    }

    private static final String NOTIFY_TYPO = """
            - hosts: gpu
              gather_facts: false
              tasks:
                - name: config
                  copy: {dest: /tmp/x, content: x}
                  notify: restart chrny
              handlers:
                - name: restart chrony
                  debug: {msg: restart}
            """;

    @Test
    void syntaxCheckRefusesANotifyWithoutHandler() throws Exception {
        Path playbook = tmp.resolve("site.yml");
        assertRefused(run(NOTIFY_TYPO, "--syntax-check"), "ERROR: " + playbook
                + ":4:7: notify names no handler 'restart chrny' (did you mean 'restart chrony'?); handlers of this play: restart chrony");
    }

    @Test
    void theRunRefusesTheSameNotifyBeforeContact() throws Exception {
        Path playbook = tmp.resolve("site.yml");
        assertRefused(run(NOTIFY_TYPO), "ERROR: " + playbook
                + ":4:7: notify names no handler 'restart chrny' (did you mean 'restart chrony'?); handlers of this play: restart chrony");
    }

    @Test
    void syntaxCheckRefusesAMalformedWhenExpression() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when: answer ==
                """, "--syntax-check");
        assertEquals(ExitCode.INVALID_INPUT.code(), code, out + "\n" + error());
        assertTrue(error().startsWith("ERROR: " + tmp.resolve("site.yml") + ":5:"), error());
        assertEquals(1, error().lines().count(), error());
    }

    @Test
    void syntaxCheckRefusesAMalformedArgumentTemplate() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - copy:
                        dest: /tmp/x
                        content: "${unclosed"
                """, "--syntax-check");
        assertEquals(ExitCode.INVALID_INPUT.code(), code, out + "\n" + error());
        assertTrue(error().startsWith("ERROR: " + tmp.resolve("site.yml") + ":6:"), error());
    }

    @Test
    void syntaxCheckReportsEveryProblemAtOnceEachWithItsPosition() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: "${a +}"}
                      notify: nothing
                    - debug: {msg: hi}
                      when: (b
                """, "--syntax-check");
        assertEquals(ExitCode.INVALID_INPUT.code(), code, out + "\n" + error());
        List<String> lines = error().lines().toList();
        assertEquals("ERROR: 3 problems:", lines.getFirst(), error());
        assertEquals(4, lines.size(), error());
        for (String line : lines.subList(1, 4)) {
            assertTrue(line.startsWith("  " + tmp.resolve("site.yml") + ":"), line);
        }
    }

    @Test
    void startAtTaskNamingNoTaskIsRefusedBySyntaxCheckToo() throws Exception {
        assertRefused(run(GPU_PLAY, "--syntax-check", "--start-at-task", "debg"),
                "ERROR: <command line>: --start-at-task: no task named 'debg' (did you mean 'debug'?); see the names with --list-tasks");
    }

    @Test
    void aValidPlaybookPassesSyntaxCheck() throws Exception {
        int code = run(NOTIFY_TYPO.replace("restart chrny", "restart chrony"), "--syntax-check");
        assertEquals(0, code, error());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("syntax OK"), out.toString());
    }

    @Test
    void jinjaInAnArgumentIsRefusedWithItsFreeMarkerTranslation() throws Exception {
        Path playbook = tmp.resolve("site.yml");
        assertRefused(run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - file:
                        path: "/srv/{{ item }}"
                        state: directory
                      loop: [a, b]
                """, "--syntax-check"), "ERROR: " + playbook + ":5:9: \"/srv/{{ item }}\" is Jinja2, which provision does not evaluate"
                + " (it would be used as written); provision's expressions are FreeMarker: \"/srv/${item}\"; provision migrate FILE rewrites a playbook");
    }

    @Test
    void aJinjaConditionIsRefusedWithItsTranslation() throws Exception {
        Path playbook = tmp.resolve("site.yml");
        assertRefused(run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when: answer is defined and answer == 'yes'
                """, "--syntax-check"), "ERROR: " + playbook + ":5:13: 'answer is defined and answer == 'yes'' is Jinja2 (the test 'is defined');"
                + " conditions are FreeMarker expressions: answer?? && answer == \"yes\"; provision migrate FILE rewrites a playbook");
    }

    @Test
    void aGoTemplateForPodmanIsNotJinja() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - command: podman image inspect --format '{{.Digest}}' train
                """, "--syntax-check");
        assertEquals(0, code, error());
    }

    /** Each Jinja2-only shape in a condition, refused before contact, in the run as in --syntax-check. */
    private String refusedCondition(String condition, String... options) throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when: %s
                """.formatted(condition), options);
        assertEquals(ExitCode.INVALID_INPUT.code(), code, out + "\n" + error());
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("TASK ["), "nothing ran:\n" + out);
        return error();
    }

    @Test
    void aFilterInAConditionIsRefusedBecauseFreeMarkerWouldReadItsBarAsOr() throws Exception {
        for (String[] options : List.of(new String[] {"--syntax-check"}, new String[0])) {
            String error = refusedCondition("docker_install | default('yes')", options);
            assertEquals("ERROR: " + tmp.resolve("site.yml") + ":5:13: 'docker_install | default('yes')' is Jinja2 (the filter 'default'"
                    + " (in FreeMarker a single | is a logical or)); conditions are FreeMarker expressions:"
                    + " (docker_install!\"yes\")?is_boolean?then((docker_install!\"yes\"), (docker_install!\"yes\")?is_number?then("
                    + "(docker_install!\"yes\") != 0, (docker_install!\"yes\")?has_content));"
                    + " provision migrate FILE rewrites a playbook\n", error);
            err.reset();
        }
        assertTrue(refusedCondition("nfs_mounts|length", "--syntax-check").contains("(the filter 'length'"), error());
    }

    @Test
    void anIsTestInAConditionIsRefused() throws Exception {
        assertTrue(refusedCondition("result is succeeded", "--syntax-check").contains("is Jinja2 (the test 'is succeeded')"), error());
    }

    @Test
    void theInOperatorIsRefusedWithItsTranslation() throws Exception {
        String error = refusedCondition("\"'gpu' in group_names\"", "--syntax-check");
        assertTrue(error.contains("(the 'in' operator)") && error.contains("group_names?is_sequence?then(group_names?seq_contains(\"gpu\")"), error);
    }

    @Test
    void pythonsTrueIsRefused() throws Exception {
        assertTrue(refusedCondition("enabled == True", "--syntax-check").contains("(Python's 'True')"), error());
    }

    @Test
    void everyItemOfAListFormWhenIsRefusedAtItsOwnLine() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when:
                        - answer is defined
                        - flag | bool
                """, "--syntax-check");
        assertEquals(ExitCode.INVALID_INPUT.code(), code, error());
        assertTrue(error().contains(tmp.resolve("site.yml") + ":6:11: 'answer is defined' is Jinja2"), error());
        assertTrue(error().contains(tmp.resolve("site.yml") + ":7:11: 'flag | bool' is Jinja2 (the filter 'bool'"), error());
    }

    @Test
    void jinjaInEnvironmentAndVarsIsRefusedBeforeContact() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  vars:
                    proxy: "{{ site_proxy }}"
                  tasks:
                    - debug: {msg: hi}
                      environment:
                        http_proxy: "{{ proxy }}"
                """);
        assertEquals(ExitCode.INVALID_INPUT.code(), code, error());
        assertTrue(error().contains("\"{{ site_proxy }}\" is Jinja2") && error().contains("\"${site_proxy}\""), error());
        assertTrue(error().contains("\"{{ proxy }}\" is Jinja2") && error().contains("\"${proxy}\""), error());
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("TASK ["), "nothing ran:\n" + out);
    }

    @Test
    void plainlyFreeMarkerConditionsAndBarsInsideStringsPass() throws Exception {
        int code = run("""
                - hosts: gpu
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when: (a!false) || group_names?seq_contains("gpu") || (b!'') == "x | y in z is w"
                """, "--syntax-check");
        assertEquals(0, code, error());
    }
}
