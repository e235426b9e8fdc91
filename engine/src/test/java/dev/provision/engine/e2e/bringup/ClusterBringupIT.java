package dev.provision.engine.e2e.bringup;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code playbooks/cluster.yml} on an 8-node test cluster with real NTP, sshfs storage, registry and
 * apt repository on the bridge (testcluster/services): fresh bring-up, idempotence, drift shown by
 * {@code --check --diff} and repaired, and a replaced node restored by the one documented command.
 * The steps build on each other, in order, on one cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = ClusterBringupIT.NODES, services = true)
class ClusterBringupIT {
    static final int NODES = 8;
    private static final String PLAYBOOK = "playbooks/cluster.yml";
    private static final String KNOWN_HOSTS_TASK = "cluster : Every node's host key in /etc/ssh/ssh_known_hosts";
    private static final int NOFILE = 16384;

    /** The controller-side tasks that run for real under --check too ({@code check_mode: false}). */
    private static final Set<String> CONTROLLER_KEY_TASKS = Set.of("cluster : Directory for the cluster key pair (controller)",
            "cluster : Cluster key pair (controller, made once)");

    /** What the fresh dry run said each host would change, for the converge that follows. */
    private Map<String, Set<String>> freshForecast;
    /** The cluster with its services; its {@code tmp()} holds the inventory, controller known_hosts, cluster key. */
    private TestCluster cluster;
    private Path inventory;
    private Path knownHosts;

    @BeforeAll
    void writeTheInventory() throws Exception {
        inventory = cluster.bringUpInventory();
        knownHosts = cluster.tmp().resolve("controller_known_hosts");
    }

    /**
     * The dry run on fresh nodes: exit 0, nothing changed on any node, the diffs, the registry's
     * digest and the handler the run fires. Its per-host list of changed tasks is kept for the
     * converge that follows ({@code check_mode: false} tasks on the controller are real in both).
     */
    @Test
    @Order(0)
    void freshClusterDryRunShowsTheDiffsTheDigestAndTheHandlerAndChangesNothing() throws Exception {
        Map<Integer, String> before = nodeStates();
        Result check = Provision.run(knownHosts, "-i", inventory.toString(), "--check", "--diff", PLAYBOOK);
        assertEquals(0, check.exitCode(), check.output());
        assertEquals(before, nodeStates(), "--check must change nothing on any node");
        String digest = TestCluster.command(List.of("skopeo", "inspect", "--tls-verify=false", "--format", "{{.Digest}}",
                "docker://10.213.0.1:5000/train:latest"), Map.of(), Duration.ofMinutes(2)).expectSuccess("skopeo inspect on the controller").output().strip();
        assertTrue(check.output().contains("+" + digest + "\n"), "the pull's diff names the registry's digest " + digest + ":\n" + check.output());
        assertTrue(check.output().contains("RUNNING HANDLER [cluster : restart chrony]"), check.output());
        assertTrue(check.output().contains("+10.213.0.18 node08\n"), "the diff of /etc/hosts:\n" + check.output());
        freshForecast = check.changedTasks(NODES);
        for (int k = 1; k <= NODES; k++) {
            assertTrue(freshForecast.get(node(k)).contains("cluster : restart chrony"), node(k) + ":\n" + check.output());
            // made for real by the dry run (check_mode: false on the controller), so ok in the converge
            freshForecast.get(node(k)).removeAll(CONTROLLER_KEY_TASKS);
        }
    }

    @Test
    @Order(1)
    void freshClusterConvergesOnEveryNode() throws Exception {
        assertFalse(cluster.inNode(5, "dpkg -s numactl >/dev/null 2>&1").exitCode() == 0,
                "numactl must not be installed on this machine, or the test proves nothing about the apt repository");
        long started = System.nanoTime();
        Result run = Provision.run(knownHosts, "-i", inventory.toString(), PLAYBOOK);
        System.out.printf("fresh bring-up of %d nodes: %d s%n", NODES, (System.nanoTime() - started) / 1_000_000_000L);
        assertEquals(0, run.exitCode(), run.output());
        for (int k = 1; k <= NODES; k++) {
            assertTrue(run.recap(node(k), "changed") > 10, run.output());
        }
        assertEquals(freshForecast, run.changedTasks(NODES),
                "the fresh dry run forecast exactly the tasks the converge changed:\n" + run.output());
        assertClusterConverged(List.of(1, 2, 3, 4, 5, 6, 7, 8));
    }

    @Test
    @Order(2)
    void secondRunChangesNothing() throws Exception {
        Result check = Provision.run(knownHosts, "-i", inventory.toString(), "--check", PLAYBOOK);
        assertEquals(0, check.exitCode(), check.output());
        for (int k = 1; k <= NODES; k++) {
            assertEquals(0, check.recap(node(k), "changed"), node(k) + ":\n" + check.output());
        }
        Result run = Provision.run(knownHosts, "-i", inventory.toString(), PLAYBOOK);
        assertEquals(0, run.exitCode(), run.output());
        for (int k = 1; k <= NODES; k++) {
            assertEquals(0, run.recap(node(k), "changed"), node(k) + ":\n" + run.output());
        }
    }

    @Test
    @Order(3)
    void driftOnOneNodeIsShownExactlyByCheckDiffThenRepaired() throws Exception {
        cluster.inNode(4, """
                sed -i 's/^net.ipv4.tcp_mtu_probing = 1$/net.ipv4.tcp_mtu_probing = 0/' /etc/sysctl.d/90-provision-cluster.conf
                sed -i '/ provision-cluster$/d' /root/.ssh/authorized_keys
                umount /data
                """).expectSuccess("planting drift on node04");
        Map<Integer, String> before = nodeStates();

        Result check = Provision.run(knownHosts, "-i", inventory.toString(), "--check", "--diff", PLAYBOOK);
        assertEquals(0, check.exitCode(), check.output());
        assertEquals(before, nodeStates(), "--check must change nothing on any node");
        Map<String, Set<String>> changed = check.changedTasks(NODES);
        assertEquals(Set.of("cluster : Kernel parameters (drop-in and live value)",
                "cluster : Cluster key (and admin keys) authorized for the cluster user",
                "cluster : Shared storage mounted"), changed.get("node04"), check.output());
        for (int k = 1; k <= NODES; k++) {
            if (k != 4) {
                assertEquals(0, check.recap(node(k), "changed"), node(k) + " must show nothing:\n" + check.output());
            }
        }
        assertTrue(check.output().contains("-net.ipv4.tcp_mtu_probing = 0\n+net.ipv4.tcp_mtu_probing = 1"), check.output());
        assertTrue(Pattern.compile("(?m)^\\+ssh-ed25519 \\S+ provision-cluster$").matcher(check.output()).find(), check.output());
        assertTrue(check.output().contains("-not mounted\n+mounted from root@10.213.0.1:/data"), check.output());

        Result repair = Provision.run(knownHosts, "-i", inventory.toString(), PLAYBOOK);
        assertEquals(0, repair.exitCode(), repair.output());
        assertEquals(changed, repair.changedTasks(NODES), "--check forecast the repair:\n" + repair.output());
        assertEquals(3, repair.recap("node04", "changed"), repair.output());
        assertClusterConverged(List.of(4));
        Result again = Provision.run(knownHosts, "-i", inventory.toString(), PLAYBOOK);
        for (int k = 1; k <= NODES; k++) {
            assertEquals(0, again.recap(node(k), "changed"), node(k) + ":\n" + again.output());
        }
    }

    @Test
    @Order(4)
    void replacedNodeIsRestoredByTheOneDocumentedCommand() throws Exception {
        String knownHostsBefore = cluster.inNode(1, "cat /etc/ssh/ssh_known_hosts").expectSuccess("read known hosts").output();
        cluster.replace(3);
        // Without --replaced the controller refuses node03's new key and says which command accepts it.
        Result refused = Provision.run(knownHosts, "-i", inventory.toString(), "--check", PLAYBOOK);
        assertTrue(refused.output().contains("--replaced node03"), refused.output());

        long started = System.nanoTime();
        Result run = Provision.run(knownHosts, "-i", inventory.toString(), "--replaced", "node03", PLAYBOOK);
        System.out.printf("re-converging replaced node03: %d s%n", (System.nanoTime() - started) / 1_000_000_000L);
        assertEquals(0, run.exitCode(), run.output());
        Map<String, Set<String>> changed = run.changedTasks(NODES);
        assertTrue(changed.get("node03").size() > 10, run.output());
        for (int k = 1; k <= NODES; k++) {
            if (k != 3) {
                assertEquals(Set.of(KNOWN_HOSTS_TASK), changed.get(node(k)), node(k) + ":\n" + run.output());
                assertEquals(1, run.recap(node(k), "changed"), run.output());
            }
        }
        String knownHostsAfter = cluster.inNode(1, "cat /etc/ssh/ssh_known_hosts").expectSuccess("read known hosts").output();
        Set<String> removed = new TreeSet<>(knownHostsBefore.lines().toList());
        removed.removeAll(knownHostsAfter.lines().toList());
        Set<String> added = new TreeSet<>(knownHostsAfter.lines().toList());
        added.removeAll(knownHostsBefore.lines().toList());
        assertEquals(1, removed.size(), "old node03 line: " + removed);
        assertEquals(1, added.size(), "new node03 line: " + added);
        assertTrue(removed.iterator().next().startsWith("node03,") && added.iterator().next().startsWith("node03,"),
                removed + " -> " + added);
        assertClusterConverged(List.of(1, 2, 3, 4, 5, 6, 7, 8));
    }

    /** Everything the bring-up promises, checked on {@code nodes} (and SSH from them to every node). */
    private void assertClusterConverged(List<Integer> nodes) throws Exception {
        String marker = "written-on-node" + nodes.getFirst() + "-" + System.nanoTime();
        cluster.inNode(nodes.getFirst(), "echo " + marker + " > /data/bringup-probe").expectSuccess("write to /data");
        StringBuilder allNames = new StringBuilder();
        StringBuilder sshLoop = new StringBuilder();
        for (int k = 1; k <= NODES; k++) {
            allNames.append(' ').append(node(k));
        }
        sshLoop.append("for n in").append(allNames).append("; do ")
                .append("h=$(ssh -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=10 $n hostname) ")
                .append("&& [ \"$h\" = \"$n\" ] && echo \"ssh-ok $n\" || echo \"ssh-FAILED $n\"; done");
        for (int k : nodes) {
            String name = node(k);
            String names = cluster.inNode(k, "for n in" + allNames + "; do getent hosts $n || echo unresolved $n; done").output();
            for (int j = 1; j <= NODES; j++) {
                assertTrue(names.contains("10.213.0." + (10 + j) + " ") && names.contains(" " + node(j)), name + " resolves:\n" + names);
            }
            assertFalse(names.contains("unresolved") || names.contains("127.0.1.1"), name + ":\n" + names);

            String ssh = cluster.inNode(k, sshLoop.toString()).output();
            for (int j = 1; j <= NODES; j++) {
                assertTrue(ssh.contains("ssh-ok " + node(j)), name + " -> " + node(j) + " (strict host keys):\n" + ssh);
            }

            // unquoted $(...): the tabs sysctl prints become single spaces
            TestCluster.Result sysctl = cluster.inNode(k, "cat /etc/sysctl.d/90-provision-cluster.conf; echo live:"
                    + " $(sysctl -n net.ipv4.tcp_rmem) / $(sysctl -n net.core.somaxconn) / $(sysctl -n net.ipv4.tcp_mtu_probing)");
            assertTrue(sysctl.output().contains("net.core.rmem_max = 2147483647\n"), name + ":\n" + sysctl.output());
            assertTrue(sysctl.output().contains("net.ipv4.tcp_mtu_probing = 1\n"), name + ":\n" + sysctl.output());
            assertTrue(sysctl.output().contains("live: 4096 87380 2147483647 / 65535 / 1"), name + ":\n" + sysctl.output());

            // A new login session: the node's sshd runs pam_limits, which reads limits.d.
            TestCluster.Result ulimit = cluster.inNode(k, "ssh -o StrictHostKeyChecking=yes -o BatchMode=yes " + name + " 'ulimit -n'");
            assertEquals(String.valueOf(NOFILE), ulimit.output().strip(), name + " nofile in a login session");

            assertEquals(0, cluster.inNode(k, "dpkg -s numactl | grep -q '^Status: install ok installed'").exitCode(), name + " numactl");

            String mounted = cluster.inNode(k, "findmnt -n -o SOURCE,FSTYPE /data; cat /data/bringup-probe").output();
            assertTrue(mounted.contains("root@10.213.0.1:/data fuse.sshfs") && mounted.contains(marker), name + " /data:\n" + mounted);
        }
        assertChronySynchronised(nodes);
        assertSameImageDigest(nodes);
    }

    private void assertChronySynchronised(List<Integer> nodes) throws Exception {
        for (int k : nodes) {
            // iburst: a handful of seconds; the server is one hop away on the bridge.
            TestCluster.Result sources = null;
            for (int attempt = 0; attempt < 60; attempt++) {
                sources = cluster.inNode(k, "chronyc -n sources; chronyc -n tracking");
                if (Pattern.compile("(?m)^\\^\\* 10\\.213\\.0\\.1 ").matcher(sources.output()).find()
                        && sources.output().contains("Reference ID    : 0AD50001 (10.213.0.1)")) {
                    break;
                }
                Thread.sleep(1000);
            }
            assertTrue(sources.output().contains("Reference ID    : 0AD50001 (10.213.0.1)"), node(k) + " chrony:\n" + sources.output());
        }
    }

    private void assertSameImageDigest(List<Integer> nodes) throws Exception {
        Set<String> digests = new LinkedHashSet<>();
        for (int k : nodes) {
            String digest = cluster.inNode(k, "podman image inspect --format '{{.Digest}}' 10.213.0.1:5000/train:latest")
                    .expectSuccess(node(k) + " image inspect").output().strip();
            assertTrue(digest.startsWith("sha256:"), node(k) + ": " + digest);
            digests.add(digest);
        }
        assertEquals(1, digests.size(), "one digest on all nodes: " + digests);
    }

    /** What --check must not touch: every node's written files (/etc, /root, /srv, /opt, /var/lib: the image store), mounts, a live value. */
    private Map<Integer, String> nodeStates() throws Exception {
        Map<Integer, String> states = new LinkedHashMap<>();
        for (int k = 1; k <= NODES; k++) {
            states.put(k, cluster.inNode(k, "cd / && find etc root srv opt var/lib -xdev -newer etc/hostname \\( -type f -o -type d \\) -not -path 'var/lib/chrony*' -not -path 'var/lib/containers/cache*' -not -name '*.lock' -printf '%p %m %u\\n' 2>/dev/null | sort;"
                    + " find etc root srv opt var/lib -xdev -newer etc/hostname -type f -not -path 'var/lib/chrony*' -not -path 'var/lib/containers/cache*' -not -name '*.lock' -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum;"
                    + " grep ' /data ' /proc/mounts; sysctl -n net.ipv4.tcp_mtu_probing")
                    .output());
        }
        return states;
    }


}
