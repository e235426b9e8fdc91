package dev.provision.engine.e2e.cluster;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose sshd is down, on a real 8-node cluster: one clear {@code unreachable} line, the others
 * converge, exit code 3, and the recap ends with the command that retries that node alone, which
 * converges it once its sshd is back.
 */
@ClusterTest(nodes = 8)
class UnreachableNodeIT {
    private static final int DOWN = 3;

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    @Test
    void nodeWithSshdDownIsUnreachableTheOthersConvergeAndThePrintedRetryConvergesItAloneOnceHealed() throws Exception {
        String node = node(DOWN);
        cluster.sshdStop(DOWN);

        Provision.Result run = Provision.run("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString(), ClusterConvergenceIT.PLAYBOOK.toString());

        assertEquals(3, run.exitCode(), "exit 3: a host was unreachable, none failed\n" + run.output());
        assertEquals(List.of("unreachable: [" + node + "] => ssh: connect to " + cluster.address(DOWN)
                + ":22: connection refused"), run.linesStartingWith("unreachable: "), run.output());
        assertFalse(run.output().contains("Exception") || run.output().contains("\tat "), "no stack trace:\n" + run.output());
        assertEquals(1, run.output().lines().filter(l -> l.contains("[" + node + "]")).count(),
                "one line about " + node + " before the recap:\n" + run.output());
        assertEquals(1, run.recap(node, "unreachable"), run.output());
        assertEquals(0, run.recap(node, "ok") + run.recap(node, "failed"), run.output());
        for (String other : cluster.nodeNames()) {
            if (!other.equals(node)) {
                assertTrue(run.recap(other, "changed") >= 8, other + " converges:\n" + run.output());
                assertEquals(0, run.recap(other, "unreachable") + run.recap(other, "failed"), run.output());
            }
        }
        String retry = run.lastLine();
        assertEquals(Provision.LAUNCHER + " -i " + cluster.inventory() + " --known-hosts " + tmp.resolve("known_hosts") + " "
                + ClusterConvergenceIT.PLAYBOOK + " --limit " + node, retry, "the recap ends with the retry command");

        cluster.sshdStart(DOWN);
        Provision.Result healed = Provision.printed(retry);

        assertEquals(0, healed.exitCode(), healed.output());
        assertEquals(Set.of(node), healed.recapHosts(), "only the healed node runs:\n" + healed.output());
        assertTrue(healed.recap(node, "changed") >= 8, healed.output());
        assertEquals("hostname=" + node + "\n", cluster.exec(DOWN, "cat", "/srv/provision-e2e/data/hostname"));
        assertEquals("node.conf (re)written for " + node + "\n", cluster.exec(DOWN, "cat", "/srv/provision-e2e/logs/changes.log"));
    }
}
