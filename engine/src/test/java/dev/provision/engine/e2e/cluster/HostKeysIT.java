package dev.provision.engine.e2e.cluster;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host keys and keys against a real 8-node cluster: a rebuilt node is refused with both fingerprints
 * until the printed {@code --replaced} command accepts it; a strict run against an empty store refuses
 * everyone; a node that refuses our key is unreachable with an authentication message. Every test
 * uses its own known-hosts file.
 */
@ClusterTest(nodes = 8)
class HostKeysIT {
    private static final int REBUILT = 5;

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    private static Provision.Result provision(Path knownHosts, String... extra) throws Exception {
        return provision(cluster.inventory(), knownHosts, extra);
    }

    private static Provision.Result provision(Path inventory, Path knownHosts, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("-i", inventory.toString(), "--known-hosts", knownHosts.toString()));
        args.addAll(List.of(extra));
        args.add(ClusterConvergenceIT.PLAYBOOK.toString());
        return Provision.run(args);
    }

    @Test
    void rebuiltNodeIsRefusedWithBothFingerprintsUntilThePrintedReplacedCommandAcceptsAndConvergesIt() throws Exception {
        Path knownHosts = tmp.resolve("replaced_known_hosts");
        Provision.Result first = provision(knownHosts);
        assertEquals(0, first.exitCode(), first.output());
        String node = node(REBUILT);
        String oldFingerprint = cluster.fingerprint(REBUILT, "ed25519");
        List<String> storeBefore = Files.readAllLines(knownHosts);
        assertTrue(storeBefore.stream().anyMatch(l -> l.startsWith(node + "," + cluster.address(REBUILT) + " ssh-ed25519 ")),
                "the store records " + node + "'s ed25519 key under its name and address:\n" + storeBefore);

        cluster.replace(REBUILT);
        String newFingerprint = cluster.fingerprint(REBUILT, "ed25519");
        assertNotEquals(oldFingerprint, newFingerprint);
        Provision.Result refused = provision(knownHosts);

        assertEquals(3, refused.exitCode(), "unreachable, nothing failed:\n" + refused.output());
        List<String> refusal = refused.linesStartingWith("unreachable: [" + node + "]");
        assertEquals(1, refusal.size(), refused.output());
        assertEquals("unreachable: [" + node + "] => host key for " + node + " (" + cluster.address(REBUILT)
                + ") has changed: known ssh-ed25519 " + oldFingerprint + " (in " + knownHosts + "), offered ssh-ed25519 "
                + newFingerprint + "; only if " + node + " was rebuilt, accept its new key by running again with --replaced "
                + node, refusal.get(0));
        assertEquals(1, refused.recap(node, "unreachable"), refused.output());
        for (String other : others()) {
            assertEquals(0, refused.recap(other, "changed") + refused.recap(other, "unreachable"), refused.output());
        }
        assertEquals(storeBefore, Files.readAllLines(knownHosts), "a refused key is never recorded");
        String accept = refused.lineAfter("accept the new key and converge it with:").orElseThrow(
                () -> new AssertionError("no accept command in:\n" + refused.output()));
        assertEquals(Provision.LAUNCHER + " -i " + cluster.inventory() + " --known-hosts " + knownHosts + " "
                + ClusterConvergenceIT.PLAYBOOK + " --replaced " + node, accept);
        assertFalse(refused.output().contains("To retry"), "a plain retry would be refused again; the one hint is the accept command:\n"
                + refused.output());

        Provision.Result accepted = Provision.printed(accept);

        assertEquals(0, accepted.exitCode(), accepted.output());
        assertEquals(Set.copyOf(cluster.nodeNames()), accepted.recapHosts(), "the whole cluster runs:\n" + accepted.output());
        assertTrue(accepted.recap(node, "changed") >= 8, "the fresh node is converged:\n" + accepted.output());
        for (String other : cluster.nodeNames()) {
            if (!other.equals(node)) {
                assertEquals(0, accepted.recap(other, "changed"), "the others are unaffected:\n" + accepted.output());
            }
        }
        assertEquals("hostname=" + node + "\n", cluster.exec(REBUILT, "cat", "/srv/provision-e2e/data/hostname"));
        List<String> storeAfter = Files.readAllLines(knownHosts);
        assertEquals(withoutNode(storeBefore, node), withoutNode(storeAfter, node), "other hosts' keys are untouched");
        assertEquals(List.of(node + "," + cluster.address(REBUILT) + " " + cluster.hostKey(REBUILT, "ed25519")),
                storeAfter.stream().filter(l -> mentions(l, node)).toList(), "only the new key is recorded for " + node);

        Provision.Result everyone = provision(knownHosts);
        assertEquals(0, everyone.exitCode(), everyone.output());
        for (String each : cluster.nodeNames()) {
            assertEquals(0, everyone.recap(each, "changed"), each + " in:\n" + everyone.output());
        }
    }

    @Test
    void strictHostKeysAgainstAnEmptyStoreRefusesEveryNodeAsNotKnown() throws Exception {
        Path empty = tmp.resolve("empty_known_hosts");

        Provision.Result strict = provision(empty, "--strict-host-keys");

        assertEquals(3, strict.exitCode(), strict.output());
        for (int k = 1; k <= cluster.size(); k++) {
            String node = node(k);
            assertEquals(List.of("unreachable: [" + node + "] => host key for " + node + " (" + cluster.address(k)
                    + ") is not known and --strict-host-keys refuses unknown hosts; record it with a run without"
                    + " --strict-host-keys, or add it to " + empty), strict.linesStartingWith("unreachable: [" + node + "]"));
            assertEquals(1, strict.recap(node, "unreachable"), strict.output());
            assertEquals(0, strict.recap(node, "ok"), strict.output());
        }
        assertFalse(Files.exists(empty), "strict mode records nothing");
        assertFalse(strict.output().contains("Exception"), strict.output());
    }

    @Test
    void nodeThatRefusesOurKeyIsUnreachableWithAnAuthenticationMessageWhileTheOthersConverge() throws Exception {
        Path strangerKey = tmp.resolve("stranger_ed25519");
        Process keygen = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "stranger", "-f",
                strangerKey.toString()).redirectErrorStream(true).start();
        assertEquals(0, keygen.waitFor(), new String(keygen.getInputStream().readAllBytes()));
        int refusing = 2;
        String node = node(refusing);
        Path inventory = tmp.resolve("inventory-stranger-key.yml");
        Files.writeString(inventory, inventoryWithKey(refusing, strangerKey));

        Provision.Result run = provision(inventory, tmp.resolve("auth_known_hosts"));

        assertEquals(3, run.exitCode(), run.output());
        assertEquals(List.of("unreachable: [" + node + "] => ssh: authentication as root to " + cluster.address(refusing)
                + ":22 failed (tried keys: " + strangerKey + ")"), run.linesStartingWith("unreachable: [" + node + "]"));
        assertEquals(1, run.recap(node, "unreachable"), run.output());
        for (String other : cluster.nodeNames()) {
            if (!other.equals(node)) {
                assertEquals(0, run.recap(other, "unreachable") + run.recap(other, "failed"), run.output());
            }
        }
        assertEquals(Provision.LAUNCHER + " -i " + inventory + " --known-hosts " + tmp.resolve("auth_known_hosts") + " "
                + ClusterConvergenceIT.PLAYBOOK + " --limit " + node, run.lastLine());
    }

    /** The cluster's inventory, but {@code strangerKey} for node {@code k}. */
    private static String inventoryWithKey(int k, Path strangerKey) {
        StringBuilder yaml = new StringBuilder("all:\n  children:\n    cluster:\n      hosts:\n");
        for (int i = 1; i <= cluster.size(); i++) {
            yaml.append("        ").append(node(i)).append(":\n")
                    .append("          ansible_host: ").append(cluster.address(i)).append('\n')
                    .append("          ansible_user: root\n")
                    .append("          ansible_ssh_private_key_file: ").append(i == k ? strangerKey : cluster.clientKey()).append('\n');
        }
        return yaml.toString();
    }

    private static List<String> others() {
        return cluster.nodeNames().stream().filter(n -> !n.equals(node(REBUILT))).toList();
    }

    private static List<String> withoutNode(List<String> store, String node) {
        return store.stream().filter(l -> !mentions(l, node)).toList();
    }

    private static boolean mentions(String knownHostsLine, String node) {
        return List.of(knownHostsLine.split("\\s+")[0].split(",")).contains(node);
    }
}
