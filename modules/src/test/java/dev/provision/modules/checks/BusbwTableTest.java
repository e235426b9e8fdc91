package dev.provision.modules.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.checks.BusbwTable.Expectation;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BusbwTableTest {
    @Test
    void theFigureDependsOnGpusPerNodeAndNvls() {
        assertEquals(370, BusbwTable.withinNode("NVIDIA H200", 2, Optional.empty()).orElseThrow().gbps());
        assertEquals(370, BusbwTable.withinNode("NVIDIA H100 80GB HBM3", 4, Optional.empty()).orElseThrow().gbps());
        assertEquals(480, BusbwTable.withinNode("NVIDIA H200", 8, Optional.empty()).orElseThrow().gbps(), "NCCL's default: NVLS on");
        assertEquals(480, BusbwTable.withinNode("NVIDIA H200", 8, Optional.of(true)).orElseThrow().gbps());
        assertEquals(370, BusbwTable.withinNode("NVIDIA H200", 8, Optional.of(false)).orElseThrow().gbps());
        assertEquals(440, BusbwTable.withinNode("NVIDIA H100 80GB HBM3", 6, Optional.empty()).orElseThrow().gbps());
        assertEquals(370, BusbwTable.withinNode("NVIDIA H100 80GB HBM3", 6, Optional.of(false)).orElseThrow().gbps());
        assertEquals(230, BusbwTable.withinNode("NVIDIA A100-SXM4-80GB", 8, Optional.empty()).orElseThrow().gbps());
        assertTrue(BusbwTable.withinNode("NVIDIA L40S", 2, Optional.empty()).isEmpty(), "no figure rather than a wrong one");
        assertTrue(BusbwTable.withinNode("NVIDIA H200", 1, Optional.empty()).isEmpty(), "one GPU has no busbw");
    }

    @Test
    void theBasisSaysWhatTheFigureIsFor() {
        Expectation e = BusbwTable.withinNode("NVIDIA H200", 2, Optional.of(false)).orElseThrow();
        assertEquals("H200, NVLink 4, 2-4 GPUs (NVLS or not)", e.basis());
    }

    @Test
    void acrossNodesTheHcasLineRateTimesTheWireEfficiency() {
        Expectation e = BusbwTable.acrossNodes(8, 400).orElseThrow();
        assertEquals(8 * 400 / 8.0 * BusbwTable.WIRE_EFFICIENCY, e.gbps(), 1e-9);
        assertEquals("8 x 400 Gb/s HCAs: 400 GB/s line rate x 0.9", e.basis());
        assertTrue(BusbwTable.acrossNodes(0, 400).isEmpty());
    }
}
