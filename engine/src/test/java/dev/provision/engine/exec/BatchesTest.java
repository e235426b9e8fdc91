package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class BatchesTest {
    private static final List<Integer> TEN = List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);

    @Test
    void noSerialIsOneBatch() {
        assertEquals(List.of(TEN), Batches.split(TEN, List.of()));
    }

    @Test
    void fixedSizeRepeatsTheLastSize() {
        assertEquals(List.of(List.of(1), List.of(2, 3, 4), List.of(5, 6, 7), List.of(8, 9, 10)),
                Batches.split(TEN, List.of("1", "3")));
    }

    @Test
    void percentagesRoundUp() {
        assertEquals(List.of(List.of(1, 2, 3), List.of(4, 5, 6), List.of(7, 8, 9), List.of(10)),
                Batches.split(TEN, List.of("25%")));
    }
}
