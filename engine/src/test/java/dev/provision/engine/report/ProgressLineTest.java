package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
    private static final String ERASE = "\r\u001b[K";
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicLong now = new AtomicLong();
    private final ProgressLine line = new ProgressLine(new PrintStream(bytes, true, StandardCharsets.UTF_8), 10, now::get);

    private String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void formatsTaskNameAndCounts() {
        assertEquals("[TASK install chrony] 120/1000 hosts done", ProgressLine.format("install chrony", 120, 1000));
    }

    @Test
    void longNamesAreShortenedToFitOneLine() {
        String s = ProgressLine.format("x".repeat(200), 5, 1000);
        assertEquals(79, s.length(), s);
        assertTrue(s.endsWith("...] 5/1000 hosts done"), s);
    }

    @Test
    void aTransfersRateStaysOnTheLineWhenTheNameIsShortened() {
        String s = ProgressLine.format("stage: round 1: 0/64 nodes hold the data, 64 fetching in a chain from the controller", 3, 64,
                "1.2 GB received, 410.3 MB/s, 2300 files/s");
        assertTrue(s.endsWith("...] 3/64 hosts done, 1.2 GB received, 410.3 MB/s, 2300 files/s"), s);
        assertTrue(s.startsWith("[TASK stage: "), s);
        assertEquals(79, s.length(), s);
    }

    @Test
    void aRateIsDrawnOnFewHostsToo() {
        line.progress("stage: round 1", 0, 2, "1.0 MB received, 0.5 MB/s, 3 files/s");
        assertEquals(ERASE + "[TASK stage: round 1] 0/2 hosts done, 1.0 MB received, 0.5 MB/s, 3 files/s", text());
    }

    @Test
    void nothingForSmallSteps() {
        line.progress("copy", 1, 9);
        assertEquals("", text());
    }

    @Test
    void redrawsInPlaceAtMostEveryTenthOfASecondAndOnTheLastHost() {
        line.progress("copy", 1, 10);
        now.addAndGet(ProgressLine.REDRAW_NANOS / 2);
        line.progress("copy", 2, 10);
        now.addAndGet(ProgressLine.REDRAW_NANOS);
        line.progress("copy", 3, 10);
        line.progress("copy", 10, 10);
        assertEquals(ERASE + "[TASK copy] 1/10 hosts done" + ERASE + "[TASK copy] 3/10 hosts done"
                + ERASE + "[TASK copy] 10/10 hosts done", text());
    }

    @Test
    void erasesItselfBeforeResultsAndOnlyOnce() {
        line.progress("copy", 10, 10);
        bytes.reset();
        line.hostResult(TaskResult.simple("n1", TaskStatus.OK, ""));
        line.hostResult(TaskResult.simple("n2", TaskStatus.OK, ""));
        assertEquals(ERASE, text());
    }
}
