package dev.provision.engine.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts that restart in the middle of a run, on real sshd nodes whose sshd and every session of it go
 * away and come back: {@code reboot} waits for the new boot and the run goes on over a new
 * connection; a restart started with {@code async}/{@code poll: 0} does not fail its task, and
 * {@code wait_for_connection} waits for the node; a dry run restarts nothing; a node that never comes
 * back is unreachable within the timeout, not waited for without end.
 */
@ClusterTest(nodes = 2)
class RebootIT {
    static final Path PLAYBOOK = Provision.REPO.resolve("engine/src/test/resources/e2e/reboot/restart.yml");

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    private Provision.Result run(String... extra) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString()));
        args.addAll(java.util.List.of(extra));
        return Provision.run(args);
    }

    @Test
    void restartsAreWaitedForAndTheRunGoesOnOverNewConnections() throws Exception {
        for (int k = 1; k <= 2; k++) {
            cluster.exec(k, "sh", "-c", "printf boot-0 > /root/boot-id");
        }
        Provision.Result check = run("--check", PLAYBOOK.toString());
        assertEquals(0, check.exitCode(), check.output());
        assertTrue(check.output().contains("would restart " + TestCluster.node(1)), check.output());
        assertEquals("boot-0", cluster.exec(1, "cat", "/root/boot-id"), "a dry run restarts nothing");

        Provision.Result r = run(PLAYBOOK.toString());
        assertEquals(0, r.exitCode(), r.output());
        for (int k = 1; k <= 2; k++) {
            String boot = cluster.exec(k, "cat", "/root/boot-id").strip();
            assertTrue(boot.startsWith("boot-") && !boot.equals("boot-0"), boot);
            assertEquals("back\n", cluster.exec(k, "cat", "/root/after-reboot"));
            assertEquals("back again\n", cluster.exec(k, "cat", "/root/after-wait"));
        }
        assertTrue(r.output().contains("restart " + TestCluster.node(1) + " and wait until it is back (at most 90 s)"), r.output());
        assertTrue(r.output().contains("(in the background, at most 60 s)"), r.output());
        assertTrue(r.output().contains("answered after"), r.output());
        assertNotEquals(0, r.recap(TestCluster.node(2), "changed"), r.output());
    }

    @Test
    void aNodeThatDoesNotComeBackIsUnreachableWithinTheTimeout() throws Exception {
        Path playbook = tmp.resolve("gone.yml");
        java.nio.file.Files.writeString(playbook, """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - reboot:
                        reboot_command: 'listener=$(cat /run/sshd.pid); pkill -P "$listener"; kill "$listener"'
                        boot_time_command: echo same-boot-forever
                        reboot_timeout: 8
                      when: inventory_hostname == "%s"
                """.formatted(TestCluster.node(2)));
        long started = System.nanoTime();
        Provision.Result r = run(playbook.toString());
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        try {
            assertEquals(3, r.exitCode(), r.output());
            assertTrue(r.output().contains("did not come back from its restart within 8 s"), r.output());
            assertEquals(1, r.recap(TestCluster.node(2), "unreachable"), r.output());
            assertTrue(seconds < 60, "bounded: " + seconds + " s");
        } finally {
            cluster.sshdStart(2);
        }
    }
}
