package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * The live progress line of large runs, {@code [TASK name] 120/1000 hosts done} (a transfer adds what
 * it moves: {@code , 48.2 MB received, 4.1 MB/s, 230 files/s}), redrawn in place on
 * a terminal ({@code \r}, erase line) and erased before the task's results are printed. Only for
 * steps that run on at least {@code minHosts} hosts, and redrawn at most every
 * {@value #REDRAW_NANOS} ns (and on the last host) so that a thousand hosts cost a few writes. The
 * caller decides whether the stream is a terminal; this class only draws.
 */
public final class ProgressLine implements RunListener {
    static final long REDRAW_NANOS = 100_000_000L;
    private static final int WIDTH = 79;
    private static final String ERASE = "\r\u001b[K";

    private final PrintStream terminal;
    private final int minHosts;
    private final LongSupplier clock;
    private boolean drawn;
    private long lastDraw;

    /** A progress line on {@code terminal} for steps on {@code minHosts} hosts or more. */
    public ProgressLine(PrintStream terminal, int minHosts) {
        this(terminal, minHosts, System::nanoTime);
    }

    ProgressLine(PrintStream terminal, int minHosts, LongSupplier clock) {
        this.terminal = requireNonNull(terminal, "terminal cannot be null");
        this.minHosts = minHosts;
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

    /** {@code [TASK name] done/total hosts done}, the name shortened with "..." to fit 79 columns. */
    static String format(String step, int done, int total) {
        return format(step, done, total, "");
    }

    /**
     * As {@link #format(String, int, int)}, followed by {@code rate} ({@code , 4.1 MB/s, 230 files/s}):
     * the name is shortened first, so that the figures stay on the line.
     */
    static String format(String step, int done, int total, String rate) {
        String counts = "] " + done + "/" + total + " hosts done" + (rate.isEmpty() ? "" : ", " + rate);
        int room = WIDTH - "[TASK ".length() - counts.length();
        String name = step.length() <= room ? step : step.substring(0, Math.max(0, room - 3)) + "...";
        return "[TASK " + name + counts;
    }

    @Override
    public void progress(String step, int done, int total) {
        progress(step, done, total, "");
    }

    @Override
    public void progress(String step, int done, int total, String rate) {
        // a step that measures a rate is a transfer: worth a line on a few hosts too
        if (total < minHosts && rate.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        if (drawn && done < total && now - lastDraw < REDRAW_NANOS) {
            return;
        }
        terminal.print(ERASE + format(step, done, total, rate));
        terminal.flush();
        drawn = true;
        lastDraw = now;
    }

    @Override
    public void hostResult(TaskResult result) {
        erase();
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        erase();
    }

    @Override
    public void recap(java.util.Map<String, HostStats> stats, String retryHint) {
        erase();
    }

    private void erase() {
        if (drawn) {
            terminal.print(ERASE);
            terminal.flush();
            drawn = false;
        }
    }
}
