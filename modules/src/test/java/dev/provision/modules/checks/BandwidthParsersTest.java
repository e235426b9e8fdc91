package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class BandwidthParsersTest {

    @Test
    void oldHeaderWithoutRootColumn() {
        NcclTestsOutput out = NcclTestsOutput.parse(output("synthetic/nccl-tests-old-header.txt"));
        assertEquals(4, out.rows().size());
        NcclTestsOutput.Row largest = out.largest().orElseThrow();
        assertEquals(1073741824L, largest.sizeBytes());
        assertEquals(455.89, largest.outOfPlaceBusbw(), 1e-9);
        assertEquals(456.16, largest.inPlaceBusbw(), 1e-9);
        assertEquals(OptionalDouble.of(363.4), out.averageBusbw());
        assertEquals(0, out.outOfBounds());
    }

    @Test
    void newHeaderWithRootAndWrongColumns() {
        NcclTestsOutput out = NcclTestsOutput.parse(output("synthetic/nccl-tests-new-header.txt"));
        assertEquals(4, out.rows().size());
        NcclTestsOutput.Row largest = out.largest().orElseThrow();
        assertEquals(487.99, largest.outOfPlaceBusbw(), 1e-9, "busbw, not the root column's shift");
        assertEquals("0", largest.outOfPlaceWrong());
        assertEquals(OptionalDouble.of(395.85), out.averageBusbw());
    }

    @Test
    void wrongValuesAreCounted() {
        String text = output("synthetic/nccl-tests-new-header.txt").replace("# Out of bounds values : 0 OK", "# Out of bounds values : 12 FAILED");
        assertEquals(12, NcclTestsOutput.parse(text).outOfBounds());
    }

    @Test
    void unfinishedRunHasNoAverage() {
        String text = output("synthetic/nccl-tests-old-header.txt").lines()
                .filter(l -> !l.contains("Avg bus bandwidth")).reduce("", (a, b) -> a + b + "\n");
        assertEquals(OptionalDouble.empty(), NcclTestsOutput.parse(text).averageBusbw());
    }

    @Test
    void outputWithoutHeaderIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> NcclTestsOutput.parse("Test NCCL failure common.cu:958 'unhandled cuda error'\n"));
    }

    @Test
    void torchBenchmarkCaptureWithoutSummaryUsesTheLargestSize() {
        TorchAllReduceOutput out = TorchAllReduceOutput.parse(output("h200-1gpu/torch-allreduce.txt"));
        assertEquals(1, out.world());
        assertEquals(4, out.rows().size());
        assertEquals(0.0, out.busbwGbps(), "0 by definition with one GPU");
        assertEquals(69707.65, out.rows().get(3).algbwGbps(), 1e-9);
    }

    @Test
    void shippedBenchmarkOutputFromTheH200() {
        TorchAllReduceOutput out = TorchAllReduceOutput.parse(output("h200-1gpu/allreduce-bench-1gpu.txt"));
        assertEquals(1, out.world());
        assertEquals(4, out.rows().size());
        assertEquals(1073741824L, out.rows().get(3).sizeBytes());
        assertEquals(0.0, out.busbwGbps());
    }

    @Test
    void summaryLineWins() {
        TorchAllReduceOutput out = TorchAllReduceOutput.parse("# all_reduce bus bandwidth, world=8\n"
                + "size=1073741824 time_us=4790.2 algbw_GBps=224.15 busbw_GBps=392.27\nbusbw_gbps=392.27\n");
        assertEquals(8, out.world());
        assertEquals(392.27, out.busbwGbps(), 1e-9);
    }

    @Test
    void benchmarkOutputWithoutFiguresIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TorchAllReduceOutput.parse("Traceback (most recent call last):\n"));
    }
}
