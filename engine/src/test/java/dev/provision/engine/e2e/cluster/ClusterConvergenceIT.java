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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end playbook (files, templates with per-host values, a loop, a handler) against a fresh
 * 8-node test cluster over SSH: a dry run changes nothing, the first run converges every node over
 * one connection each, the second run changes nothing. The tests run in order on one cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = 8)
class ClusterConvergenceIT {
    static final Path PLAYBOOK = Path.of("src/test/resources/e2e/cluster/site.yml").toAbsolutePath();
    /** Everything the playbook writes is under these; /etc as a whole also proves nothing else moved. */
    private static final String[] WATCHED = {"/etc", "/srv/provision-e2e"};

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    private static Provision.Result provision(String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString()));
        args.addAll(List.of(extra));
        args.add(PLAYBOOK.toString());
        return Provision.run(args);
    }

    @Test
    @Order(1)
    void checkDiffOnFreshClusterPrintsEveryNodesDiffsAndLeavesItsFilesByteIdentical() throws Exception {
        Map<Integer, String> before = digests();
        Map<Integer, Integer> logins = logins();

        Provision.Result check = provision("--check", "--diff");

        assertEquals(0, check.exitCode(), check.output());
        for (int k = 1; k <= cluster.size(); k++) {
            String node = node(k);
            assertTrue(check.output().contains("+name = " + node + "\n+hostname = " + node + "\n+address = "
                    + cluster.address(k) + "\n"), "per-host template diff of " + node + " in:\n" + check.output());
            assertTrue(check.output().contains("+node.conf (re)written for " + node), check.output());
            assertTrue(check.recap(node, "changed") >= 8, check.output());
            assertEquals(0, check.recap(node, "unreachable") + check.recap(node, "failed"), check.output());
        }
        assertTrue(check.output().contains("+" + cluster.address(8) + " " + node(8) + "\n"),
                "every node's file lists the whole cluster:\n" + check.output());
        assertEquals(before, digests(), "--check must leave every node's files byte-identical");
        assertEquals(plusOne(logins), logins(), "one SSH login per node per run");
    }

    @Test
    @Order(2)
    void firstRunConvergesEveryNodeOverOneConnectionEach() throws Exception {
        Map<Integer, Integer> logins = logins();

        Provision.Result run = provision();

        assertEquals(0, run.exitCode(), run.output());
        assertEquals(cluster.nodeNames(), List.copyOf(run.recapHosts()), run.output());
        for (int k = 1; k <= cluster.size(); k++) {
            String node = node(k);
            assertTrue(run.recap(node, "changed") >= 8, run.output());
            assertEquals(0, run.recap(node, "failed") + run.recap(node, "unreachable"), run.output());
            assertEquals("# " + node + ": rendered by provision on the controller\nname = " + node + "\nhostname = " + node
                    + "\naddress = " + cluster.address(k) + "\ngroups = cluster, gpu\n",
                    cluster.exec(k, "cat", "/etc/provision-e2e/node.conf"));
            assertEquals("640 root", cluster.exec(k, "stat", "-c", "%a %U", "/etc/provision-e2e/node.conf").strip());
            assertEquals("hostname=" + node + "\n", cluster.exec(k, "cat", "/srv/provision-e2e/data/hostname"));
            assertEquals("node.conf (re)written for " + node + "\n",
                    cluster.exec(k, "cat", "/srv/provision-e2e/logs/changes.log"), "the handler ran once on " + node);
        }
        assertTrue(run.output().contains("RUNNING HANDLER [record the change]"), run.output());
        assertEquals(plusOne(logins), logins(), "one SSH login per node for the whole run (about 12 tasks)");
    }

    @Test
    @Order(3)
    void secondRunChangesNothingOnAnyNode() throws Exception {
        Map<Integer, String> before = digests();
        Map<Integer, Integer> logins = logins();

        Provision.Result again = provision();

        assertEquals(0, again.exitCode(), again.output());
        for (String node : cluster.nodeNames()) {
            assertEquals(0, again.recap(node, "changed"), node + " in:\n" + again.output());
            assertEquals(0, again.recap(node, "failed") + again.recap(node, "unreachable"), again.output());
            assertTrue(again.recap(node, "ok") >= 10, again.output());
        }
        assertFalse(again.output().contains("RUNNING HANDLER"), again.output());
        assertFalse(again.output().contains("To retry"), again.output());
        assertEquals(before, digests(), "a converged node must not be touched");
        assertEquals(plusOne(logins), logins(), "one SSH login per node per run");
        assertTrue(Files.readString(tmp.resolve("known_hosts")).lines().count() >= cluster.size());
    }

    private static Map<Integer, String> digests() throws Exception {
        Map<Integer, String> digests = new LinkedHashMap<>();
        for (int k = 1; k <= cluster.size(); k++) {
            digests.put(k, cluster.treeDigest(k, WATCHED));
        }
        return digests;
    }

    private static Map<Integer, Integer> logins() throws Exception {
        Map<Integer, Integer> logins = new LinkedHashMap<>();
        for (int k = 1; k <= cluster.size(); k++) {
            logins.put(k, cluster.acceptedLogins(k));
        }
        return logins;
    }

    private static Map<Integer, Integer> plusOne(Map<Integer, Integer> logins) {
        Map<Integer, Integer> next = new LinkedHashMap<>();
        logins.forEach((k, n) -> next.put(k, n + 1));
        return next;
    }
}
