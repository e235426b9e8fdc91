package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostRangesTest {
    @Test
    void padsNumbersLikeTheStart() {
        assertEquals(List.of("node098", "node099", "node100"), HostRanges.expand("node[098:100]"));
    }

    @Test
    void keepsNumbersUnpaddedWhenTheStartIsNot() {
        assertEquals(List.of("n9", "n10"), HostRanges.expand("n[9:10]"));
    }

    @Test
    void leavesNamesWithoutRangesAlone() {
        assertEquals(List.of("node1.example.com"), HostRanges.expand("node1.example.com"));
    }

    @Test
    void expandsSixtyFourZeroPaddedNodes() {
        List<String> nodes = HostRanges.expand("node[01:64]");
        assertEquals(64, nodes.size());
        assertEquals("node01", nodes.getFirst());
        assertEquals("node64", nodes.getLast());
    }

    @Test
    void rejectsMalformedRanges() {
        assertEquals("start 5 is after end 1",
                assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[5:1]")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[5]"));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[1:2"));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[a:Z]"));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[1:5:0]"));
        assertThrows(IllegalArgumentException.class, () -> HostRanges.expand("node[0:99999999]"));
    }
}
