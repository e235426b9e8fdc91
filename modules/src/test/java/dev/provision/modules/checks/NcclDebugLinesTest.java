package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.output;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** NCCL's {@code NCCL_DEBUG=INFO} lines, as the collective launcher printed them on an H200 (NCCL 2.28.9). */
class NcclDebugLinesTest {
    @Test
    void versionNetworkAndNvlsFromARealOneRankCommunicator() {
        NcclDebugLines lines = NcclDebugLines.parse(output("h200-1gpu/collective-bench-nccl-1rank.txt"));
        assertEquals(Optional.of("2.28.9+cuda13.0"), lines.version());
        assertEquals(Optional.of("Socket"), lines.network(), "no HCA on that host: NET/IB found no device");
        assertEquals(Optional.of(false), lines.nvls(), "one GPU: 0 nvls channels");
        assertEquals(List.of(), lines.transports(), "one rank connects to nobody");
        assertEquals(Optional.of("Socket"), lines.transport());
    }

    @Test
    void nvlsTurnedOffByTheEnvironment() {
        assertEquals(Optional.of(false), NcclDebugLines.parse(output("h200-1gpu/collective-bench-nccl-1rank-nvls-off.txt")).nvls());
    }

    @Test
    void theLauncherPrintsItsFiguresBesideNcclsLines() {
        TorchAllReduceOutput out = TorchAllReduceOutput.parse(output("h200-1gpu/collective-bench-nccl-1rank.txt"));
        assertEquals(1, out.world());
        assertEquals(1L << 30, out.rows().get(out.rows().size() - 1).sizeBytes());
        assertEquals(0.0, out.busbwGbps(), "one rank: busbw is 0 by definition");
    }

    @Test
    void nothingSaidLeavesEveryValueEmpty() {
        NcclDebugLines lines = NcclDebugLines.parse("size=1 time_us=1 algbw_GBps=1 busbw_GBps=1\n");
        assertEquals(Optional.empty(), lines.version());
        assertEquals(Optional.empty(), lines.nvls());
        assertEquals(Optional.empty(), lines.transport());
    }
}
