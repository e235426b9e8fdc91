package dev.provision.modules.spi;

import java.util.Locale;

/** The outcome of one check row. Only {@link #FAIL} fails the host. */
public enum Verdict {
    PASS, FAIL, WARN, SKIP;

    /** The lowercase word used in results and output ({@code pass}, {@code fail}, ...). */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@link #word()} back. */
    public static Verdict of(String word) {
        return valueOf(word.toUpperCase(Locale.ROOT));
    }
}
