package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line itself, through the real launcher: help, version, usage errors, listing and checking modes. */
class CliIT {
    static final Path CLI = Provision.REPO.resolve("engine/src/test/resources/e2e/cli");
    static final String THREE_HOSTS = ExecutorIT.EXEC.resolve("three-hosts.yml").toString();

    @TempDir
    Path tmp;

    @Test
    void helpShowsExamplesAndExitCodesWithinEightyColumns() throws Exception {
        Provision.Result r = Provision.run("--help");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().startsWith("Usage: provision "), r.output());
        assertTrue(r.output().contains("Examples:"), r.output());
        assertTrue(r.output().contains("provision -i inventory.yml --check --diff playbooks/cluster.yml\n"), r.output());
        assertTrue(r.output().contains("Exit codes:"), r.output());
        for (String code : List.of("0 ok", "1 internal error", "2 a task failed", "3 a host was unreachable",
                "4 invalid playbook", "5 usage error", "6 changes")) {
            assertTrue(r.output().contains(code), code + " missing:\n" + r.output());
        }
        for (String line : r.output().lines().toList()) {
            assertTrue(line.length() <= 80, "line longer than 80 columns: '" + line + "'");
        }
    }

    @Test
    void versionNamesProvisionAndJava() throws Exception {
        Provision.Result r = Provision.run("--version");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().matches("(?s)provision \\S+.*\nJava \\S+\n"), r.output());
    }

    @Test
    void unknownOptionIsAUsageErrorOfOneLineAndAHint() throws Exception {
        Provision.Result r = Provision.run("--frobnicate", "site.yml");
        assertEquals(5, r.exitCode(), r.output());
        assertEquals(List.of("provision: Unknown option: '--frobnicate'", "Try 'provision --help' for more information."),
                r.output().lines().toList());
    }

    @Test
    void noPlaybookArgumentIsAUsageError() throws Exception {
        Provision.Result r = Provision.run("--check");
        assertEquals(5, r.exitCode(), r.output());
        assertEquals(2, r.output().lines().count(), r.output());
        assertTrue(r.output().contains("PLAYBOOK"), r.output());
    }

    @Test
    void playbookThatDoesNotExistIsInvalidInput() throws Exception {
        Provision.Result r = Provision.run(tmp.resolve("nope.yml").toString());
        assertEquals(4, r.exitCode(), r.output());
        assertEquals(List.of("ERROR: " + tmp.resolve("nope.yml") + ": no such playbook file"), r.output().lines().toList());
    }

    @Test
    void syntaxCheckValidatesAndRunsNothing() throws Exception {
        Path dir = tmp.resolve("target");
        Provision.Result ok = Provision.run("--syntax-check", QuadIT.QUAD.resolve("file-directory.yml").toString(), "-e", "dir=" + dir);
        assertEquals(0, ok.exitCode(), ok.output());
        assertTrue(ok.output().contains("syntax OK"), ok.output());
        assertFalse(Files.exists(dir), "--syntax-check must not run tasks");

        Provision.Result bad = Provision.run("--syntax-check", MalformedCliIT.MALFORMED.resolve("playbook/unknown-module.yml").toString());
        assertEquals(4, bad.exitCode(), bad.output());
    }

    @Test
    void listHostsShowsEachPlaysHostsAfterLimit() throws Exception {
        Provision.Result all = Provision.run("--list-hosts", "-i", THREE_HOSTS, ExecutorIT.EXEC.resolve("multi.yml").toString());
        assertEquals(0, all.exitCode(), all.output());
        assertTrue(all.output().contains("hosts (3):\n      h1\n      h2\n      h3\n"), all.output());

        Provision.Result limited = Provision.run("--list-hosts", "-i", THREE_HOSTS, "--limit", "h2", ExecutorIT.EXEC.resolve("multi.yml").toString());
        assertTrue(limited.output().contains("hosts (1):\n      h2\n"), limited.output());
    }

    @Test
    void listTasksShowsNamesAndTagsAndRunsNothing() throws Exception {
        Path dir = tmp.resolve("target");
        Provision.Result r = Provision.run("--list-tasks", ExecutorIT.EXEC.resolve("tags.yml").toString(), "-e", "dir=" + dir);
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("      first\tTAGS: [setup]\n      second\tTAGS: [config]\n      third\tTAGS: [always]\n      fourth\n"),
                r.output());
        assertFalse(Files.exists(dir));
    }

    @Test
    void extraVarsFromAFileKeepTheirTypes() throws Exception {
        Provision.Result r = Provision.run(CLI.resolve("echo.yml").toString(), "-e", "@" + CLI.resolve("vars.yml"));
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("ok: [localhost] => answer=42 items=3"), r.output());
    }

    @Test
    void extraVarsInlineJsonKeepTheirTypes() throws Exception {
        Provision.Result r = Provision.run(CLI.resolve("echo.yml").toString(), "-e", "{\"answer\": 9, \"items\": [1]}");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("ok: [localhost] => answer=10 items=1"), r.output());
    }

    @Test
    void noColourWithNoColorSet() throws Exception {
        Provision.Result r = Provision.run(java.util.Map.of("NO_COLOR", "1"), CLI.resolve("echo.yml").toString(), "-e", "@" + CLI.resolve("vars.yml"));
        assertFalse(r.output().contains("\u001b["), r.output());
    }
}
