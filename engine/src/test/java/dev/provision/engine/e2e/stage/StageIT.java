package dev.provision.engine.e2e.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code playbooks/stage.yml} on 8 nodes, the source a directory every node mounts (this machine's
 * {@code /work} is shared into every node): a dry run lists what each node lacks and changes
 * nothing; a node without room is refused before any byte moves while the others are staged, every
 * file byte-identical (hashed inside the nodes), the source read by one node only; a half-staged
 * cluster's dry run lists exactly what the run then fetches, and a node whose donor refuses it gets
 * the data from another in the same run; a second run changes nothing; files the source no longer
 * has are kept until {@code delete} is asked, then removed as the dry run listed; a controller killed or a
 * node cut off mid-run leaves no partial file and the next run completes the set. In order, on one cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = 8, needs = {"rsync", "sha256sum", "perl"})
class StageIT {
    private static final Path PLAYBOOK = Provision.REPO.resolve("playbooks/stage.yml");
    private static final Path CLUSTER = Provision.REPO.resolve("playbooks/cluster.yml");
    private static final Path PREFLIGHT = Provision.REPO.resolve("playbooks/preflight.yml");
    private static final Path WORK = Path.of("target/stage-it").toAbsolutePath();
    private static final Path SOURCE = WORK.resolve("source");
    private static final String DEST = "/srv/stage-it/data";
    private static final int SMALL_DISK_NODE = 8;
    private static final int HALF_STAGED_NODE = 3;

    private static TestCluster cluster;
    private static Map<String, Set<String>> forecastOnFresh;

    @BeforeAll
    static void dataSetAndClusterIdentity() throws Exception {
        deleteTree(WORK);
        Random random = new Random(30);
        for (int i = 0; i < 240; i++) {
            Path file = SOURCE.resolve("shard-" + (i % 6) + "/sample " + i + ".bin");
            Files.createDirectories(file.getParent());
            byte[] bytes = new byte[200 + random.nextInt(3000)];
            random.nextBytes(bytes);
            Files.write(file, bytes);
        }
        byte[] big = new byte[3 << 20];
        random.nextBytes(big);
        Files.write(SOURCE.resolve("weights.bin"), big);
        Files.writeString(SOURCE.resolve("secret-index.txt"), "index\n");
        Files.setPosixFilePermissions(SOURCE.resolve("secret-index.txt"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        // The cluster identity and every node's host key in /etc/ssh/ssh_known_hosts, as the bring-up writes them.
        Provision.run(args("--tags", "ssh", "-e", "cluster_key_dir=" + cluster.tmp().resolve("cluster-key"), CLUSTER.toString()))
                .expectSuccess("cluster.yml --tags ssh");
    }

    @AfterAll
    static void removeDataSet() throws IOException {
        deleteTree(WORK);
    }

    @Test
    @Order(1)
    void checkOnFreshNodesListsEveryFileAndChangesNothing() throws Exception {
        Provision.Result check = stage("--check", "--diff");

        assertEquals(0, check.exitCode(), check.output());
        forecastOnFresh = missingByNode(check.report());
        Set<String> all = sourceFiles();
        assertEquals(242, all.size());
        for (String node : cluster.nodeNames()) {
            assertEquals(1, check.recap(node, "changed"), check.output());
            assertEquals(all, forecastOnFresh.get(node), node);
        }
        assertTrue(check.output().contains("stage 242 files"), check.output());
        for (int k = 1; k <= cluster.size(); k++) {
            assertEquals("absent\n", cluster.exec(k, "sh", "-c", "test -e /srv/stage-it || echo absent"), "--check wrote on node " + k);
        }
    }

    @Test
    @Order(2)
    void nodeWithoutRoomIsRefusedBeforeAnyTransferAndTheOthersGetEveryFileByteIdentical() throws Exception {
        cluster.exec(SMALL_DISK_NODE, "sh", "-c", "mkdir -p /srv/stage-it && mount -t tmpfs -o size=1m stage-it-small /srv/stage-it");

        long started = System.nanoTime();
        Opens opens = Opens.watch(SOURCE);
        Provision.Result run = stage();
        System.out.printf("StageIT: staging %d files onto %d nodes took %.1f s (whole provision run)%n", sourceFiles().size(),
                cluster.size() - 1, (System.nanoTime() - started) / 1e9);
        opens.assertEachFileReadOnce("shared source, first run");

        String small = TestCluster.node(SMALL_DISK_NODE);
        assertEquals(1, run.recap(small, "failed"), run.output());
        assertTrue(run.output().contains("not enough room in " + DEST), run.output());
        assertEquals("", cluster.exec(SMALL_DISK_NODE, "sh", "-c", "ls -A /srv/stage-it"), "nothing written on the refused node");
        Map<String, JsonNode> results = resultsByNode(run.report());
        String expected = sourceDigest();
        Set<String> roots = new TreeSet<>();
        int fromSource = 0;
        for (int k = 1; k <= cluster.size(); k++) {
            String node = TestCluster.node(k);
            if (k == SMALL_DISK_NODE) {
                continue;
            }
            assertEquals(1, run.recap(node, "changed"), run.output());
            assertEquals(expected, nodeDigest(k), "every file byte-identical, with its mode, on " + node);
            JsonNode out = results.get(node).path("output");
            assertEquals(forecastOnFresh.get(node), strings(out.path("received")), "--check listed what " + node + " then fetched");
            roots.add(out.path("verified_root_hash").asText());
            assertEquals(out.path("root_hash").asText(), out.path("verified_root_hash").asText(), node);
            if (strings(out.path("fetched_from")).contains("source")) {
                fromSource++;
            }
        }
        assertEquals(1, roots.size(), "one root hash on every node: " + roots);
        assertEquals(1, fromSource, "one node reads the source, the others fetch from nodes:\n" + run.output());
        cluster.exec(SMALL_DISK_NODE, "umount", "/srv/stage-it");
    }

    @Test
    @Order(3)
    void checkOnHalfStagedClusterListsExactlyWhatTheRunThenFetchesAndADonorThatFailsIsReplaced() throws Exception {
        cluster.exec(HALF_STAGED_NODE, "sh", "-c", "cd " + DEST + " && rm -f 'shard-1/sample 1.bin' 'shard-2/sample 20.bin' weights.bin");
        // node01, the first donor, refuses the cluster key from now on (provision's own key still logs in).
        cluster.exec(1, "sed", "-i", "/provision-cluster/d", "/root/.ssh/authorized_keys");

        Provision.Result check = stage("--check");

        assertEquals(0, check.exitCode(), check.output());
        Map<String, Set<String>> forecast = missingByNode(check.report());
        assertEquals(Set.of("shard-1/sample 1.bin", "shard-2/sample 20.bin", "weights.bin"), forecast.get(TestCluster.node(HALF_STAGED_NODE)));
        assertEquals(sourceFiles(), forecast.get(TestCluster.node(SMALL_DISK_NODE)));
        for (int k = 1; k <= cluster.size(); k++) {
            if (k != HALF_STAGED_NODE && k != SMALL_DISK_NODE) {
                assertEquals(0, check.recap(TestCluster.node(k), "changed"), check.output());
            }
        }

        Provision.Result run = stage();

        assertEquals(0, run.exitCode(), run.output());
        Map<String, JsonNode> results = resultsByNode(run.report());
        String expected = sourceDigest();
        for (int k : List.of(HALF_STAGED_NODE, SMALL_DISK_NODE)) {
            String node = TestCluster.node(k);
            assertEquals(forecast.get(node), strings(results.get(node).path("output").path("received")), node);
            assertFalse(strings(results.get(node).path("output").path("fetched_from")).contains("source"),
                    node + " fetched from a node that holds the set, not the source");
            assertEquals(expected, nodeDigest(k), node);
        }
        JsonNode refused = results.get(TestCluster.node(HALF_STAGED_NODE)).path("output");
        assertEquals(List.of("node01", "node02"), List.copyOf(strings(refused.path("fetched_from"))),
                "the fetch from node01 failed, the same run fetched from another holder:\n" + run.output());
    }

    @Test
    @Order(4)
    void secondRunChangesNothing() throws Exception {
        Provision.Result again = stage();

        assertEquals(0, again.exitCode(), again.output());
        for (String node : cluster.nodeNames()) {
            assertEquals(0, again.recap(node, "changed"), again.output());
            assertEquals(1, again.recap(node, "ok"), again.output());
        }
        assertTrue(again.output().contains("242 files"), again.output());

        // the readiness check reads what staging verified: the same set on every node, as verified
        String root = resultsByNode(lastReport()).get(cluster.nodeNames().get(0)).path("output").path("root_hash").asText();
        Provision.Result ready = Provision.run(args("-e", "preflight_checks=dataset", "-e", "dataset_dest=" + DEST,
                "-e", "dataset_root_hash=" + root, PREFLIGHT.toString()));
        assertEquals(0, ready.exitCode(), ready.output());
        assertTrue(ready.output().contains("dataset.same_root") && ready.output().contains("242 files"), ready.output());
        // a file changed on one node since it was verified: that node is not ready, the file named
        cluster.exec(2, "sh", "-c", "printf x >> '" + DEST + "/shard-1/sample 1.bin'");
        Provision.Result changed = Provision.run(args("-e", "preflight_checks=dataset", "-e", "dataset_dest=" + DEST, PREFLIGHT.toString()));
        assertEquals(2, changed.exitCode(), changed.output());
        assertTrue(changed.output().contains("shard-1/sample 1.bin") && changed.output().contains("stage again"), changed.output());
        assertEquals(1, changed.recap(cluster.nodeNames().get(1), "failed"), changed.output());
        assertEquals(0, changed.recap(cluster.nodeNames().get(0), "failed"), changed.output());
        Provision.Result restaged = stage();
        assertEquals(0, restaged.exitCode(), restaged.output());
        assertEquals(1, restaged.recap(cluster.nodeNames().get(1), "changed"), restaged.output());
    }

    @Test
    @Order(5)
    void filesTheSourceNoLongerHasAreKeptUntilDeleteIsAskedThenRemovedAsTheDryRunListed() throws Exception {
        Path dropped = SOURCE.resolve("shard-0/sample 0.bin");
        byte[] bytes = Files.readAllBytes(dropped);
        Files.delete(dropped);
        cluster.exec(5, "sh", "-c", "mkdir -p '" + DEST + "/old/deep' && echo stale > '" + DEST + "/old/deep/stale.bin'");
        try {
            Provision.Result plain = stage();
            assertEquals(0, plain.exitCode(), plain.output());
            Provision.Result kept = stage();
            assertEquals(0, kept.exitCode(), kept.output());
            for (String node : cluster.nodeNames()) {
                assertEquals(0, kept.recap(node, "changed"), kept.output());
            }
            assertTrue(kept.output().contains("2 files under " + DEST + " are not in the source (delete: true removes them)"),
                    kept.output());
            assertEquals(0, cluster.inNode(1, "test -f '" + DEST + "/shard-0/sample 0.bin'").exitCode(), "kept without delete");
            // the readiness check warns of what a job reading the directory would read besides the set
            Provision.Result ready = Provision.run(args("-e", "preflight_checks=dataset", "-e", "dataset_dest=" + DEST, PREFLIGHT.toString()));
            assertEquals(0, ready.exitCode(), ready.output());
            assertTrue(ready.output().contains("dataset.no_stray_files") && ready.output().contains("old/deep/stale.bin")
                    && ready.output().contains("stage_delete=true"), ready.output());

            Provision.Result check = stage("--check", "--diff", "-e", "stage_delete=true");
            assertEquals(0, check.exitCode(), check.output());
            assertTrue(check.output().contains("remove 2 files from " + DEST + " that the source does not have")
                    && check.output().contains("remove 1 files from " + DEST) && check.output().contains("old/deep/stale.bin"),
                    check.output());
            assertEquals(0, cluster.inNode(5, "test -f '" + DEST + "/old/deep/stale.bin'").exitCode(), "a dry run removes nothing");

            Provision.Result deleted = stage("-e", "stage_delete=true");
            assertEquals(0, deleted.exitCode(), deleted.output());
            for (int k = 1; k <= cluster.size(); k++) {
                assertEquals(1, deleted.recap(cluster.nodeNames().get(k - 1), "changed"), deleted.output());
                assertEquals(1, cluster.inNode(k, "test -e '" + DEST + "/shard-0/sample 0.bin'").exitCode(), "removed on node " + k);
                assertEquals(0, cluster.inNode(k, "test -f '" + DEST + "/shard-0/sample 6.bin'").exitCode(), "the set kept on node " + k);
            }
            assertEquals(1, cluster.inNode(5, "test -e '" + DEST + "/old'").exitCode(), "the emptied directories are gone");
            Provision.Result again = stage("-e", "stage_delete=true");
            assertEquals(0, again.exitCode(), again.output());
            for (String node : cluster.nodeNames()) {
                assertEquals(0, again.recap(node, "changed"), again.output());
            }
            assertTrue(again.output().contains("241 files"), again.output());
        } finally {
            Files.write(dropped, bytes);
        }
    }

    @Test
    @Order(6)
    void aRunWhoseControllerIsKilledMidTransferLeavesNoPartialFileAndTheNextRunFetchesOnlyWhatIsMissing() throws Exception {
        cluster.exec(1, "sh", "-c", "cat /root/.ssh/id_ed25519.pub >> /root/.ssh/authorized_keys"); // node01 serves again
        for (int k = 1; k <= cluster.size(); k++) {
            cluster.exec(k, "rm", "-rf", DEST);
            if (k > 1) {
                cluster.slowLink(k, "16mbit"); // a peer's fetch of the 3.5 MB set takes about 2 s
            }
        }
        Path log = WORK.resolve("killed-run.txt");
        Process run = Provision.start(args("-e", "source=" + SOURCE, "-e", "dest=" + DEST, "-e", "stage_fan_out=tree",
                PLAYBOOK.toString()), ProcessBuilder.Redirect.to(log.toFile()));
        try {
            for (int i = 0; i < 600 && cluster.inNode(1, "test -f " + DEST + "/.provision-stage/verified").exitCode() != 0; i++) {
                Thread.sleep(200); // until node01 read the source and verified it
            }
            Thread.sleep(1500); // into the peers' fetches
        } finally {
            run.descendants().forEach(ProcessHandle::destroyForcibly);
            run.destroyForcibly();
            run.waitFor();
        }
        System.out.println("killed run:\n" + Files.readString(log));
        for (int i = 0; i < 150 && TestCluster.command(List.of("pgrep", "-x", "rsync"), Map.of(), java.time.Duration.ofSeconds(10))
                .exitCode() == 0; i++) {
            Thread.sleep(200); // fetches the dead controller started may still finish
        }
        assertTrue(nodesLackingFilesNoneForeign() > 0, "the controller was killed before every node held the set");
        for (int k = 2; k <= cluster.size(); k++) {
            cluster.healLink(k);
        }

        Provision.Result resumed = resumeFetchesWhatTheDryRunListed("-e", "stage_fan_out=tree");
        assertEquals(0, resumed.recap(TestCluster.node(1), "changed"), "node01 held the set before the kill:\n" + resumed.output());
    }

    /**
     * The chain (the default): every node at once, each passing the stream on. Killed while the nodes
     * unpack it: none holds a file under its final name that is not the source's, and the next run
     * fetches exactly what each lacks.
     */
    @Test
    @Order(7)
    void aChainWhoseControllerIsKilledMidStreamLeavesNoPartialFileAndTheNextRunFetchesOnlyWhatIsMissing() throws Exception {
        for (int k = 1; k <= cluster.size(); k++) {
            cluster.exec(k, "rm", "-rf", DEST);
            if (k > 1) {
                cluster.slowLink(k, "8mbit"); // the 3.5 MB stream takes about 4 s to pass each link
            }
        }
        killMidStream(List.of("-e", "source=" + SOURCE, "-e", "dest=" + DEST), "killed-chain.txt");
        // the nodes' part of a chain outlives the controller (one round, started at once): it may finish
        int partial = nodesLackingFilesNoneForeign();
        System.out.println("StageIT: after the controller was killed mid-stream, " + partial + " nodes lacked files");
        for (int k = 2; k <= cluster.size(); k++) {
            cluster.healLink(k);
        }
        resumeFetchesWhatTheDryRunListed();
    }

    /**
     * The source on the controller only, the controller killed while it feeds the chain's first node:
     * no node holds a file under its final name that is not the source's, and the next run fetches
     * exactly what each lacks (from the controller again).
     */
    @Test
    @Order(8)
    void aChainFedByTheControllerThatIsKilledMidStreamLeavesNoPartialFileAndTheNextRunCompletesIt() throws Exception {
        Path onController = Files.createTempDirectory("provision-stage-it-");
        try {
            Path src = copyOfTheSourceIn(onController);
            List<String> vars = List.of("-e", "source_on=controller", "-e", "source=" + src, "-e", "dest=" + DEST);
            for (int k = 1; k <= cluster.size(); k++) {
                cluster.exec(k, "rm", "-rf", DEST);
                cluster.slowLink(k, "8mbit"); // node01's too: the controller's stream into it takes about 4 s
            }
            killMidStream(vars, "killed-controller-feed.txt");
            int partial = nodesLackingFilesNoneForeign();
            assertTrue(partial > 0, "the controller was killed before the nodes held the set");
            for (int k = 1; k <= cluster.size(); k++) {
                cluster.healLink(k);
            }
            resumeFetchesWhatTheDryRunListed(vars);
        } finally {
            deleteTree(onController);
        }
    }

    /**
     * The source on the controller only (its own /tmp, which no node sees): a dry run lists every file
     * on every node and writes nothing; the run streams the controller's tar into the first node of
     * the chain over provision's connection, every node ends byte-identical, verified; a second run
     * and its dry run change nothing.
     */
    @Test
    @Order(9)
    void aSourceOnTheControllerIsStreamedIntoTheChainOnceAndAgainChangesNothing() throws Exception {
        Path onController = Files.createTempDirectory("provision-stage-it-");
        try {
            Path src = copyOfTheSourceIn(onController);
            String dest = "/srv/stage-it/from-controller";
            List<String> vars = List.of("-e", "source_on=controller", "-e", "source=" + src, "-e", "dest=" + dest);
            assertSourceStagedOnceAndAgainNothing(vars, dest, "controller", "controller", java.util.Optional.of(src));
        } finally {
            deleteTree(onController);
        }
    }

    /** The source on one node's own disk: that node makes the manifest and starts the chain; the others never see the path. */
    @Test
    @Order(10)
    void aSourceOnOneNodeIsReadThereAndStartsTheChainAndAgainChangesNothing() throws Exception {
        int holder = 5;
        String src = "/srv/stage-it/node-source";
        cluster.exec(holder, "cp", "-a", SOURCE.toString(), src);
        assertEquals("absent\n", cluster.exec(2, "sh", "-c", "test -e " + src + " || echo absent"), "only node05 holds it");
        String dest = "/srv/stage-it/from-node";
        List<String> vars = List.of("-e", "source_on=node", "-e", "source_host=" + TestCluster.node(holder), "-e", "source=" + src,
                "-e", "dest=" + dest);
        assertSourceStagedOnceAndAgainNothing(vars, dest, "source", TestCluster.node(holder), java.util.Optional.empty());
    }

    /**
     * A node cut off mid-chain (its link down, the node itself running on): the run reports it
     * unreachable, the nodes after it in the chain get the set from holders within the same run,
     * no node holds a partial file under its final name; once its link is back, the next run
     * fetches exactly what it lacks.
     */
    @Test
    @Order(11)
    void aNodeCutMidChainIsUnreachableTheNodesAfterItGetTheSetInTheSameRunAndTheNextRunCompletesIt() throws Exception {
        int cut = 4;
        for (int k = 1; k <= cluster.size(); k++) {
            cluster.exec(k, "rm", "-rf", DEST);
            if (k > 1) {
                cluster.slowLink(k, "8mbit"); // the 3.5 MB stream takes about 4 s to pass each link
            }
        }
        Path log = WORK.resolve("cut-node.txt");
        Path report = WORK.resolve("cut-node.json");
        Process run = Provision.start(args("--json", report.toString(), "-e", "source=" + SOURCE, "-e", "dest=" + DEST,
                PLAYBOOK.toString()), ProcessBuilder.Redirect.to(log.toFile()));
        boolean cutWhileReceiving = false;
        try {
            String receiving = "test -n \"$(find " + DEST + "/.provision-stage/tmp -type f 2>/dev/null | head -1)\"";
            for (int i = 0; i < 600 && !cutWhileReceiving; i++) {
                cutWhileReceiving = cluster.inNode(cut, receiving).exitCode() == 0;
                Thread.sleep(cutWhileReceiving ? 0 : 100); // until node04 unpacks its first file
            }
            cluster.cutLink(cut);
            assertTrue(run.waitFor(5, java.util.concurrent.TimeUnit.MINUTES), "the run ended within 5 minutes of the cut");
        } finally {
            run.descendants().forEach(ProcessHandle::destroyForcibly);
            run.destroyForcibly();
            cluster.healLink(cut);
            System.out.println("cut node:\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        assertTrue(cutWhileReceiving, "node04 was cut while the chain passed through it");
        Map<String, JsonNode> results = resultsByNode(new com.fasterxml.jackson.databind.ObjectMapper().readTree(report.toFile()));
        assertEquals("unreachable", results.get(TestCluster.node(cut)).path("status").asText(), output);
        String expected = sourceDigest();
        for (int k = 1; k <= cluster.size(); k++) {
            if (k != cut) {
                assertEquals(expected, nodeDigest(k), "node " + k + " got the set in the same run:\n" + output);
            }
        }
        assertTrue(nodesLackingFilesNoneForeign() <= 1, "only the cut node may lack files");
        for (int k = 2; k <= cluster.size(); k++) {
            cluster.healLink(k);
        }
        Provision.Result resumed = resumeFetchesWhatTheDryRunListed();
        for (int k = 1; k <= cluster.size(); k++) {
            if (k != cut) {
                assertEquals(0, resumed.recap(TestCluster.node(k), "changed"), resumed.output());
            }
        }
    }

    /** Dry run (lists everything, writes nothing), run (every node byte-identical, one reader of the source), run and dry run again (nothing). */
    private static void assertSourceStagedOnceAndAgainNothing(List<String> vars, String dest, String reader, String readerNode,
                                                              java.util.Optional<Path> sourceSeenHere) throws Exception {
        Provision.Result check = stageWith(vars, "--check");
        assertEquals(0, check.exitCode(), check.output());
        Set<String> all = sourceFiles();
        Map<String, Set<String>> forecast = missingByNode(check.report());
        for (String node : cluster.nodeNames()) {
            assertEquals(all, forecast.get(node), node);
        }
        for (int k = 1; k <= cluster.size(); k++) {
            assertEquals("absent\n", cluster.exec(k, "sh", "-c", "test -e " + dest + " || echo absent"), "--check wrote on node " + k);
        }

        long started = System.nanoTime();
        Opens opens = sourceSeenHere.map(Opens::watch).orElse(null);
        Provision.Result run = stageWith(vars);
        System.out.printf("StageIT: staging %d files from the %s onto %d nodes took %.1f s (whole provision run)%n", all.size(), reader,
                cluster.size(), (System.nanoTime() - started) / 1e9);
        if (opens != null) {
            opens.assertEachFileReadOnce(reader + " source, first run");
        }
        assertEquals(0, run.exitCode(), run.output());
        Map<String, JsonNode> results = resultsByNode(run.report());
        List<String> readers = new ArrayList<>();
        for (int k = 1; k <= cluster.size(); k++) {
            String node = TestCluster.node(k);
            assertEquals(1, run.recap(node, "changed"), run.output());
            assertEquals(sourceDigest(), nodeDigest(k, dest), "every file byte-identical, with its mode, on " + node);
            JsonNode out = results.get(node).path("output");
            assertEquals(out.path("root_hash").asText(), out.path("verified_root_hash").asText(), node);
            assertEquals(all, strings(out.path("received")), node);
            if (strings(out.path("fetched_from")).contains(reader)) {
                readers.add(node);
            }
        }
        assertEquals(List.of(readerNode.equals("controller") ? readers.get(0) : readerNode), readers,
                "one node reads the source, the others get it from nodes:\n" + run.output());

        Provision.Result again = stageWith(vars);
        Provision.Result checkAgain = stageWith(vars, "--check");
        for (Provision.Result r : List.of(again, checkAgain)) {
            assertEquals(0, r.exitCode(), r.output());
            for (String node : cluster.nodeNames()) {
                assertEquals(0, r.recap(node, "changed"), r.output());
            }
        }
    }

    private static Provision.Result stageWith(List<String> vars, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(extra));
        lastReport = WORK.resolve("report-" + System.nanoTime() + ".json");
        args.addAll(List.of("--json", lastReport.toString()));
        args.addAll(vars);
        args.add(PLAYBOOK.toString());
        return Provision.run(args(args.toArray(String[]::new)));
    }

    /**
     * Who opened which file of a source directory while a run went on ({@code opens.pl}: inotify on
     * this machine, where the shared source and the controller's are; a node's processes open the
     * same inodes). tar, rsync and sha256sum read all of a file they open: a file opened twice was read
     * twice.
     */
    private record Opens(Path dir, Process watcher) {
        static Opens watch(Path dir) {
            try {
                Path script = Path.of(StageIT.class.getResource("/e2e/stage/opens.pl").toURI());
                Process p = new ProcessBuilder("perl", script.toString(), dir.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                String first = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                        java.nio.charset.StandardCharsets.UTF_8)).readLine();
                assertEquals("ready", first, "the watcher of " + dir + " started");
                return new Opens(dir, p);
            } catch (IOException | java.net.URISyntaxException e) {
                throw new IllegalStateException("cannot watch " + dir, e);
            }
        }

        /** Stops watching; asserts every file of the set was opened exactly once and says how many bytes that read. */
        void assertEachFileReadOnce(String what) throws Exception {
            watcher.getOutputStream().close();
            String out = new String(watcher.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(watcher.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the watcher ends");
            Map<String, Integer> opens = new java.util.TreeMap<>();
            out.lines().map(l -> l.split("\t", 2)).forEach(f -> opens.put(f[1], Integer.parseInt(f[0])));
            long setBytes = 0;
            long readBytes = 0;
            try (var files = Files.walk(dir)) {
                for (Path p : files.filter(Files::isRegularFile).toList()) {
                    long size = Files.size(p);
                    setBytes += size;
                    readBytes += size * opens.getOrDefault(dir.relativize(p).toString(), 0);
                }
            }
            System.out.printf("StageIT: %s: %d bytes read from the source for a %d-byte set (%.2fx)%n", what, readBytes, setBytes,
                    (double) readBytes / setBytes);
            List<String> notOnce = opens.entrySet().stream().filter(e -> e.getValue() != 1).map(e -> e.getKey() + " " + e.getValue() + "x").toList();
            assertEquals(List.of(), notOnce.subList(0, Math.min(3, notOnce.size())), what + ": " + notOnce.size()
                    + " files of the source read more than once (first ones named)");
            assertEquals(setBytes, readBytes, what + ": the source's bytes read once, every file of it");
        }
    }

    /** How many nodes lack some of the source's files; fails when one holds a file under its final name that is not the source's. */
    private static int nodesLackingFilesNoneForeign() throws Exception {
        Set<String> sourceLines = new TreeSet<>(sourceDigest().lines().toList());
        int partial = 0;
        for (int k = 1; k <= cluster.size(); k++) {
            Set<String> held = new TreeSet<>(nodeDigest(k).lines().toList());
            held.removeAll(sourceLines);
            assertEquals(Set.of(), held, "node " + k + " holds a file under its final name that is not the source's");
            if (!nodeDigest(k).equals(sourceDigest())) {
                partial++;
            }
        }
        return partial;
    }

    /** A copy of the data set in {@code dir} on the controller (its own /tmp, which no node sees). */
    private static Path copyOfTheSourceIn(Path dir) throws Exception {
        Path src = dir.resolve("set");
        TestCluster.command(List.of("cp", "-a", SOURCE.toString(), src.toString()), Map.of(), java.time.Duration.ofMinutes(1))
                .expectSuccess("copy of the source on the controller");
        return src;
    }

    /**
     * Starts a run with {@code vars}, kills the controller (and what it started here) once the last
     * node of the chain unpacks its first file, then waits for what it started on the nodes.
     */
    private static void killMidStream(List<String> vars, String logName) throws Exception {
        Path log = WORK.resolve(logName);
        List<String> killed = new ArrayList<>(vars);
        killed.add(PLAYBOOK.toString());
        Process run = Provision.start(args(killed.toArray(String[]::new)), ProcessBuilder.Redirect.to(log.toFile()));
        try {
            String unpacking = "test -n \"$(find " + DEST + "/.provision-stage/tmp -type f 2>/dev/null | head -1)\"";
            for (int i = 0; i < 600 && cluster.inNode(cluster.size(), unpacking).exitCode() != 0; i++) {
                Thread.sleep(100); // until the last node of the chain unpacks its first file
            }
            Thread.sleep(700);
        } finally {
            run.descendants().forEach(ProcessHandle::destroyForcibly);
            run.destroyForcibly();
            run.waitFor();
        }
        System.out.println(logName + ":\n" + Files.readString(log));
        for (int i = 0; i < 150 && TestCluster.command(List.of("pgrep", "-f", "provision-stage/next"), Map.of(),
                java.time.Duration.ofSeconds(10)).exitCode() == 0; i++) {
            Thread.sleep(200); // what the dead controller started may still run
        }
    }

    /** A dry run, then the run: every node ends with the source's files, each having fetched what the dry run listed. */
    private static Provision.Result resumeFetchesWhatTheDryRunListed(String... extra) throws Exception {
        return resumeFetchesWhatTheDryRunListed(List.of("-e", "source=" + SOURCE, "-e", "dest=" + DEST), extra);
    }

    /** The same, staging with {@code vars} (the source, where it is, and the destination). */
    private static Provision.Result resumeFetchesWhatTheDryRunListed(List<String> vars, String... extra) throws Exception {
        Provision.Result check = stageWith(vars, concat(extra, "--check"));
        Map<String, Set<String>> forecast = missingByNode(check.report());
        Provision.Result resumed = stageWith(vars, extra);

        assertEquals(0, resumed.exitCode(), resumed.output());
        Map<String, JsonNode> results = resultsByNode(resumed.report());
        for (int k = 1; k <= cluster.size(); k++) {
            String node = TestCluster.node(k);
            assertEquals(sourceDigest(), nodeDigest(k), node);
            assertEquals(forecast.get(node), strings(results.get(node).path("output").path("received")),
                    node + " fetched exactly what the dry run listed");
        }
        return resumed;
    }

    private static String[] concat(String[] first, String... more) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static Path lastReport;

    private static JsonNode lastReport() throws IOException {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(lastReport.toFile());
    }

    private static Provision.Result stage(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(extra));
        lastReport = WORK.resolve("report-" + System.nanoTime() + ".json");
        args.addAll(List.of("--json", lastReport.toString(),
                "-e", "source=" + SOURCE, "-e", "dest=" + DEST, PLAYBOOK.toString()));
        return Provision.run(args(args.toArray(String[]::new)));
    }

    private static List<String> args(String... rest) {
        List<String> args = new ArrayList<>(List.of("-i", cluster.inventory().toString(),
                "--known-hosts", cluster.tmp().resolve("known_hosts").toString()));
        args.addAll(List.of(rest));
        return args;
    }

    private static Map<String, JsonNode> resultsByNode(JsonNode report) {
        JsonNode tasks = report.path("plays").path(0).path("tasks");
        Map<String, JsonNode> byNode = new LinkedHashMap<>();
        for (JsonNode task : tasks) {
            for (JsonNode r : task.path("results")) {
                byNode.put(r.path("host").asText(), r);
            }
        }
        return byNode;
    }

    private static Map<String, Set<String>> missingByNode(JsonNode report) {
        Map<String, Set<String>> missing = new LinkedHashMap<>();
        resultsByNode(report).forEach((node, r) -> missing.put(node, strings(r.path("output").path("missing"))));
        return missing;
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new TreeSet<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static Set<String> sourceFiles() throws IOException {
        try (var files = Files.walk(SOURCE)) {
            return new TreeSet<>(files.filter(Files::isRegularFile).map(p -> SOURCE.relativize(p).toString()).toList());
        }
    }

    /** Mode and path, then SHA-256 and path, of every file of a tree, the stage records left out (a few processes). */
    private static final String DIGEST = "cd \"$1\" 2>/dev/null || exit 0; find . -path ./.provision-stage -prune -o -type f -printf '%m %p\\n' | sort "
            + "&& find . -path ./.provision-stage -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum";
    private static String sourceDigest;

    private static String sourceDigest() throws Exception {
        if (sourceDigest == null) {
            sourceDigest = TestCluster.command(List.of("sh", "-c", DIGEST, "sh", SOURCE.toString()), Map.of(),
                    java.time.Duration.ofMinutes(1)).expectSuccess("digest of the source").output();
        }
        return sourceDigest;
    }

    /** Computed inside node K, by its own tools, over its own copy. */
    private static String nodeDigest(int k) throws Exception {
        return nodeDigest(k, DEST);
    }

    private static String nodeDigest(int k, String dest) throws Exception {
        return cluster.exec(k, "sh", "-c", DIGEST, "sh", dest);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
