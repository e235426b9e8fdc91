package dev.provision.modules.text;

import java.util.Locale;

/** A byte count as a person reads it in decimal units ({@code 12.3 MB}): sizes of data sets and transfer rates. */
public final class DecimalSize {
    private static final String[] UNITS = {"B", "kB", "MB", "GB", "TB", "PB"};

    private DecimalSize() {
    }

    /** {@code 512 B}, {@code 12.3 MB}: one decimal, the largest unit below the value. */
    public static String of(long bytes) {
        double v = bytes;
        int u = 0;
        while (v >= 1000 && u < UNITS.length - 1) {
            v /= 1000;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
    }
}
