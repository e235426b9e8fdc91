package dev.provision.engine.e2e.preflight;

import static dev.provision.engine.e2e.TestCluster.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code playbooks/preflight.yml} with the cluster-level checks (clock, limits, storage, image,
 * ssh_mesh) on an 8-node test cluster converged by {@code playbooks/cluster.yml}: a healthy cluster
 * passes; a {@code --check} run changes nothing on the nodes; then one fault per check, each on its
 * own node, is found on that node (or, for the SSH mesh, named by every node) and on no other. The
 * steps build on each other, in order, on one cluster; the faults come last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = PreflightIT.NODES, services = true, needs = {"runuser", "tar"})
class PreflightIT {
    static final int NODES = 8;
    private static final String PREFLIGHT = "playbooks/preflight.yml";
    private static final String TRAIN_IMAGE = "10.213.0.1:5000/train:latest";
    /** What the bring-up test inventory sets (bringup/gpu.yml: limits_items); this machine's hard maximum is 20000. */
    private static final int NOFILE = 16384;
    private static final int MEMLOCK_KIB = 8192;
    private static final String MARKER_TASK = "Shared storage mounted and writable (writes a marker)";
    private static final String READY_TASK = "Ready to train";

    /** The cluster with its services; its {@code tmp()} holds the inventory, controller known_hosts, cluster key, JSON reports. */
    private TestCluster cluster;
    private Path tmp;
    private Path inventory;
    private Path knownHosts;

    @BeforeAll
    void bringUpTheCluster() throws Exception {
        tmp = cluster.tmp();
        inventory = cluster.bringUpInventory();
        knownHosts = tmp.resolve("controller_known_hosts");
        Result bringUp = Provision.run(knownHosts, "-i", inventory.toString(), "playbooks/cluster.yml");
        assertEquals(0, bringUp.exitCode(), "cluster.yml must converge before pre-flight means anything:\n" + bringUp.output());
        waitForChronySync();
    }

    @Test
    @Order(1)
    void healthyClusterIsReadyToTrainOnEveryNode() throws Exception {
        Path json = tmp.resolve("healthy.json");
        Result run = preflight(json);
        System.out.println("=== pre-flight on the healthy cluster (exit " + run.exitCode() + ")\n" + run.output());
        assertEquals(0, run.exitCode(), run.output());
        Report report = Report.read(json);
        for (int k = 1; k <= NODES; k++) {
            String host = node(k);
            assertEquals(Set.of(), report.failing(host), host + " must pass every check:\n" + run.output());
            assertEquals("ok", report.status(READY_TASK, host), run.output());
            Set<String> checks = report.checks(host);
            for (String expected : List.of("clock.controller_offset", "clock.chronyd", "clock.chrony_sync", "clock.chrony_offset",
                    "clock.fleet_spread", "limits.nofile", "limits.memlock", "storage.mounted", "storage.writable",
                    "image.digest", "image.same_digest", "ssh_mesh.reachable")) {
                assertTrue(checks.contains(expected), host + " has no row " + expected + ": " + checks);
            }
            for (int j = 1; j <= NODES; j++) {
                assertTrue(checks.contains("storage.readback." + node(j)), host + " read no marker of " + node(j) + ": " + checks);
            }
            assertEquals(NODES + "/" + NODES, report.row(host, "ssh_mesh.reachable").measured(), host);
            assertEquals(String.valueOf(NOFILE), report.row(host, "limits.nofile").measured(), host);
            Row sameDigest = report.row(host, "image.same_digest");
            assertEquals(sameDigest.measured() + " (fleet)", sameDigest.expected(), host);
        }
        // A sysadmin reads tables: one per node and check task, and the verdict per node at the end.
        assertEquals(NODES * 6, count(run.output(), "(?m)^ {4}check +measured +expected +verdict$"), run.output());
        assertEquals(NODES, count(run.output(), "(?m)^ok: \\[node\\d\\d\\] => all pre-flight checks passed$"), run.output());
    }

    /**
     * Pre-flight is read-only on the nodes, check mode or not. The one write is the storage marker on
     * the shared filesystem ({@code check_mode: false}: the check is the write), so under --check
     * that task, and only it, reports changed.
     */
    @Test
    @Order(2)
    void checkModeChangesNothingOnTheNodesButWritesTheStorageMarkers() throws Exception {
        Map<Integer, String> before = nodeStates();
        Result run = preflight(tmp.resolve("check.json"), "--check");
        assertEquals(0, run.exitCode(), run.output());
        assertEquals(before, nodeStates(), "--check must change nothing on any node");
        Map<String, Set<String>> changed = run.changedTasks(NODES);
        for (int k = 1; k <= NODES; k++) {
            assertEquals(Set.of(MARKER_TASK), changed.get(node(k)), node(k) + ":\n" + run.output());
        }
        Result real = preflight(tmp.resolve("after-check.json"));
        assertEquals(0, real.exitCode(), real.output());
        assertEquals(changed, real.changedTasks(NODES), "--check forecasts exactly what the run does:\n" + real.output());
    }

    @Test
    @Order(3)
    void oneFaultPerCheckIsFoundOnItsNode() throws Exception {
        String imageBefore = digest(2);
        plantFaults();
        assertNotEquals(imageBefore, digest(2), "node02 must hold another image under " + TRAIN_IMAGE);

        Path json = tmp.resolve("faults.json");
        Result run = preflight(json);
        System.out.println("=== pre-flight with planted faults (exit " + run.exitCode() + ")\n" + run.output());
        assertEquals(2, run.exitCode(), run.output());
        Report report = Report.read(json);

        // Every node fails the mesh, because none reaches node04, and names node04 alone.
        for (int k = 1; k <= NODES; k++) {
            Row mesh = report.row(node(k), "ssh_mesh.reachable");
            assertEquals("fail", mesh.verdict(), node(k) + ": " + mesh);
            assertEquals((NODES - 1) + "/" + NODES, mesh.measured(), node(k) + ": " + mesh);
            assertTrue(mesh.detail().startsWith("unreachable: node04 ("), node(k) + ": " + mesh);
            assertEquals("failed", report.status(READY_TASK, node(k)), run.output());
        }
        Set<String> mesh = Set.of("ssh_mesh.reachable");
        for (int k : List.of(1, 4, 7, 8)) {
            assertEquals(mesh, report.failing(node(k)), node(k) + " must fail the mesh row only:\n" + run.output());
        }
        assertEquals(union(mesh, "image.same_digest"), report.failing("node02"), run.output());
        assertTrue(report.row("node02", "image.same_digest").detail().startsWith("differs from 7 of 8 hosts: "),
                report.row("node02", "image.same_digest").toString());
        // Unmounted, node03 can read no marker: one read-back row says why, not one per node.
        assertEquals(union(mesh, "storage.mounted", "storage.readback"), report.failing("node03"), run.output());
        assertTrue(report.row("node03", "storage.readback").detail().startsWith("/data is not mounted on this node: mount it"),
                report.row("node03", "storage.readback").detail());
        assertEquals(union(mesh, "limits.nofile"), report.failing("node05"), run.output());
        assertEquals("1024", report.row("node05", "limits.nofile").measured());
        assertEquals(union(mesh, "clock.chronyd"), report.failing("node06"), run.output());

        // The human output names each fault on the line of its node.
        String out = run.output();
        assertTrue(out.contains("failed (ignored): [node02] => image.same_digest: " + digest(2)), out);
        assertTrue(Pattern.compile("(?m)^failed \\(ignored\\): \\[node03\\] => storage\\.mounted: / \\(").matcher(out).find(), out);
        assertTrue(out.contains("failed (ignored): [node05] => limits.nofile: 1024 (expected >= " + NOFILE + ")"), out);
        assertTrue(out.contains("failed (ignored): [node06] => clock.chronyd: not running (expected running)"), out);
        assertTrue(out.contains("failed (ignored): [node01] => ssh_mesh.reachable: 7/8 (expected 8/8) unreachable: node04 ("), out);
        // ... and the verdict at the end lists what to fix on each node.
        Map<String, String> verdicts = Map.of("node01", "ssh_mesh.reachable", "node02", "image.same_digest, ssh_mesh.reachable",
                "node03", "storage.mounted, storage.readback, ssh_mesh.reachable", "node05", "limits.nofile, ssh_mesh.reachable", "node06", "clock.chronyd, ssh_mesh.reachable");
        verdicts.forEach((host, failed) -> assertTrue(Pattern.compile("(?m)^failed: \\[" + host + "\\] => playbooks/preflight\\.yml:\\d+:\\d+: "
                + "not ready to train, failed: " + Pattern.quote(failed) + " \\(see the tables above\\)$").matcher(out).find(), host + ":\n" + out));
    }

    /**
     * The faults of the newer checks, planted on nodes of their own: node07's checkpoint path is a
     * small tmpfs that is nearly full, node08 lacks numactl. Each is named on its node and no other,
     * and the HTML report shows both red.
     */
    @Test
    @Order(4)
    void aNearlyFullCheckpointPathAndAMissingNumactlAreNamedOnTheirNodes() throws Exception {
        for (int k = 1; k <= NODES; k++) {
            cluster.inNode(k, "mkdir -p /srv/ckpt").expectSuccess(node(k) + ": checkpoint directory");
        }
        cluster.inNode(7, "set -e; mount -t tmpfs -o size=8m ckpt /srv/ckpt; head -c 8200000 /dev/zero > /srv/ckpt/old-checkpoint")
                .expectSuccess("node07: a nearly full checkpoint path");
        cluster.inNode(8, "dpkg -r numactl >/dev/null 2>&1; ! command -v numactl").expectSuccess("node08: no numactl");
        Path json = tmp.resolve("new-checks.json");
        Path html = tmp.resolve("new-checks.html");
        try {
            Result run = Provision.run(knownHosts, "-i", inventory.toString(), PREFLIGHT,
                    "-e", "preflight_checks=checkpoint_storage,toolchain", "-e", "checkpoint_path=/srv/ckpt",
                    "-e", "write_test_size=1M", "--json", json.toString(), "--report", html.toString());
            System.out.println("=== pre-flight, checkpoint storage and toolchain (exit " + run.exitCode() + ")\n" + run.output());
            assertEquals(2, run.exitCode(), run.output());
            Report report = Report.read(json);
            for (int k = 1; k <= NODES; k++) {
                Set<String> failing = report.failing(node(k));
                assertEquals(k == 7, failing.contains("checkpoint.free"), node(k) + " " + failing + ":\n" + run.output());
                assertEquals(k == 8, failing.contains("toolchain.numactl"), node(k) + " " + failing + ":\n" + run.output());
            }
            String page = Files.readString(html);
            assertTrue(page.contains("node07") && page.contains("node08") && page.contains("checkpoint.free"), "the report names both");
        } finally {
            cluster.inNode(7, "umount /srv/ckpt || :");
            cluster.inNode(8, "apt-get install -y -qq --no-install-recommends numactl >/dev/null 2>&1 || :");
        }
    }

    /** Each fault as a sysadmin could cause it, through the node's own tools (no SSH involved). */
    private void plantFaults() throws Exception {
        // Another build under the training image's name: a one-file rootfs imported and tagged.
        cluster.inNode(2, "set -e; d=$(mktemp -d); echo 'not the training image' > $d/README; "
                + "tar -C $d -cf $d.tar README; podman import --quiet $d.tar " + TRAIN_IMAGE + " >/dev/null")
                .expectSuccess("node02: another image as " + TRAIN_IMAGE);
        cluster.inNode(3, "umount /data").expectSuccess("node03: umount /data");
        // The cluster key no longer opens node04; the controller's own key (the test cluster's client key) still does.
        cluster.inNode(4, "set -e; grep -q ' provision-cluster$' /root/.ssh/authorized_keys; "
                + "sed -i '/ provision-cluster$/d' /root/.ssh/authorized_keys").expectSuccess("node04: drop the cluster key");
        cluster.inNode(5, "set -e; f=/etc/security/limits.d/90-provision-cluster.conf; grep -q ' nofile ' $f; "
                + "sed -i -E 's/^(.*[[:space:]]nofile[[:space:]]+)[0-9]+/\\11024/' $f; ! grep -q " + NOFILE + " $f")
                .expectSuccess("node05: nofile 1024 in limits.d");
        cluster.inNode(6, "/etc/init.d/chrony stop; ! chronyc -n tracking >/dev/null 2>&1")
                .expectSuccess("node06: stop chronyd");
    }

    private Result preflight(Path json, String... more) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("-i", inventory.toString(), PREFLIGHT,
                "-e", "preflight_checks=clock,limits,storage,image,ssh_mesh",
                "-e", "shared_path=/data", "-e", "train_image=" + TRAIN_IMAGE,
                "-e", "min_nofile=" + NOFILE, "-e", "min_memlock=" + MEMLOCK_KIB,
                "--json", json.toString()));
        args.addAll(List.of(more));
        return Provision.run(knownHosts, args.toArray(String[]::new));
    }

    /** chrony's first sync takes a few seconds (iburst, one hop); the clock check rightly fails before it. */
    private void waitForChronySync() throws Exception {
        for (int k = 1; k <= NODES; k++) {
            TestCluster.Result tracking = null;
            for (int attempt = 0; attempt < 60; attempt++) {
                tracking = cluster.inNode(k, "chronyc -n tracking");
                if (tracking.output().contains("Reference ID    : 0AD50001 (10.213.0.1)")
                        && tracking.output().contains("Leap status     : Normal")) {
                    break;
                }
                Thread.sleep(1000);
            }
            assertTrue(tracking.output().contains("Leap status     : Normal"), node(k) + " chrony never synchronised:\n" + tracking.output());
        }
    }

    private String digest(int k) throws Exception {
        return cluster.inNode(k, "podman image inspect --format '{{.Digest}}' " + TRAIN_IMAGE)
                .expectSuccess(node(k) + " image inspect").output().strip();
    }

    /**
     * What a read-only run must not touch: files written under /etc, /root, podman's storage, mounts,
     * running chronyd, images. podman's lock files are left out: reading an image takes its lock.
     */
    private Map<Integer, String> nodeStates() throws Exception {
        Map<Integer, String> states = new LinkedHashMap<>();
        for (int k = 1; k <= NODES; k++) {
            states.put(k, cluster.inNode(k, "cd / && find etc root var/lib/containers -xdev -newer etc/hostname ! -name '*.lock'"
                    + " \\( -type f -o -type d \\) -printf '%p %m %u %s %T@\\n' 2>/dev/null | sort;"
                    + " grep ' /data ' /proc/mounts; chronyc -n tracking | grep '^Reference ID';"
                    + " podman images --format '{{.ID}} {{.Digest}} {{.Names}}'").output());
        }
        return states;
    }

    private static Set<String> union(Set<String> set, String... more) {
        Set<String> all = new TreeSet<>(set);
        all.addAll(List.of(more));
        return all;
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }



    /** One check row of the --json report, with the task it came from. */
    record Row(String task, String check, String measured, String expected, String verdict, String detail) {
    }

    /** The --json report as the test reads it: per host, every check row of every task, and each task's status. */
    record Report(Map<String, List<Row>> rowsByHost, Map<String, Map<String, String>> statusByTask) {
        static Report read(Path json) throws IOException {
            JsonNode root = new ObjectMapper().readTree(json.toFile());
            Map<String, List<Row>> rows = new LinkedHashMap<>();
            Map<String, Map<String, String>> statuses = new LinkedHashMap<>();
            for (JsonNode play : root.path("plays")) {
                for (JsonNode task : play.path("tasks")) {
                    String name = task.path("name").asText();
                    for (JsonNode result : task.path("results")) {
                        String host = result.path("host").asText();
                        statuses.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(host, result.path("status").asText());
                        for (JsonNode c : result.path("output").path("checks")) {
                            rows.computeIfAbsent(host, h -> new ArrayList<>()).add(new Row(name, c.path("check").asText(),
                                    c.path("measured").asText(), c.path("expected").asText(), c.path("verdict").asText(),
                                    c.path("detail").asText()));
                        }
                    }
                }
            }
            return new Report(rows, statuses);
        }

        Set<String> checks(String host) {
            return rowsByHost.getOrDefault(host, List.of()).stream().map(Row::check).collect(Collectors.toCollection(TreeSet::new));
        }

        Set<String> failing(String host) {
            return rowsByHost.getOrDefault(host, List.of()).stream().filter(r -> r.verdict().equals("fail")).map(Row::check)
                    .collect(Collectors.toCollection(TreeSet::new));
        }

        Row row(String host, String check) {
            List<Row> found = rowsByHost.getOrDefault(host, List.of()).stream().filter(r -> r.check().equals(check)).toList();
            if (found.size() != 1) {
                throw new AssertionError(host + ": expected one row " + check + ", found " + found);
            }
            return found.getFirst();
        }

        String status(String task, String host) {
            return statusByTask.getOrDefault(task, Map.of()).getOrDefault(host, "absent");
        }
    }
}
