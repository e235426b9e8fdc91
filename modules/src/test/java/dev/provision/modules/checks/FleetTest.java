package dev.provision.modules.checks;

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

    private static String verdict(Map<String, List<Map<String, Object>>> rows, String host) {
        return String.valueOf(rows.get(host).get(0).get("verdict"));
    }

    @Test
    void namesTheNodeWithADifferentDigest() {
        var rows = new ImageConsistencyCheckModule().compare(results(
                "node01", "image_digest", "sha256:aaa", "node02", "image_digest", "sha256:aaa", "node03", "image_digest", "sha256:bbb"));
        assertEquals("pass", verdict(rows, "node01"));
        assertEquals("fail", verdict(rows, "node03"));
        assertEquals("sha256:aaa (fleet)", rows.get("node03").get(0).get("expected"));
    }

    @Test
    void slowNodeBelowFractionOfMedianFails() {
        var rows = new NcclBandwidthCheckModule().compare(results(
                "a", "busbw_gbps", 480.0, "b", "busbw_gbps", 478.0, "c", "busbw_gbps", 300.0, "d", "busbw_gbps", 481.0));
        assertEquals("pass", verdict(rows, "a"));
        assertEquals("fail", verdict(rows, "c"));
        assertTrue(String.valueOf(rows.get("c").get(0).get("expected")).contains("fleet median"));
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
}
