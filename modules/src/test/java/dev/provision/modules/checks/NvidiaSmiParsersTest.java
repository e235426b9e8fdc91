package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NvidiaSmiParsersTest {

    @Test
    void readsTheRealCsvCaptureWithUnitsInTheHeader() {
        List<GpuInfo> gpus = NvidiaSmiCsv.parse(output("h200-1gpu/nvidia-smi-csv.txt"));
        assertEquals(1, gpus.size());
        GpuInfo g = gpus.get(0);
        assertEquals("0", g.index());
        assertEquals("NVIDIA H200", g.name());
        assertEquals("GPU-153acc0c-7fe0-cdf5-d6c9-0c6edf250206", g.uuid());
        assertEquals("00000000:00:06.0", g.busId());
        assertEquals("580.159.04", g.driverVersion());
        assertEquals("Enabled", g.eccMode());
        assertEquals("0", g.volatileUncorrected());
        assertEquals(GpuInfo.UNAVAILABLE, g.aggregateUncorrected(), "not queried in that capture");
    }

    @Test
    void readsTheRealCaptureOfTheGpuChecksOwnQuery() {
        ChecksFixtures.Capture capture = load("h200-1gpu/nvidia-smi-csv-checks.txt");
        assertEquals(String.join(" ", NvidiaSmiCsv.COMMAND), capture.command());
        GpuInfo g = NvidiaSmiCsv.parse(capture.output()).get(0);
        assertEquals("NVIDIA H200", g.name());
        assertEquals("0", g.aggregateUncorrected());
        assertEquals(GpuInfo.UNAVAILABLE, g.retiredPagesPending(), "[N/A] on Hopper, which remaps rows instead");
        assertEquals("No", g.remappedRowsPending());
    }

    @Test
    void readsTheRealFullQueryReport() {
        List<GpuInfo> gpus = NvidiaSmiQuery.parse(output("h200-1gpu/nvidia-smi-q.txt"));
        assertEquals(1, gpus.size());
        GpuInfo g = gpus.get(0);
        assertEquals("NVIDIA H200", g.name());
        assertEquals("GPU-153acc0c-7fe0-cdf5-d6c9-0c6edf250206", g.uuid());
        assertEquals("00000000:00:06.0", g.busId());
        assertEquals("580.159.04", g.driverVersion());
        assertEquals("Enabled", g.eccMode());
        assertEquals("0", g.volatileUncorrected());
        assertEquals("0", g.aggregateUncorrected());
        assertEquals(GpuInfo.UNAVAILABLE, g.retiredPagesPending());
        assertEquals("No", g.remappedRowsPending());
    }

    @Test
    void readsTheRealEccOnlyReport() {
        GpuInfo g = NvidiaSmiQuery.parse(output("h200-1gpu/nvidia-smi-q-ecc.txt")).get(0);
        assertEquals("00000000:00:06.0", g.busId());
        assertEquals("Enabled", g.eccMode());
        assertEquals("0", g.volatileUncorrected());
        assertEquals("0", g.aggregateUncorrected());
        assertEquals(GpuInfo.UNAVAILABLE, g.name(), "-d ECC leaves the product name out");
    }

    @Test
    void sumsDoubleBitTotalsOfOlderDrivers() {
        GpuInfo g = NvidiaSmiQuery.parse(output("synthetic/nvidia-smi-q-double-bit.txt")).get(0);
        assertEquals("Tesla V100-SXM2-16GB", g.name());
        assertEquals("2", g.volatileUncorrected(), "Double Bit/Total only, not Device Memory twice");
        assertEquals("2", g.aggregateUncorrected());
        assertEquals("Yes", g.retiredPagesPending());
        assertEquals("418.67", g.driverVersion());
    }

    @Test
    void readsEccErrorsAndUnsupportedFields() {
        List<GpuInfo> gpus = NvidiaSmiCsv.parse(output("synthetic/nvidia-smi-csv-ecc-errors.txt"));
        assertEquals(4, gpus.size());
        assertEquals("3", gpus.get(2).volatileUncorrected());
        assertEquals("5", gpus.get(2).aggregateUncorrected());
        assertEquals("Yes", gpus.get(2).remappedRowsPending());
        assertEquals("Disabled", gpus.get(3).eccMode());
        assertEquals(GpuInfo.UNAVAILABLE, gpus.get(3).volatileUncorrected());
        assertEquals(GpuInfo.UNAVAILABLE, gpus.get(3).remappedRowsPending(), "[Not Supported]");
    }

    @Test
    void healthyOutputShowsNoProblem() {
        ChecksFixtures.Capture c = load("h200-1gpu/nvidia-smi-csv-checks.txt");
        assertEquals(Optional.empty(), NvidiaSmiProblem.diagnose(c.exitCode(), c.output()));
    }

    @Test
    void exitNineIsAMissingDriver() {
        ChecksFixtures.Capture c = load("synthetic/nvidia-smi-driver-missing.txt");
        NvidiaSmiProblem p = NvidiaSmiProblem.diagnose(c.exitCode(), c.output()).orElseThrow();
        NvidiaSmiProblem.DriverMissing missing = assertInstanceOf(NvidiaSmiProblem.DriverMissing.class, p);
        assertTrue(missing.message().startsWith("NVIDIA-SMI has failed"), missing.message());
    }

    @Test
    void lostGpuIsNamedAndTheOthersStillParse() {
        ChecksFixtures.Capture c = load("synthetic/nvidia-smi-gpu-lost.txt");
        NvidiaSmiProblem.GpusLost lost = assertInstanceOf(NvidiaSmiProblem.GpusLost.class,
                NvidiaSmiProblem.diagnose(c.exitCode(), c.output()).orElseThrow());
        assertEquals(List.of("0000:3A:00.0"), lost.gpus());
        assertTrue(lost.message().startsWith("GPU is lost"), lost.message());
        assertEquals(2, NvidiaSmiCsv.parse(c.output()).size());
    }

    @Test
    void fallenOffTheBusIsALostGpu() {
        assertInstanceOf(NvidiaSmiProblem.GpusLost.class,
                NvidiaSmiProblem.diagnose(0, "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n").orElseThrow());
    }

    @Test
    void exit127IsNotInstalled() {
        assertInstanceOf(NvidiaSmiProblem.NotInstalled.class,
                NvidiaSmiProblem.diagnose(127, "sh: 1: nvidia-smi: not found\n").orElseThrow());
    }

    @Test
    void csvWithoutHeaderIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> NvidiaSmiCsv.parse("Field \"remapped_rows.pending\" is not a valid field to query.\n"));
    }

    @Test
    void bannerGivesTheDriversCudaVersion() {
        String banner = output("h200-1gpu/nvidia-smi.txt");
        assertEquals(Optional.of("13.0"), NvidiaSmiHeader.cudaVersion(banner));
        assertEquals(Optional.of("580.159.04"), NvidiaSmiHeader.driverVersion(banner));
        assertEquals(Optional.of("13.0"), NvidiaSmiHeader.cudaVersion(output("h200-1gpu/nvidia-smi-q.txt")));
    }

    @Test
    void readsLinkModesAndClocksFromTheRealFullReport() {
        GpuHealth g = GpuHealth.parse(output("h200-1gpu/nvidia-smi-q.txt")).get(0);
        assertEquals("00000000:00:06.0", g.busId());
        assertEquals("Gen5 x16", g.link());
        assertEquals("Gen5 x16", g.fullLink());
        assertEquals("Enabled", g.persistenceMode());
        assertEquals("Disabled", g.migCurrent());
        assertTrue(g.idle(), "the capture was taken with no work on the GPU");
        assertEquals(List.of(), g.hwSlowdowns());
        assertEquals(0, g.thermalThrottleMicros());
        assertEquals(35, g.temperatureC().getAsInt());
        assertEquals("None", g.recoveryAction());
    }

    @Test
    void readsADegradedLinkAndActiveSlowdownsFromTheDocumentedLayout() {
        List<GpuHealth> gpus = GpuHealth.parse(output("synthetic/nvidia-smi-q-gen4-x8.txt"));
        assertEquals(2, gpus.size());
        GpuHealth bad = gpus.get(1);
        assertEquals("3B:00.0", bad.shortBusId());
        assertEquals("Gen4 x8", bad.link());
        assertEquals(List.of("HW Slowdown", "HW Thermal Slowdown"), bad.hwSlowdowns());
        assertEquals(2_500_000, bad.thermalThrottleMicros());
    }

    @Test
    void readsXidEventsFromJournalctlAndDmesgLines() {
        List<KernelXid.Event> events = KernelXid.parse(output("synthetic/kernel-log-xid79.txt"));
        assertEquals(3, events.size());
        assertEquals(new KernelXid.Event("0000:3b:00", 79, "pid='<unknown>', name=<unknown>, GPU has fallen off the bus."), events.get(2));
        assertTrue(events.get(2).drainWorthy());
        assertEquals(Optional.of("journalctl"), KernelXid.source(output("synthetic/kernel-log-xid79.txt")));
        KernelXid.Event old = KernelXid.parse(output("synthetic/kernel-log-xid13-dmesg.txt")).get(0);
        assertEquals("0000:18:00", old.pci(), "older drivers print the address without PCI:");
        assertEquals(13, old.code());
        assertTrue(!old.drainWorthy());
        assertEquals(Optional.empty(), KernelXid.source(output("synthetic/kernel-log-unreadable.txt")));
    }
}
