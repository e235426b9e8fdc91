package dev.provision.engine.e2e.bringup;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Review once, apply exactly that, on 8 fresh nodes with the site services: {@code --save-plan},
 * then node04 drifts, then {@code --apply-plan} converges the 7 others to exactly the plan and
 * leaves node04 untouched with the difference named; the printed re-plan and its apply converge
 * node04. A plan edited by hand is refused; no secret of the run is in the file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ClusterTest(nodes = SavedPlanIT.NODES, services = true)
class SavedPlanIT {
    static final int NODES = 8;
    private static final int DRIFTED = 4;
    private static final String BECOME_PASSWORD = "become-secret-7f3a9";

    private TestCluster cluster;
    private Path inventory;
    private Path knownHosts;
    private Path plan;

    @BeforeAll
    void writeTheInventory() throws Exception {
        inventory = cluster.bringUpInventory();
        knownHosts = cluster.tmp().resolve("controller_known_hosts");
        plan = cluster.tmp().resolve("cluster.plan.json");
    }

    private Result provision(String... args) throws Exception {
        return Provision.run(Map.of("PROVISION_KNOWN_HOSTS", knownHosts.toString(), "PROVISION_BECOME_PASSWORD", BECOME_PASSWORD),
                args);
    }

    @Test
    void reviewOnceApplyExactlyThatRefuseWhatDriftedThenReplanIt() throws Exception {
        Result saved = provision("-i", inventory.toString(), "--save-plan", plan.toString(), "playbooks/cluster.yml");
        assertEquals(0, saved.exitCode(), saved.output());
        assertTrue(saved.output().contains("Saved the plan to " + plan), saved.output());
        String file = Files.readString(plan);
        String clusterKey = Files.readString(cluster.tmp().resolve("cluster-key/id_ed25519"));
        String storageKey = Files.readString(Path.of("/run/provision-testcluster-services/storage/client_ed25519"));
        for (String secret : List.of(BECOME_PASSWORD, keyBody(clusterKey), keyBody(storageKey), "PRIVATE KEY")) {
            assertFalse(file.contains(secret), "a secret of the run is in the plan: " + secret.substring(0, Math.min(20, secret.length())));
        }
        Result shown = provision("--show-plan", plan.toString());
        assertEquals(0, shown.exitCode(), shown.output());
        assertTrue(shown.output().contains("+10.213.0.18 node08"), "the diffs, as --diff shows them:\n" + shown.output());

        String drifted = node(DRIFTED);
        cluster.inNode(DRIFTED, "echo '10.9.9.9 intruder' >> /etc/hosts").expectSuccess("drift on " + drifted);
        String untouched = cluster.inNode(DRIFTED, "cat /etc/hosts; ls -la /etc/sysctl.d /root/.ssh 2>&1").output();

        Path tampered = cluster.tmp().resolve("tampered.plan.json");
        Files.writeString(tampered, file.replace("\"mount\"", "\"mountX\""));
        assertFalse(file.equals(Files.readString(tampered)), "the tamper changed a command");
        Result refusedFile = provision("--apply-plan", tampered.toString());
        assertEquals(4, refusedFile.exitCode(), refusedFile.output());
        assertTrue(refusedFile.output().contains("does not match its digest"), refusedFile.output());

        Result applied = provision("--apply-plan", plan.toString());
        assertEquals(7, applied.exitCode(), "exit 7: a host drifted, none failed\n" + applied.output());
        List<String> driftLines = applied.output().lines().filter(l -> l.startsWith("drifted: ")).toList();
        assertEquals(1, driftLines.size(), applied.output());
        assertTrue(driftLines.getFirst().startsWith("drifted: [" + drifted + "] => task 'cluster : /etc/hosts lists every cluster node'"),
                driftLines.getFirst());
        assertEquals(untouched, cluster.inNode(DRIFTED, "cat /etc/hosts; ls -la /etc/sysctl.d /root/.ssh 2>&1").output(),
                drifted + " is left untouched");
        Result check = provision("-i", inventory.toString(), "--check", "playbooks/cluster.yml");
        for (int k = 1; k <= NODES; k++) {
            int changed = check.recap(node(k), "changed");
            if (k == DRIFTED) {
                assertTrue(changed > 10, drifted + " still needs everything:\n" + check.output());
            } else {
                assertEquals(0, changed, node(k) + " is exactly in the planned state:\n" + check.output());
            }
        }

        String replan = applied.output().lines().dropWhile(l -> !l.startsWith("Refused, changed since the plan")).skip(1)
                .findFirst().orElseThrow(() -> new AssertionError("no re-plan command:\n" + applied.output())).strip();
        Result replanned = Provision.printed(Map.of("PROVISION_KNOWN_HOSTS", knownHosts.toString()), replan);
        assertEquals(0, replanned.exitCode(), replanned.output());
        Result second = provision("--apply-plan", plan.toString());
        assertEquals(0, second.exitCode(), second.output());
        assertEquals(Set.of(drifted), second.recapHosts(), second.output());
        Result converged = provision("-i", inventory.toString(), "--check", "playbooks/cluster.yml");
        for (int k = 1; k <= NODES; k++) {
            assertEquals(0, converged.recap(node(k), "changed"), node(k) + ":\n" + converged.output());
        }
    }

    /** The base64 body of a private key file: what must never be in the plan. */
    private static String keyBody(String pem) {
        return pem.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
    }
}
