package dev.provision.engine.e2e.bringup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ansible-test's quad for each cluster module on the 8-node test cluster over SSH: check (would
 * change, changes nothing) → apply (changed) → check (no change) → apply (no change).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ClusterTest(nodes = ModuleQuadClusterIT.NODES, needs = "start-stop-daemon")
class ModuleQuadClusterIT {
    static final int NODES = 8;
    private TestCluster cluster;
    private Path knownHosts;
    private String key;

    @BeforeAll
    void makeAKey() throws Exception {
        Path tmp = cluster.tmp();
        knownHosts = tmp.resolve("known_hosts");
        TestCluster.command(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "quad-test",
                "-f", tmp.resolve("quad").toString()), java.util.Map.of(), java.time.Duration.ofMinutes(2)).expectSuccess("ssh-keygen");
        key = Files.readString(tmp.resolve("quad.pub")).strip();
    }

    private Result provision(String playbook, String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("-i", TestCluster.INVENTORY.toString(),
                "engine/src/test/resources/e2e/cluster-quad/" + playbook + ".yml",
                "-e", "quad_key='" + key + "'", "-e", "quad_key_body='" + key.substring(0, key.lastIndexOf(' ')) + "'"));
        args.addAll(List.of(extra));
        return Provision.run(knownHosts, args.toArray(String[]::new));
    }

    private static void everyNode(Result r, boolean changes, String step) {
        assertEquals(0, r.exitCode(), step + ":\n" + r.output());
        for (int k = 1; k <= NODES; k++) {
            String host = String.format("node%02d", k);
            int c = r.recap(host, "changed");
            assertTrue(changes ? c >= 1 : c == 0, step + " on " + host + " changed=" + c + ":\n" + r.output());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sysctl", "limits", "hosts", "authorized_key", "ssh_known_hosts", "mount", "service", "hostname", "user", "timezone"})
    void checkApplyCheckApply(String module) throws Exception {
        Result check = provision(module, "--check");
        everyNode(check, true, "check on the fresh cluster");
        // Nothing was applied: a second check still forecasts the same change.
        everyNode(provision(module, "--check"), true, "second check");
        Result apply = provision(module);
        everyNode(apply, true, "apply");
        for (int k = 1; k <= NODES; k++) {
            String host = String.format("node%02d", k);
            assertEquals(check.recap(host, "changed"), apply.recap(host, "changed"), "the dry run forecast as many changes as the run made on "
                    + host + ":\n" + check.output() + "\n" + apply.output());
        }
        everyNode(provision(module, "--check"), false, "check after apply");
        everyNode(provision(module), false, "apply again");
    }

    @org.junit.jupiter.api.Test
    void hostnameRenamesTheNodeLiveAndInEtcHostname() throws Exception {
        Result renamed = provision("hostname");
        assertEquals(0, renamed.exitCode(), renamed.output());
        for (int k = 1; k <= NODES; k++) {
            String node = String.format("node%02d", k);
            assertEquals(node + "-quad.cluster.test\n", cluster.inNode(k, "hostname").expectSuccess("hostname").output());
            assertEquals(node + "-quad.cluster.test\n", cluster.inNode(k, "cat /etc/hostname").expectSuccess("cat").output());
        }
    }

    /**
     * Another zone than the quad's, so that this test and the quad each find something to change
     * in whichever order they run.
     */
    @org.junit.jupiter.api.Test
    void timezoneLinksLocaltimeAndNewProcessesSeeTheZone() throws Exception {
        Path own = Path.of("/etc/localtime");
        String ownBefore = Files.isSymbolicLink(own) ? Files.readSymbolicLink(own).toString() : "not a link";
        Result set = provision("timezone", "-e", "quad_zone=Etc/GMT+5");
        assertEquals(0, set.exitCode(), set.output());
        for (int k = 1; k <= NODES; k++) {
            assertEquals("/usr/share/zoneinfo/Etc/GMT+5\n", cluster.inNode(k, "readlink /etc/localtime").expectSuccess("readlink").output());
            assertEquals("Etc/GMT+5\n", cluster.inNode(k, "cat /etc/timezone").expectSuccess("cat").output());
            assertEquals("LOCAL\n", cluster.inNode(k, "sed -n 3p /etc/adjtime").expectSuccess("sed").output());
            assertEquals("-0500\n", cluster.inNode(k, "env -u TZ date +%z").expectSuccess("date").output());
        }
        assertEquals(ownBefore, Files.isSymbolicLink(own) ? Files.readSymbolicLink(own).toString() : "not a link",
                "this machine's own /etc/localtime is untouched");
    }

    @ParameterizedTest
    @ValueSource(strings = {"service-stopped"})
    void serviceFallbackReallyStopsTheDaemon(String playbook) throws Exception {
        Result start = provision("service");
        assertEquals(0, start.exitCode(), start.output());
        assertEquals(0, cluster.inNode(3, "start-stop-daemon --status --pidfile /run/quadsleep.pid").exitCode());
        everyNode(provision(playbook), true, "stop");
        assertTrue(cluster.inNode(3, "start-stop-daemon --status --pidfile /run/quadsleep.pid").exitCode() != 0,
                "the daemon is gone");
        everyNode(provision(playbook), false, "stop again");
    }
}
