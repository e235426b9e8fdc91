package dev.provision.engine.e2e.cluster;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes that fail while a run is under way, on a real 8-node cluster: a node whose every sshd
 * process is killed, and a node whose processes are all stopped (SIGSTOP: the TCP connection stays
 * open and nothing answers), are {@code unreachable}, never {@code failed}; the others converge; the
 * run ends within its keepalive bound; the printed retry heals the killed ones.
 */
@ClusterTest(nodes = 8)
class NodeFaultsIT {
    private static final Path PLAYBOOK = Path.of("src/test/resources/e2e/faults/converge.yml").toAbsolutePath();

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString()));
        args.addAll(List.of(extra));
        args.add(PLAYBOOK.toString());
        return args;
    }

    /** Sends {@code signal} to every process in node K's network namespace whose command is {@code comm} (all when empty). */
    private static void signalNode(int k, String signal, String comm) throws Exception {
        String ns = "pvtc-" + node(k);
        String filter = comm.isEmpty() ? "cat" : "xargs -r ps -o pid=,comm= -p | awk '$2==\"" + comm + "\"{print $1}'";
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "ip netns pids " + ns + " | " + filter + " | xargs -r kill -" + signal)
                .redirectErrorStream(true);
        Process p = pb.start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    void sshdKilledOnTwoNodesMidRunMakesThemUnreachableTheOthersConvergeAndTheRetryHealsThem() throws Exception {
        Path log = tmp.resolve("killed.log");
        Process run = Provision.start(args(), ProcessBuilder.Redirect.to(log.toFile()));
        waitForOutput(log, "TASK [The pause in which nodes fail]");
        Thread.sleep(1000);
        signalNode(3, "KILL", "sshd");
        signalNode(6, "KILL", "sshd");
        assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the run ends");
        String output = Files.readString(log);
        System.out.println(output);

        assertEquals(3, run.exitValue(), "exit 3: unreachable hosts, none failed\n" + output);
        assertFalse(output.contains("failed: ["), output);
        assertFalse(output.contains("\tat ") || output.contains("Exception"), output);
        Provision.Result recap = new Provision.Result(args(), run.exitValue(), output);
        for (int k = 1; k <= 8; k++) {
            String node = node(k);
            boolean broken = k == 3 || k == 6;
            assertEquals(broken ? 1 : 0, recap.recap(node, "unreachable"), node + ":\n" + output);
            assertEquals(0, recap.recap(node, "failed"), node + ":\n" + output);
            if (!broken) {
                assertEquals("after " + node + "\n", cluster.exec(k, "cat", "/srv/faults/after"));
            }
        }
        assertTrue(output.contains("unreachable: [node03] => ssh: connection to 10.213.0.13:22 was lost"), output);

        cluster.sshdStart(3);
        cluster.sshdStart(6);
        Provision.Result healed = Provision.printed(recap.lastLine());
        assertEquals(0, healed.exitCode(), healed.output());
        assertEquals(Set.of("node03", "node06"), healed.recapHosts(), healed.output());
        assertEquals("after node03\n", cluster.exec(3, "cat", "/srv/faults/after"));
        assertEquals("after node06\n", cluster.exec(6, "cat", "/srv/faults/after"));
    }

    @Test
    void aStoppedNodeIsUnreachableWithinTheKeepaliveBoundAndTheOthersConverge() throws Exception {
        Path log = tmp.resolve("stopped.log");
        cluster.exec(1, "rm", "-rf", "/srv/faults");
        Process run = Provision.start(args("-e", "pause=6", "--limit", "node01,node02,node05"), ProcessBuilder.Redirect.to(log.toFile()));
        waitForOutput(log, "TASK [The pause in which nodes fail]");
        long stopped = System.nanoTime();
        signalNode(5, "STOP", "");
        try {
            assertTrue(run.waitFor(150, TimeUnit.SECONDS), "the run ends within its keepalive bound");
        } finally {
            signalNode(5, "CONT", "");
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - stopped);
        String output = Files.readString(log);
        System.out.println(output + "\n(run ended " + seconds + " s after node05 was stopped)");
        assertEquals(3, run.exitValue(), output);
        Provision.Result recap = new Provision.Result(List.of(), run.exitValue(), output);
        assertEquals(1, recap.recap("node05", "unreachable"), output);
        for (String node : List.of("node01", "node02")) {
            assertEquals(0, recap.recap(node, "unreachable") + recap.recap(node, "failed"), output);
        }
        assertEquals("after node01\n", cluster.exec(1, "cat", "/srv/faults/after"));
        assertTrue(seconds < 120, "keepalive (15 s x 3) bounds the wait: " + seconds + " s");
    }

    private static void waitForOutput(Path log, String text) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no '" + text + "' in:\n" + Files.readString(log));
    }
}
