package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.connection.ExecResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hosts go through consecutive tasks without a barrier per task; reports and hostvars stay linear. */
class RunAheadTest {
    private static final String THREE_HOSTS = """
            all:
              hosts:
                node[01:03]:
            """;
    /** Three tasks of a host-local module; each probes the host with {@code sysctl -n stepK}. */
    private static final String THREE_STEPS = """
            - hosts: all
              gather_facts: false
              tasks:
                - name: one
                  sysctl: {name: step1, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                - name: two
                  sysctl: {name: step2, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                - name: three
                  sysctl: {name: step3, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
            """;

    @TempDir
    Path tmp;

    private static ExecResult ok(String out) {
        return new ExecResult(0, out.getBytes(StandardCharsets.UTF_8), new byte[0]);
    }

    /** A host where /etc/sysctl.d exists (without t.conf) and every kernel parameter reads "ok". */
    private static ExecResult host(String command) {
        if (command.contains("stat -c")) {
            return command.contains("t.conf") ? new ExecResult(3, new byte[0], new byte[0]) : ok("directory|755|root|root|4096\n");
        }
        return ok("ok\n");
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A play whose first task probes {@code step1} (host-local), then {@code next}. */
    private static String afterStepOne(String next) {
        return """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - name: one
                      sysctl: {name: step1, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """ + next.indent(4);
    }

    /** The steps a host was probed for, in order. */
    private static List<String> steps(ExecutorHarness harness, String host) {
        return harness.factory.commandLines(host).stream().filter(c -> c.startsWith("sysctl -n "))
                .map(c -> c.substring("sysctl -n ".length())).toList();
    }

    /**
     * node01's first task waits (up to a limit) for node02 to reach its third: under a per-task
     * barrier that can never happen, so the wait runs out.
     */
    private static final class Overtaking {
        private final CountDownLatch node02AtStep3 = new CountDownLatch(1);
        private volatile boolean happened;

        Overtaking(ExecutorHarness harness, int seconds) {
            harness.factory.responder = (host, command) -> {
                try {
                    if (host.equals("node01") && command.equals("sysctl -n step1")) {
                        happened = node02AtStep3.await(seconds, TimeUnit.SECONDS);
                    }
                    if (host.equals("node02") && command.equals("sysctl -n step3")) {
                        node02AtStep3.countDown();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return host(command);
            };
        }

        boolean happened() {
            return happened;
        }
    }

    @Test
    void aHostGoesOnWhileASlowHostIsStillAtAnEarlierTask() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        Overtaking overtaking = new Overtaking(harness, 10);
        harness.run(THREE_STEPS, THREE_HOSTS);
        assertTrue(overtaking.happened(), "node02 finished its last task before node01 finished its first");
        // The report is still the linear strategy's: task by task, hosts in inventory order.
        List<String> results = harness.events.stream().filter(e -> e.startsWith("result ")).toList();
        assertEquals(List.of("result node01 CHANGED", "result node02 CHANGED", "result node03 CHANGED",
                "result node01 CHANGED", "result node02 CHANGED", "result node03 CHANGED",
                "result node01 CHANGED", "result node02 CHANGED", "result node03 CHANGED"), results);
        String human = harness.humanOutput();
        assertTrue(human.indexOf("TASK [one]") < human.indexOf("TASK [two]")
                && human.indexOf("TASK [two]") < human.indexOf("TASK [three]"), human);
    }

    @Test
    void hostvarsOfAnotherHostWaitUntilThatHostHasRegisteredIt() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> {
            if (host.equals("node01") && command.equals("sysctl -n produce")) {
                pause(500); // node01 is the slow producer
            }
            return host(command);
        };
        harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - name: produce
                      sysctl: {name: produce, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                      register: produced
                    - name: consume
                      sysctl: {name: "consume_${hostvars['node01'].produced.changed?c}", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """, THREE_HOSTS);
        for (String host : List.of("node01", "node02", "node03")) {
            assertEquals(List.of("produce", "consume_true"), steps(harness, host), host);
        }
    }

    @Test
    void aTaskThatMaySeeOtherHostsWaitsForEveryHost() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        java.util.concurrent.atomic.AtomicBoolean node01DoneWithStep1 = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.List<String> early = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        harness.factory.responder = (host, command) -> {
            if (host.equals("node01") && command.equals("sysctl -n step1")) {
                pause(300);
                node01DoneWithStep1.set(true);
            }
            if (command.equals("remote-look") && !node01DoneWithStep1.get()) {
                early.add(host);
            }
            return host(command);
        };
        harness.run(afterStepOne("""
                - name: a command may read what other hosts did
                  command: remote-look
                """), THREE_HOSTS);
        assertEquals(List.of(), early, "a command started before every host had finished the task before it");
    }

    @Test
    void aHostThatFailsStopsWhileTheOthersGoOn() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> host.equals("node02") && command.equals("sysctl -n step1")
                ? new ExecResult(1, new byte[0], "broken\n".getBytes(StandardCharsets.UTF_8)) : host(command);
        RunSummary summary = harness.run(THREE_STEPS, THREE_HOSTS);
        assertEquals(List.of("step1"), steps(harness, "node02"));
        assertEquals(List.of("step1", "step2", "step3"), steps(harness, "node03"));
        assertEquals(List.of("node02"), summary.failedHosts());
        String human = harness.humanOutput();
        assertTrue(human.contains("TASK [three]"), human);
        List<String> results = harness.events.stream().filter(e -> e.startsWith("result ")).toList();
        assertEquals(List.of("result node01 CHANGED", "result node02 FAILED", "result node03 CHANGED",
                "result node01 CHANGED", "result node03 CHANGED",
                "result node01 CHANGED", "result node03 CHANGED"), results);
    }

    @Test
    void noHostRunsAheadUnderAFailureThreshold() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> host.equals("node02") && command.equals("sysctl -n step1")
                ? new ExecResult(1, new byte[0], new byte[0]) : host(command);
        harness.run(THREE_STEPS.replace("  gather_facts: false", "  gather_facts: false\n  any_errors_fatal: true"),
                THREE_HOSTS);
        // any_errors_fatal stops the play after the first task: nobody ran step2.
        for (String host : List.of("node01", "node02", "node03")) {
            assertEquals(List.of("step1"), steps(harness, host), host);
        }
    }

    @Test
    void moreHostsThanForksStillRunAhead() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        Overtaking overtaking = new Overtaking(harness, 10);
        RunOptions twoForks = new RunOptions(false, true, Set.of(), Set.of(), 2, Map.of(), Optional.empty(), Optional.empty(), 3);
        harness.run(THREE_STEPS, THREE_HOSTS, twoForks, new char[0]);
        assertTrue(overtaking.happened(), "with forks < hosts, node02 went on while node01 held the other fork");
        assertEquals(List.of("step1", "step2", "step3"), steps(harness, "node02"));
    }

    /**
     * One fork, three hosts, each reading the last host's registered value: a reader that kept its
     * fork while waiting for node03 would leave node03 none, and the run would never end (the
     * limit only turns that hang into a failure).
     */
    @Test
    void aHostWaitingForAnotherGivesItsForkBack() {
        assertEveryHostWaitsForNode03WithOneFork("${hostvars['node03'].produced.changed?c}");
    }

    /**
     * The same read in a template that is not straight-line (a lambda), which the template engine
     * evaluates on a worker thread of its own: the host still lends its fork while it waits.
     */
    @Test
    void aHostWaitingInATemplateOnAWorkerThreadGivesItsForkBack() {
        assertEveryHostWaitsForNode03WithOneFork("${['node03']?map(h -> hostvars[h].produced.changed?c)?join('_')}");
    }

    /** One fork, three hosts; each names its second task's parameter by {@code read}, node03's registered value. */
    private void assertEveryHostWaitsForNode03WithOneFork(String read) {
        RunOptions oneFork = new RunOptions(false, true, Set.of(), Set.of(), 1, Map.of(), Optional.empty(), Optional.empty(), 3);
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> host(command);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - name: produce
                      sysctl: {name: produce, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                      register: produced
                    - name: consume
                      sysctl: {name: "consume_READ", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """.replace("READ", read), THREE_HOSTS, oneFork, new char[0]));
        for (String host : List.of("node01", "node02", "node03")) {
            assertEquals(List.of("produce", "consume_true"), steps(harness, host), harness.humanOutput());
        }
    }

    /**
     * Both hosts plan a run of tasks together (sysctl plans together) whose last reads the other's
     * {@code hostvars}; node01 is slow. node02's plan of that task must not wait for node01 (which
     * has applied nothing yet), nor node01's for node02: each plan made before the tasks before it
     * are applied ends where it would wait, and the task runs in its turn.
     */
    @Test
    void hostsPlanningTasksTogetherNeverWaitForEachOther() {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> {
            if (host.equals("node01") && command.equals("sysctl -n a")) {
                pause(500);
            }
            return host(command);
        };
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> harness.run("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - sysctl: {name: a, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                    - sysctl: {name: b, value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                    - sysctl: {name: "c_${hostvars['node01'].inventory_hostname}_${hostvars['node02'].inventory_hostname}", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """, """
                all:
                  hosts:
                    node[01:02]:
                """));
        for (String host : List.of("node01", "node02")) {
            assertEquals("c_node01_node02", steps(harness, host).getLast(), harness.humanOutput());
        }
        List<String> results = harness.events.stream().filter(e -> e.startsWith("result ")).toList();
        assertEquals(6, results.size(), results.toString());
        assertTrue(results.stream().allMatch(r -> r.endsWith("CHANGED")), results.toString());
    }

    @Test
    void aTaskThatNoHostReachesGetsNoHeaderAsUnderTheLinearStrategy() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> command.equals("sysctl -n step1")
                ? new ExecResult(1, new byte[0], new byte[0]) : host(command);
        harness.run(THREE_STEPS, THREE_HOSTS);
        String human = harness.humanOutput();
        assertTrue(human.contains("TASK [one]") && !human.contains("TASK [two]") && !human.contains("TASK [three]"), human);
    }

    @Test
    void playHostsWaitsForEveryHostAndLeavesOutThoseThatFailed() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> {
            if (host.equals("node02") && command.equals("sysctl -n step1")) {
                pause(300); // node02 fails late: the others are at step2 by then
                return new ExecResult(1, new byte[0], new byte[0]);
            }
            return host(command);
        };
        harness.run(afterStepOne("""
                - name: two
                  sysctl: {name: "peers_${play_hosts?join('_')}", value: ok, sysctl_file: /etc/sysctl.d/t.conf}
                """), THREE_HOSTS);
        assertEquals(List.of("step1", "peers_node01_node03"), steps(harness, "node01"));
        assertEquals(List.of("step1", "peers_node01_node03"), steps(harness, "node03"));
    }

    @Test
    void aPlayHostsReaderAfterAnotherStillMeetsTheHostThatHadNotCaughtUp() {
        RunAhead progress = new RunAhead(Set.of("node01", "node02", "node03"));
        List<String> candidates = List.of("node01", "node02", "node03");
        for (String host : candidates) {
            progress.planningAhead(host, 1);
        }
        progress.finished("node02", 0);
        progress.finished("node03", 0);
        // node01 plans task 1 before its task 0 is applied: it lists itself, the others had caught up
        assertEquals(candidates, progress.stillInPlay("node01", candidates));
        // node02, after it, must not take that for "every host caught up": node01 had not
        assertThrows(RunAhead.NotCaughtUp.class, () -> progress.stillInPlay("node02", candidates));
        assertTrue(progress.metHostNotCaughtUp("node02"));
        progress.finished("node01", 0);
        assertEquals(candidates, progress.stillInPlay("node03", candidates));
        assertFalse(progress.metHostNotCaughtUp("node03"));
    }
}
