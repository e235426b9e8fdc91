package dev.provision.engine.e2e.bringup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.engine.e2e.SiteCluster;
import dev.provision.engine.e2e.SiteCluster.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ansible-test's quad for each cluster module on the 8-node test cluster over SSH: check (would
 * change, changes nothing) → apply (changed) → check (no change) → apply (no change).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModuleQuadClusterIT {
    private static final int NODES = 8;
    private SiteCluster.Session session;
    private Path knownHosts;
    private String key;

    @BeforeAll
    void startCluster() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "ModuleQuadClusterIT needs root; skipped");
        List<String> missing = List.of("flock", "unshare", "nsenter", "ip", "/usr/sbin/sshd", "ssh-keygen", "start-stop-daemon")
                .stream().filter(t -> !SiteCluster.onPath(t)).toList();
        assumeTrue(missing.isEmpty(), "ModuleQuadClusterIT skipped: missing " + missing + "; run .ci/install-deps");
        session = SiteCluster.Session.start("provision-quad-it", NODES, false);
        Path tmp = session.tmp;
        knownHosts = tmp.resolve("known_hosts");
        SiteCluster.run(java.util.Map.of(), List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "quad-test",
                "-f", tmp.resolve("quad").toString()), 2).expectSuccess("ssh-keygen");
        key = Files.readString(tmp.resolve("quad.pub")).strip();
    }

    @AfterAll
    void stop() throws Exception {
        if (session != null) {
            session.close();
        }
    }

    private Result provision(String playbook, String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("-i", SiteCluster.INVENTORY.toString(),
                "engine/src/test/resources/e2e/cluster-quad/" + playbook + ".yml",
                "-e", "quad_key='" + key + "'", "-e", "quad_key_body='" + key.substring(0, key.lastIndexOf(' ')) + "'"));
        args.addAll(List.of(extra));
        return SiteCluster.provision(knownHosts, args.toArray(String[]::new));
    }

    private static int changed(Result r, String host) {
        Matcher m = Pattern.compile("(?m)^" + host + "\\s+:.*\\bchanged=(\\d+)").matcher(r.output());
        assertTrue(m.find(), "no recap for " + host + ":\n" + r.output());
        return Integer.parseInt(m.group(1));
    }

    private static void everyNode(Result r, boolean changes, String step) {
        assertEquals(0, r.exitCode(), step + ":\n" + r.output());
        for (int k = 1; k <= NODES; k++) {
            String host = String.format("node%02d", k);
            int c = changed(r, host);
            assertTrue(changes ? c >= 1 : c == 0, step + " on " + host + " changed=" + c + ":\n" + r.output());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sysctl", "limits", "hosts", "authorized_key", "ssh_known_hosts", "mount", "service", "hostname", "user"})
    void checkApplyCheckApply(String module) throws Exception {
        Result check = provision(module, "--check");
        everyNode(check, true, "check on the fresh cluster");
        // Nothing was applied: a second check still forecasts the same change.
        everyNode(provision(module, "--check"), true, "second check");
        Result apply = provision(module);
        everyNode(apply, true, "apply");
        for (int k = 1; k <= NODES; k++) {
            String host = String.format("node%02d", k);
            assertEquals(changed(check, host), changed(apply, host), "the dry run forecast as many changes as the run made on "
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
            assertEquals(node + "-quad.cluster.test\n", SiteCluster.inNode(k, "hostname").expectSuccess("hostname").output());
            assertEquals(node + "-quad.cluster.test\n", SiteCluster.inNode(k, "cat /etc/hostname").expectSuccess("cat").output());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"service-stopped"})
    void serviceFallbackReallyStopsTheDaemon(String playbook) throws Exception {
        Result start = provision("service");
        assertEquals(0, start.exitCode(), start.output());
        assertEquals(0, SiteCluster.inNode(3, "start-stop-daemon --status --pidfile /run/quadsleep.pid").exitCode());
        everyNode(provision(playbook), true, "stop");
        assertTrue(SiteCluster.inNode(3, "start-stop-daemon --status --pidfile /run/quadsleep.pid").exitCode() != 0,
                "the daemon is gone");
        everyNode(provision(playbook), false, "stop again");
    }
}
