package dev.provision.engine.e2e.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code gpu_acceptance} through {@code playbooks/preflight.yml} on test-cluster nodes, which have no
 * GPU: each node's "python" is a script that prints what the benchmark printed on a real H200 (idle,
 * or while another process kept it busy: the fixtures under {@code fixtures/h200-1gpu/}) and notes
 * the arguments it was given. An acceptance run becomes the baseline ({@code --save-baseline}); a
 * later run ({@code --baseline}) with one node
 * busy names it against the reference, the fleet and its own baseline, and writes its drain line;
 * a node that cannot run the benchmark is "not judged" (exit 8), never passed; the tier sets how
 * long the benchmark runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = GpuAcceptanceIT.NODES)
class GpuAcceptanceIT {
    static final int NODES = 4;
    private static final Path FIXTURES = Provision.REPO.resolve("modules/src/test/resources/fixtures/h200-1gpu");
    private static final int BUSY = 3;
    private static final int BROKEN = 2;

    private TestCluster cluster;
    private Path baseline;

    @BeforeAll
    void plantTheBenchmark() throws Exception {
        // the GPU list as nvidia-smi printed it on the H200
        String names = output("nvidia-smi-names.txt");
        for (int k = 1; k <= NODES; k++) {
            cluster.exec(k, "sh", "-c", "printf '#!/bin/sh\\ncat <<EOF\\n%sEOF\\n' '" + names + "' > /usr/local/bin/nvidia-smi"
                    + " && chmod 755 /usr/local/bin/nvidia-smi");
            plant(k, "gpu-acceptance.txt");
        }
    }

    /** A captured output's own lines, without the command line and exit status the capture notes. */
    private static String output(String fixture) throws Exception {
        return String.join("\n", Files.readAllLines(FIXTURES.resolve(fixture)).stream()
                .filter(l -> !l.startsWith("$ ") && !l.startsWith("# exit=")).toList()) + "\n";
    }

    /** Node k's benchmark prints the real output of {@code fixture}. */
    private void plant(int k, String fixture) throws Exception {
        String output = output(fixture);
        cluster.exec(k, "sh", "-c", "cat > /etc/pv-accept.txt <<'EOF'\n" + output + "EOF\n"
                + "printf '#!/bin/sh\\necho \"$*\" > /tmp/pv-accept.args\\ncat /etc/pv-accept.txt\\n' > /usr/local/bin/pv-accept"
                + " && chmod 755 /usr/local/bin/pv-accept");
    }

    private Result preflight(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("-i", cluster.inventory().toString(),
                "--known-hosts", cluster.tmp().resolve("known_hosts").toString(), "playbooks/preflight.yml",
                "-e", "preflight_checks=gpu_acceptance", "-e", "python_interpreter=pv-accept"));
        args.addAll(List.of(extra));
        return Provision.run(args.toArray(String[]::new));
    }

    private String node(int k) {
        return cluster.nodeNames().get(k - 1);
    }

    @Test
    @Order(1)
    void anAcceptanceRunPassesAndItsReportBecomesTheBaseline() throws Exception {
        baseline = cluster.tmp().resolve("accepted.json");
        Result run = preflight("--save-baseline", baseline.toString(), "-e", "acceptance_tier=quick");
        assertEquals(0, run.exitCode(), run.output());
        PreflightIT.Report report = PreflightIT.Report.read(baseline);
        for (int k = 1; k <= NODES; k++) {
            assertEquals("pass", report.row(node(k), "gpu_acceptance.gpu0.gemm").verdict(), run.output());
            assertEquals("648.0 TFLOPS", report.row(node(k), "gpu_acceptance.gpu0.gemm").measured(), run.output());
        }
        String quick = cluster.exec(1, "cat", "/tmp/pv-accept.args");
        preflight("-e", "acceptance_tier=full").expectSuccess("the full tier");
        String full = cluster.exec(1, "cat", "/tmp/pv-accept.args");
        assertTrue(seconds(full) > seconds(quick), "the tier sets how long it runs: quick " + quick + ", full " + full);
    }

    @Test
    @Order(2)
    void aBusyNodeIsNamedAgainstTheReferenceTheFleetAndItsOwnBaselineAndDrained() throws Exception {
        plant(BUSY, "gpu-acceptance-busy.txt");
        Path json = cluster.tmp().resolve("busy.json");
        Path drain = cluster.tmp().resolve("drain.sh");
        Result run = preflight("--json", json.toString(), "--drain-file", drain.toString(), "--baseline", baseline.toString());
        assertEquals(2, run.exitCode(), run.output());
        PreflightIT.Report report = PreflightIT.Report.read(json);
        String busy = node(BUSY);
        assertEquals("fail", report.row(busy, "gpu_acceptance.gpu0.gemm").verdict(), run.output());
        assertEquals("fail", report.row(busy, "gpu_acceptance.gpu0.gemm_vs_baseline").verdict(), run.output());
        assertTrue(report.row(busy, "gpu_acceptance.gpu0.gemm_vs_baseline").measured().contains("was 648.0"), run.output());
        assertEquals("fail", report.row(busy, "gpu_acceptance.gemm_vs_fleet").verdict(), "far below its peers too:\n" + run.output());
        assertTrue(report.row(busy, "gpu_acceptance.gpu0.gemm").detail().contains("drain the node"), "says what to do:\n" + run.output());
        for (int k = 1; k <= NODES; k++) {
            if (k != BUSY) {
                assertEquals(java.util.Set.of(), report.failing(node(k)), node(k) + ":\n" + run.output());
                assertEquals("pass", report.row(node(k), "gpu_acceptance.gpu0.gemm_vs_baseline").verdict(), run.output());
            }
        }
        List<String> lines = Files.readAllLines(drain).stream().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        assertEquals(1, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("nodename=" + busy) && lines.get(0).contains("gpu_acceptance.gpu0.gemm"), lines.get(0));
        plant(BUSY, "gpu-acceptance.txt");

        Result missing = preflight("--baseline", cluster.tmp().resolve("no-such.json").toString());
        assertEquals(5, missing.exitCode(), missing.output());
        assertTrue(missing.output().contains("--baseline") && missing.output().contains("no-such.json"), missing.output());
    }

    @Test
    @Order(3)
    void aNodeThatCannotRunTheBenchmarkIsNotJudgedNeverPassed() throws Exception {
        cluster.exec(BROKEN, "rm", "-f", "/usr/local/bin/pv-accept");
        Path json = cluster.tmp().resolve("broken.json");
        Result run = preflight("--json", json.toString());
        assertEquals(8, run.exitCode(), run.output());
        PreflightIT.Report report = PreflightIT.Report.read(json);
        assertTrue(report.rowsByHost().get(node(BROKEN)).stream().anyMatch(r -> r.verdict().equals("unknown")), run.output());
        assertTrue(report.rowsByHost().get(node(BROKEN)).stream().noneMatch(r -> r.verdict().equals("pass")), run.output());
        assertTrue(run.output().contains(node(BROKEN)) && run.output().toLowerCase().contains("could not be judged"), run.output());
        plant(BROKEN, "gpu-acceptance.txt");
    }

    private static double seconds(String args) {
        String[] words = args.strip().split("\\s+");
        return Double.parseDouble(words[words.length - 1]);
    }
}
