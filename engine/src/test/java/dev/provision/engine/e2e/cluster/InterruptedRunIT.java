package dev.provision.engine.e2e.cluster;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller killed (kill -9) at random moments: a file write on a node commits whole or not at
 * all. A 256 MiB file and a 200 MiB one are copied over each other, the launcher killed at a random
 * moment of each run; after every kill the target holds exactly one of the two contents and nothing
 * of provision's is left beside it. The end-to-end playbook, killed the same way at a few moments,
 * leaves no temp file behind and converges on the next run.
 */
@ClusterTest(nodes = 2)
class InterruptedRunIT {
    private static final int TRIES = 50;
    private static final String TARGET = "/srv/interrupted/big.bin";

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    @Test
    void aLargeCopyKilledAtRandomMomentsLeavesTheOldOrTheNewContentNeverAPart() throws Exception {
        long seed = Long.getLong("provision.test.seed", System.nanoTime());
        System.out.println("InterruptedRunIT seed " + seed + " (-Dprovision.test.seed=" + seed + " repeats it)");
        Random random = new Random(seed);
        Path a = randomFile("a.bin", 256 << 20, random);
        Path b = randomFile("b.bin", 200 << 20, random);
        String hashA = sha256(a);
        String hashB = sha256(b);
        cluster.exec(1, "mkdir", "-p", "/srv/interrupted");

        long start = System.nanoTime();
        Provision.Result first = Provision.run(args(playbook("b", b)));
        long fullRunMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(0, first.exitCode(), first.output());
        assertEquals(hashB, targetHash());

        int killedMidRun = 0;
        String current = hashB;
        // Kill moments spread over a run's length, as the runs show it: the first run may be slow
        // (a loaded machine); a run that ends before its kill shortens the window to its own length.
        long window = fullRunMillis;
        for (int i = 0; i < TRIES; i++) {
            boolean writeA = current.equals(hashB);
            Path playbook = playbook("try" + i, writeA ? a : b);
            long delay = (long) (window * (0.1 + random.nextDouble() * 0.9));
            long started = System.nanoTime();
            Process run = Provision.start(args(playbook), ProcessBuilder.Redirect.DISCARD);
            if (!run.waitFor(delay, TimeUnit.MILLISECONDS)) {
                run.destroyForcibly(); // SIGKILL: the launcher execs the JVM, so this is the controller
                killedMidRun++;
            } else {
                window = Math.min(window, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            }
            assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the killed controller ends");
            // A write the node had received whole goes on committing after the controller died.
            assertEquals("", settled(), "try " + i + ": nothing of provision's left beside the target");
            String now = targetHash();
            assertTrue(now.equals(hashA) || now.equals(hashB),
                    "try " + i + " (killed after " + delay + " ms): the target holds neither the old nor the new content, but " + now);
            current = now;
        }
        System.out.println("InterruptedRunIT: " + killedMidRun + " of " + TRIES + " runs killed mid-run (first run "
                + fullRunMillis + " ms, kill window at the end " + window + " ms)");
        assertTrue(killedMidRun >= TRIES / 2, "most tries really killed a running controller");

        Provision.Result converge = Provision.run(args(playbook("final", a)));
        assertEquals(0, converge.exitCode(), converge.output());
        assertEquals(hashA, targetHash());
        Provision.Result again = Provision.run(args(playbook("final", a)));
        assertEquals(0, again.recap(node(1), "changed"), again.output());
    }

    @Test
    void thePlaybookKilledAtSeveralMomentsLeavesNoTempFileAndTheNextRunConverges() throws Exception {
        List<String> site = args(ClusterConvergenceIT.PLAYBOOK);
        for (long delay : new long[] {700, 1200, 1800, 2500, 3500}) {
            Process run = Provision.start(site, ProcessBuilder.Redirect.DISCARD);
            if (!run.waitFor(delay, TimeUnit.MILLISECONDS)) {
                run.destroyForcibly();
            }
            assertTrue(run.waitFor(60, TimeUnit.SECONDS));
            Thread.sleep(1000);
            for (int k = 1; k <= cluster.size(); k++) {
                assertEquals("", cluster.exec(k, "sh", "-c",
                        "find /etc /srv /tmp /root -xdev -name '.provision-*' 2>/dev/null || :"),
                        "no temp file of provision's on " + node(k) + " after a kill at " + delay + " ms");
            }
        }
        Provision.Result converge = Provision.run(site);
        assertEquals(0, converge.exitCode(), converge.output());
        Provision.Result again = Provision.run(site);
        assertEquals(0, again.exitCode(), again.output());
        for (String node : cluster.nodeNames()) {
            assertEquals(0, again.recap(node, "changed"), again.output());
        }
        for (int k = 1; k <= cluster.size(); k++) {
            assertEquals("", cluster.exec(k, "sh", "-c",
                    "for d in /tmp/provision.*; do [ -f \"$d/pid\" ] && ! kill -0 $(cat \"$d/pid\") 2>/dev/null && echo \"$d\"; done; :"),
                    "the shells' work directories of killed runs are gone after the next connect");
        }
    }

    private static List<String> args(Path playbook) {
        return new ArrayList<>(List.of("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString(), "--limit", "node01:node02", playbook.toString()));
    }

    private static Path playbook(String name, Path source) throws IOException {
        Path playbook = tmp.resolve(name + ".yml");
        Files.writeString(playbook, """
                - hosts: node01
                  tasks:
                    - name: the large file
                      copy:
                        src: %s
                        dest: %s
                """.formatted(source, TARGET));
        return playbook;
    }

    /** What is beside the target once the node's side of a write ended (at most 30 s), else what is there then. */
    private static String settled() throws Exception {
        String beside = "";
        for (int waited = 0; waited < 30; waited++) {
            beside = cluster.exec(1, "sh", "-c", "ls -A /srv/interrupted | grep -v '^big.bin$' || :");
            if (beside.isEmpty()) {
                return beside;
            }
            Thread.sleep(1000);
        }
        return beside;
    }

    private static String targetHash() throws Exception {
        return cluster.exec(1, "sh", "-c", "sha256sum " + TARGET + " | cut -d' ' -f1").strip();
    }

    private static Path randomFile(String name, int size, Random random) throws IOException {
        Path file = tmp.resolve(name);
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int written = 0; written < size; written += chunk.length) {
                random.nextBytes(chunk);
                out.write(chunk);
            }
        }
        return file;
    }

    private static String sha256(Path file) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
