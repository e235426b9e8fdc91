package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.InvalidInputException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The executor over recording fake connections: what runs where, and which events the listeners see. */
class ExecutorTest {
    private static final String TWELVE_HOSTS = """
            all:
              hosts:
                node[01:12]:
            """;

    @TempDir
    Path tmp;

    @Test
    void progressCountsEveryHostOfATaskBeforeItsResults() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - name: work
                      command: marker
                """, TWELVE_HOSTS);
        List<String> events = harness.events;
        List<String> progress = events.stream().filter(e -> e.startsWith("progress work ")).toList();
        assertEquals(IntStream.rangeClosed(1, 12).mapToObj(i -> "progress work " + i + "/12").toList(), progress);
        int lastProgress = events.indexOf("progress work 12/12");
        int firstResult = events.indexOf("result node01 CHANGED");
        assertTrue(lastProgress >= 0 && lastProgress < firstResult, events.toString());
        assertEquals(12, harness.factory.calls.size(), "one command per host");
    }

    @Test
    void checkModeRunsNoCommandAndForecastsAChange() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - command: marker
                """, TWELVE_HOSTS, ExecutorHarness.options(true), new char[0]);
        assertEquals(List.of(), harness.factory.commandLines("node01"));
        assertEquals(TaskStatus.CHANGED, harness.results.get(0).status());
        assertTrue(harness.results.get(0).forecast());
    }

    @Test
    void runOnceRunsOnTheFirstHostOnly() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - command: marker
                      run_once: true
                """, TWELVE_HOSTS);
        assertEquals(List.of("marker"), harness.factory.commandLines("node01"));
        assertEquals(1, harness.factory.calls.size());
    }

    @Test
    void delegatedTaskRunsOnTheDelegateAndReportsUnderTheHost() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01:node02
                  gather_facts: false
                  tasks:
                    - command: marker
                      delegate_to: node12
                """, TWELVE_HOSTS);
        assertEquals(List.of("marker", "marker"), harness.factory.commandLines("node12"));
        assertEquals(List.of(), harness.factory.commandLines("node01"));
        assertEquals(List.of("node01", "node02"), harness.results.stream().map(r -> r.host()).toList());
    }

    @Test
    void startAtAnUnknownTaskSuggestsTheClosestName() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        RunOptions options = new RunOptions(false, false, Set.of(), Set.of(), 10, Map.of(), Optional.empty(),
                Optional.of("instal chrony"), 0);
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - name: install chrony
                      command: marker
                """, TWELVE_HOSTS, options, new char[0]));
        assertTrue(e.getMessage().contains("no task named 'instal chrony' (did you mean 'install chrony'?)"), e.getMessage());
        assertEquals(List.of(), harness.factory.calls, "nothing may run");
    }

    @Test
    void moduleMessageGetsTheTaskPositionUnlessItHasOne() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - name: relative
                      file:
                        path: relative/path
                        state: directory
                """, TWELVE_HOSTS);
        String message = harness.results.get(0).message();
        assertTrue(message.startsWith(tmp.resolve("site.yml") + ":4:7: "), message);
        assertEquals(1, message.split(":4:7: ").length - 1, "the position is not repeated: " + message);
    }

    @Test
    void playHostsLeavesOutTheHostsThatFailedAsInAnsible() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> new dev.provision.engine.connection.ExecResult(
                host.equals("node02") && command.equals("first") ? 1 : 0, new byte[0], new byte[0]);
        harness.run("""
                - hosts: "node01:node02:node03"
                  gather_facts: false
                  tasks:
                    - command: first
                    - command: "peers ${play_hosts?join(',')}"
                """, TWELVE_HOSTS);
        assertEquals(List.of("first", "peers node01,node03"), harness.factory.commandLines("node01"));
        assertEquals(List.of("first"), harness.factory.commandLines("node02"));
    }

    @Test
    void ansiblesNamesForTheRunAreThere() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: "node01:node02"
                  gather_facts: false
                  tasks:
                    - command: "run ${playbook_dir} ${ansible_check_mode?c} ${ansible_diff_mode?c} ${ansible_play_hosts?join(',')}"
                """, TWELVE_HOSTS);
        assertEquals(List.of("run " + tmp.toAbsolutePath().normalize() + " false true node01,node02"), harness.factory.commandLines("node01"));
    }

    @Test
    void theItemsOfALoopReadAFileOnceWhileNothingChanges() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        String dropIn = "kernel.a = 1\nkernel.b = 1\nkernel.c = 1\n";
        harness.factory.responder = (host, command) -> {
            String out = command.contains("stat -c")
                    ? "regular file|644|root|root|" + dropIn.length() + "\nCONTENT\n" + dropIn : "1\n";
            return new dev.provision.engine.connection.ExecResult(0, out.getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[0]);
        };
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - sysctl: {name: "${item}", value: "1", sysctl_file: /etc/sysctl.d/90-x.conf}
                      loop: [kernel.a, kernel.b, kernel.c]
                """, TWELVE_HOSTS);
        List<String> commands = harness.factory.commandLines("node01");
        assertEquals(1, commands.stream().filter(c -> c.contains("stat -c")).count(), commands.toString());
        assertEquals(3, commands.stream().filter(c -> c.startsWith("sysctl -n")).count(), commands.toString());
        assertEquals(TaskStatus.OK, harness.results.get(0).status());
    }

    @Test
    void environmentIsTemplatedPerHostMergedInnerWinsAndWrapsEveryCommand() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  vars: {proxy: "http://proxy:3128", proxy_env: {NO_PROXY: localhost}}
                  environment: {http_proxy: "${proxy}", LANG: C.UTF-8}
                  tasks:
                    - command: marker
                      environment: {LANG: C}
                    - command: second
                      environment: "${proxy_env}"
                    - command: plain
                """, TWELVE_HOSTS);
        assertEquals(List.of("env http_proxy=http://proxy:3128 LANG=C /bin/sh -c marker",
                        "env http_proxy=http://proxy:3128 LANG=C.UTF-8 NO_PROXY=localhost /bin/sh -c second",
                        "env http_proxy=http://proxy:3128 LANG=C.UTF-8 /bin/sh -c plain"),
                harness.factory.commandLines("node01").stream().map(l -> l.replace("'", "")).toList());
    }

    @Test
    void anEnvironmentExpressionThatGivesNoMappingFailsTheTaskWithItsPosition() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  vars: {not_a_map: [1, 2]}
                  tasks:
                    - command: marker
                      environment: "${not_a_map}"
                """, TWELVE_HOSTS);
        assertEquals(TaskStatus.FAILED, harness.results.get(0).status());
        assertTrue(harness.results.get(0).message().contains("site.yml:5:7"), harness.results.get(0).message());
        assertTrue(harness.results.get(0).message().contains("'environment' must give a mapping"), harness.results.get(0).message());
        assertEquals(List.of(), harness.factory.commandLines("node01"));
    }

    @Test
    void includeVarsReadsATemplatedFileFromVarsAndItsVariablesReachLaterTasks() throws Exception {
        java.nio.file.Files.createDirectories(tmp.resolve("vars"));
        java.nio.file.Files.writeString(tmp.resolve("vars/debian.yml"), "greeting: hello\nports: [80, 443]\n");
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  vars: {flavor: debian}
                  tasks:
                    - include_vars: "${flavor}.yml"
                    - include_vars: {file: debian.yml, name: site}
                    - command: "echo ${greeting} ${site.ports[1]}"
                    - include_vars: missing.yml
                """, TWELVE_HOSTS);
        assertEquals(List.of("echo hello 443"), harness.factory.commandLines("node01"));
        TaskResult missing = harness.results.get(3);
        assertEquals(TaskStatus.FAILED, missing.status());
        assertTrue(missing.message().contains("vars file 'missing.yml' not found; searched " + tmp.resolve("vars")),
                missing.message());
    }

    /**
     * hostvars of a host outside the run come from the fact cache of an earlier run, read once for
     * the run: the second task still sees node02's cached facts after the file is gone.
     */
    @Test
    void cachedFactsOfAHostOutsideTheRunAreReadOnce(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path cache = java.nio.file.Files.createDirectories(dir.resolve("facts"));
        java.nio.file.Files.writeString(cache.resolve("node02.json"), "{\"x\": \"one\"}");
        ExecutorHarness harness = new ExecutorHarness(dir);
        harness.factCache = FactCache.at(cache);
        harness.factory.responder = (host, command) -> {
            if (command.equals("sysctl -n a_one")) {
                try {
                    java.nio.file.Files.delete(cache.resolve("node02.json"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            if (command.contains("stat -c")) {
                return new dev.provision.engine.connection.ExecResult(command.contains("t.conf") ? 3 : 0,
                        "directory|755|root|root|4096\n".getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[0]);
            }
            return new dev.provision.engine.connection.ExecResult(0, "ok\n".getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[0]);
        };
        RunSummary summary = harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - name: a
                      sysctl: {name: "a_${hostvars['node02'].facts.x}", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                    - name: b
                      sysctl: {name: "b_${hostvars['node02'].facts.x}", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """, """
                all:
                  hosts:
                    node01:
                    node02:
                """);
        assertEquals(List.of(), summary.failedHosts(), harness.humanOutput());
        assertTrue(harness.factory.commandLines("node01").contains("sysctl -n b_one"), harness.humanOutput());
    }

    @Test
    void aComputedIncludeRunsTheFileEachHostNamesAndFailsAHostThatNamesNone() throws Exception {
        java.nio.file.Files.createDirectories(tmp.resolve("tasks"));
        java.nio.file.Files.writeString(tmp.resolve("tasks/node01.yml"), "- command: one\n");
        java.nio.file.Files.writeString(tmp.resolve("tasks/node02.yml"), "- command: two\n");
        ExecutorHarness harness = new ExecutorHarness(tmp);
        RunSummary summary = harness.run("""
                - hosts: node01,node02,node03
                  gather_facts: false
                  tasks:
                    - include_tasks: "tasks/${inventory_hostname}.yml"
                """, TWELVE_HOSTS);
        assertEquals(List.of("one"), harness.factory.commandLines("node01"));
        assertEquals(List.of("two"), harness.factory.commandLines("node02"));
        assertEquals(List.of("node03"), summary.failedHosts(), harness.humanOutput());
        assertTrue(harness.humanOutput().contains("no task file tasks/node03.yml here; the files it can name are node01.yml, node02.yml"),
                harness.humanOutput());
    }

    @Test
    void anIncludeRoleOfARoleNotInstalledFailsOnlyWhereItIsReached() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        RunSummary summary = harness.run("""
                - hosts: node01,node02
                  gather_facts: false
                  tasks:
                    - name: galaxy
                      include_role: {name: example.not_installed}
                      when: inventory_hostname == "node02"
                    - command: after
                """, TWELVE_HOSTS);
        assertEquals(List.of("after"), harness.factory.commandLines("node01"));
        assertEquals(List.of(), harness.factory.commandLines("node02"));
        assertEquals(List.of("node02"), summary.failedHosts(), harness.humanOutput());
        assertTrue(harness.humanOutput().contains("role 'example.not_installed' is not installed"), harness.humanOutput());
    }

    @Test
    void anArgumentThatRendersToOmitIsLeftOut() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        RunSummary summary = harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - command: {cmd: marker, chdir: "${nowhere!omit}"}
                    - command: {cmd: marker, chdir: "${somewhere!omit}"}
                      vars: {somewhere: /srv}
                """, TWELVE_HOSTS);
        assertEquals(List.of(), summary.failedHosts(), harness.humanOutput());
        List<String> lines = harness.factory.commandLines("node01");
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(!lines.get(0).contains("cd ") && lines.get(1).contains("/srv"), lines.toString());
    }

    private static final String TEMPFILE_THEN_USE = """
            - hosts: node01
              gather_facts: false
              tasks:
                - tempfile: {suffix: .conf}
                  register: t
                - command: "use ${t.path}"
            """;

    @Test
    void tempfileRegistersThePathMktempPrinted() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> new dev.provision.engine.connection.ExecResult(0,
                (command.startsWith("mktemp") ? "/tmp/ansible.Ab12Cd34.conf\n" : "").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                new byte[0]);
        harness.run(TEMPFILE_THEN_USE, TWELVE_HOSTS);
        List<String> commands = harness.factory.commandLines("node01");
        assertEquals("use /tmp/ansible.Ab12Cd34.conf", commands.get(commands.size() - 1), commands.toString());
        assertTrue(commands.get(0).startsWith("mktemp --tmpdir --suffix=.conf -- ansible.XXXXXXXX"), commands.toString());
        assertEquals("/tmp/ansible.Ab12Cd34.conf", harness.results.get(0).output().get("path"));
        assertEquals(TaskStatus.CHANGED, harness.results.get(0).status());
    }

    @Test
    void tempfileInADryRunRegistersAPlaceholderAndLeavesTheHostAlone() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run(TEMPFILE_THEN_USE, TWELVE_HOSTS, ExecutorHarness.options(true), new char[0]);
        assertTrue(harness.factory.commandLines("node01").stream().noneMatch(c -> c.startsWith("mktemp") || c.startsWith("use")),
                harness.factory.commandLines("node01").toString());
        Object path = harness.results.get(0).output().get("path");
        assertTrue(RunTimeOutput.in(path), String.valueOf(path));
        TaskResult use = harness.results.get(1);
        assertTrue(use.forecast() && use.conditional(), use.toString());
    }

    @Test
    void aFailedTempfileRegistersNoPath() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> new dev.provision.engine.connection.ExecResult(
                command.startsWith("mktemp") ? 1 : 0, new byte[0], "mktemp: failed\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        harness.run("""
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - tempfile: {}
                      register: t
                      ignore_errors: true
                    - command: "defined ${(t.path??)?c}"
                """, TWELVE_HOSTS);
        assertEquals(TaskStatus.IGNORED, harness.results.get(0).status());
        assertEquals("defined false", harness.factory.commandLines("node01").get(harness.factory.commandLines("node01").size() - 1));
    }
}
