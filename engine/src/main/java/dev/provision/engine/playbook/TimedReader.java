package dev.provision.engine.playbook;

import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;

/**
 * The text of a document, for snakeyaml, within a budget of CPU time. snakeyaml copies its look-ahead
 * window each time it reads, so one token of a few million characters (a word without blanks, a line of a
 * block scalar) costs it minutes; it reads a chunk at a time, and between chunks this reader looks at
 * the clock. Not thread-safe: one parse, on one thread.
 */
final class TimedReader extends Reader {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final String text;
    private final long budgetNanos;
    private final long startNanos;
    private int next;

    /** Thrown by a read past the budget; unchecked, so that it passes through snakeyaml untouched. */
    static final class OutOfTime extends RuntimeException {
        OutOfTime() {
            super("reading took too long", null, false, false);
        }
    }

    TimedReader(String text, Duration budget) {
        this.text = text;
        this.budgetNanos = budget.toNanos();
        this.startNanos = now();
    }

    @Override
    public int read(char[] into, int offset, int length) {
        if (now() - startNanos > budgetNanos) {
            throw new OutOfTime();
        }
        if (next >= text.length()) {
            return -1;
        }
        int count = Math.min(length, text.length() - next);
        text.getChars(next, next + count, into, offset);
        next += count;
        return count;
    }

    /** CPU time where the JVM measures it (a busy machine must not shorten the budget), else the clock. */
    private static long now() {
        long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
        return cpu >= 0 ? cpu : System.nanoTime();
    }

    @Override
    public void close() {
    }
}
