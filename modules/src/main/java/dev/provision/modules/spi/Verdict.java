package dev.provision.modules.spi;

import java.util.Locale;

/**
 * The outcome of one check row: the one result contract of every check (console, {@code --json},
 * readiness page, drain file). Only {@link #FAIL} fails the host; {@link #UNKNOWN} is never a pass
 * and the CLI reports it with its own exit status.
 */
public enum Verdict {
    /** Measured, and as expected. */
    PASS,
    /** Measured, and wrong: the node is not ready; the row's detail says what to do next. */
    FAIL,
    /** Measured, and ready with a caveat an operator should look at; the detail says what to do. */
    WARN,
    /** Does not apply here (NCCL bus bandwidth on a one-GPU node, InfiniBand on a node without it). */
    SKIP,
    /**
     * Could not run or could not judge: a tool missing, permission denied, a probe that timed out or
     * printed nothing parseable. Not a pass: the detail says what kept the check from a verdict.
     */
    UNKNOWN;

    /** The lowercase word used in results and output ({@code pass}, {@code fail}, ...). */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@link #word()} back. */
    public static Verdict of(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }
}
