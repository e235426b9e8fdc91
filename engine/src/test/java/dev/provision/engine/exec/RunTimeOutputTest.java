package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunTimeOutputTest {
    private static final String PLACEHOLDER = "<output of 'get kernel' at site.yml:4:7, known when it runs>";

    @Test
    void findsAPlaceholderInAStringAnywhere() {
        assertTrue(RunTimeOutput.in(PLACEHOLDER));
        assertTrue(RunTimeOutput.in("kernel " + PLACEHOLDER + " loaded"));
    }

    @Test
    void findsAPlaceholderDeepInListsAndMaps() {
        List<Object> entries = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            entries.add(Map.of("names", List.of("node" + i, "10.0.0." + i), "keys", List.of("ssh-ed25519 AAAA" + i)));
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("entries", entries);
        params.put("port", 22);
        assertFalse(RunTimeOutput.in(params));
        entries.add(Map.of("names", List.of("late"), "keys", List.of(PLACEHOLDER)));
        assertTrue(RunTimeOutput.in(params));
    }

    @Test
    void aStringThatOnlyStartsLikeAPlaceholderIsNotOne() {
        assertFalse(RunTimeOutput.in("<output of 'get kernel' at site.yml:4:7"));
        assertFalse(RunTimeOutput.in("<output of 'get\nkernel' at site.yml:4:7, known when it runs>"));
        assertFalse(RunTimeOutput.in("output of 'get kernel' at site.yml:4:7, known when it runs>"));
        assertFalse(RunTimeOutput.in(""));
        assertFalse(RunTimeOutput.in((Object) null));
        assertFalse(RunTimeOutput.in(42));
    }
}
