package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TransferRateTest {
    @Test
    void sumsEveryLaunchsLatestTotalsAndRatesTheGrowthSinceTheLastLine() {
        TransferRate rate = new TransferRate(0);
        rate.record("node01", 3_000_000, 10);
        rate.record("node02", 1_000_000, 30);
        assertEquals("4.0 MB received, 2.0 MB/s, 20 files/s", rate.line(2_000_000_000L));

        rate.record("node01", 5_000_000, 20);
        rate.record("node02", 0, 0); // its fetch ended and cleared its temp tree: what it received stays counted
        assertEquals("6.0 MB received, 1.0 MB/s, 5 files/s", rate.line(4_000_000_000L));
    }

    @Test
    void readsOnlyTwoCounts() {
        assertEquals(12, TransferRate.parse("12 3\n").orElseThrow()[0]);
        assertTrue(TransferRate.parse("").isEmpty());
        assertTrue(TransferRate.parse("12 x").isEmpty());
        assertTrue(TransferRate.parse("1 2 3").isEmpty());
    }
}
