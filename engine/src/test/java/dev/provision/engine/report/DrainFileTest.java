package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.text.ShellWords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler hand-off: one quoted Slurm drain line per node not ready, the same nodes the page names. */
class DrainFileTest {
    @TempDir
    Path dir;

    @Test
    void oneDrainLinePerNodeNotReadyWithItsFailingChecks() throws Exception {
        Path file = dir.resolve("drain.sh");
        DrainFile drain = new DrainFile(file);
        ReadinessFleet.run(drain, 100);
        assertTrue(drain.failure().isEmpty());
        List<String> lines = Files.readAllLines(file);
        assertTrue(lines.getFirst().startsWith("# provision --drain-file: the nodes not ready to train (4 of 100)"), lines.getFirst());
        List<List<String>> commands = lines.subList(1, lines.size()).stream().filter(l -> !l.startsWith("#")).map(ShellWords::split).toList();
        assertEquals(List.of("node0004", "node0010", "node0060", "node0097"),
                commands.stream().map(c -> c.get(2).substring("nodename=".length())).sorted().toList());
        for (List<String> c : commands) {
            assertEquals(List.of("scontrol", "update"), c.subList(0, 2));
            assertEquals("state=drain", c.get(3));
            assertTrue(c.get(4).startsWith("reason=provision: "), c.toString());
            assertEquals(5, c.size(), "the reason is one word for the shell: " + c);
        }
        String narrow = commands.stream().filter(c -> c.get(2).equals("nodename=node0097")).findFirst().orElseThrow().get(4);
        assertTrue(narrow.contains("gpu.pcie_link") && narrow.contains("nccl.busbw"), narrow);
        String unreachable = commands.stream().filter(c -> c.get(2).equals("nodename=node0004")).findFirst().orElseThrow().get(4);
        assertEquals("reason=provision: unreachable", unreachable);
    }

    @Test
    void aCheckThatCouldNotBeJudgedDrainsNothingAndIsNamedInAComment() throws Exception {
        Path file = dir.resolve("drain.sh");
        DrainFile drain = new DrainFile(file);
        drain.playStarted("p", List.of("a", "b"), false);
        drain.taskStarted("t", "p:1:1", false);
        drain.hostResult(ReadinessFleet.result("a", List.of(ReadinessFleet.row("dcgm.diag", "-", "-", "unknown", "could not run: dcgmi not installed")),
                java.util.Map.of()));
        drain.hostResult(ReadinessFleet.result("b", List.of(ReadinessFleet.row("dcgm.diag", "-", "-", "unknown", "could not run"),
                ReadinessFleet.row("gpu.xid", "1", "0", "fail", "drain this node: Xid 79")), java.util.Map.of()));
        drain.recap(java.util.Map.of(), "");
        List<String> lines = Files.readAllLines(file);
        assertTrue(lines.getFirst().startsWith("# provision --drain-file: the nodes not ready to train (1 of 2)"), lines.getFirst());
        assertEquals("scontrol update nodename=b state=drain 'reason=provision: gpu.xid 1'", lines.get(1));
        assertEquals("# not drained, could not be judged (UNKNOWN): a: dcgm.diag", lines.get(2));
        assertEquals(3, lines.size(), lines.toString());
    }

    @Test
    void aReadyFleetGetsOnlyTheHeader() throws Exception {
        Path file = dir.resolve("drain.sh");
        DrainFile drain = new DrainFile(file);
        ReadinessFleet.run(drain, 3); // nodes 1-3 of the fleet: none of its faulty ones
        assertEquals(List.of("# provision --drain-file: the nodes not ready to train (0 of 3), one Slurm drain each; review, then run it (sh FILE)"),
                Files.readAllLines(file));
    }
}
