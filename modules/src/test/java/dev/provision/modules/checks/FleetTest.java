package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.CheckResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetTest {
    private static Map<String, Map<String, Object>> results(Object... hostKeyValue) {
        Map<String, Map<String, Object>> m = new LinkedHashMap<>();
        for (int i = 0; i < hostKeyValue.length; i += 3) {
            m.put((String) hostKeyValue[i], Map.of((String) hostKeyValue[i + 1], hostKeyValue[i + 2]));
        }
        return m;
    }

    private static String verdict(Map<String, List<CheckResult>> rows, String host) {
        return String.valueOf(rows.get(host).get(0).toMap().get("verdict"));
    }

    @Test
    void namesTheNodeWithADifferentDigest() {
        var rows = new ImageConsistencyCheckModule().compare(results(
                "node01", "image_digest", "sha256:aaa", "node02", "image_digest", "sha256:aaa", "node03", "image_digest", "sha256:bbb"));
        assertEquals("pass", verdict(rows, "node01"));
        assertEquals("fail", verdict(rows, "node03"));
        assertEquals("sha256:aaa (fleet)", rows.get("node03").get(0).toMap().get("expected"));
    }

    @Test
    void slowNodeBelowFractionOfMedianFails() {
        var rows = new NcclBandwidthCheckModule().compare(results(
                "a", "busbw_gbps", 480.0, "b", "busbw_gbps", 478.0, "c", "busbw_gbps", 300.0, "d", "busbw_gbps", 481.0));
        assertEquals("pass", verdict(rows, "a"));
        assertEquals("fail", verdict(rows, "c"));
        assertTrue(String.valueOf(rows.get("c").get(0).toMap().get("expected")).contains("fleet median"));
    }

    @Test
    void clockSpreadBeyondLimitFailsTheOutlierOnly() {
        var rows = new ClockCheckModule().compare(results(
                "a", "controller_offset_seconds", 0.01, "b", "controller_offset_seconds", -0.02, "c", "controller_offset_seconds", 2.5));
        assertEquals("pass", verdict(rows, "a"));
        assertEquals("pass", verdict(rows, "b"));
        assertEquals("fail", verdict(rows, "c"));
    }

    @Test
    void clocksWithinSpreadAllPass() {
        var rows = new ClockCheckModule().compare(results(
                "a", "controller_offset_seconds", 0.1, "b", "controller_offset_seconds", 0.4));
        assertEquals("pass", verdict(rows, "a"));
        assertEquals("pass", verdict(rows, "b"));
    }

    @Test
    void aFleetOfOneHasNoMedianToFallBehind() {
        assertTrue(new NcclBandwidthCheckModule().compare(results("a", "busbw_gbps", 1.0)).isEmpty());
    }

    @Test
    void cudaStackDifferenceIsNamed() {
        var rows = new CudaStackCheckModule().compare(Map.of(
                "a", Map.of("versions", Map.of("torch", "2.11.0", "cuda", "13.0")),
                "b", Map.of("versions", Map.of("torch", "2.11.0", "cuda", "13.0")),
                "c", Map.of("versions", Map.of("torch", "2.10.0", "cuda", "12.8"))));
        assertEquals("fail", verdict(rows, "c"));
        assertEquals("pass", verdict(rows, "a"));
    }

    @Test
    void slowNodeRowsNameEveryOutlier() {
        var rows = new NcclBandwidthCheckModule().compare(results(
                "a", "busbw_gbps", 480.0, "b", "busbw_gbps", 120.0, "c", "busbw_gbps", 300.0, "d", "busbw_gbps", 481.0, "e", "busbw_gbps", 479.0));
        assertEquals("fail", verdict(rows, "b"));
        assertDetail("below the fleet median: b, c (2 of 5 hosts)", rows.get("c").get(0).toMap().get("detail"));
        assertEquals("120 GB/s", rows.get("b").get(0).toMap().get("measured"));
        assertEquals(">= 383.2 GB/s (80% of fleet median 479)", rows.get("b").get(0).toMap().get("expected"));
    }

    @Test
    void aNodeWithANarrowerPcieLinkThanTheFleetFails() {
        Map<String, Map<String, Object>> results = new java.util.LinkedHashMap<>();
        for (int i = 1; i <= 20; i++) {
            results.put("gpu" + i, Map.of("gpu_count", 8L, "gpu_model", "NVIDIA H200", "driver_version", "580.159.04",
                    "pcie_width_min", i == 7 ? 8L : 16L));
        }
        var rows = new GpuCheckModule().compare(results);
        assertEquals(2, rows.get("gpu7").size(), "same-as-fleet and width rows");
        Map<String, Object> width = rows.get("gpu7").get(1).toMap();
        assertEquals("gpu.pcie_width_vs_fleet", width.get("check"));
        assertEquals("fail", width.get("verdict"));
        assertEquals("8 lanes", width.get("measured"));
        assertDetail("below the fleet median: gpu7 (1 of 20 hosts)", width.get("detail"));
        assertEquals("pass", rows.get("gpu8").get(1).toMap().get("verdict"));
    }

    @Test
    void longOutlierListsAreCut() {
        assertEquals("h0, h1, h2, h3, h4, h5, h6, h7 and 4 more (12 of 500 hosts)",
                Fleet.outliers(java.util.stream.IntStream.range(0, 12).mapToObj(i -> "h" + i).toList(), 500));
    }
}
