package dev.provision.modules.checks;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sizes as people write them in inventories ({@code 1.5T}, {@code 500GB}, {@code 1GiB}): powers of 1024 throughout. */
final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGTP]?)(?:i?B)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {
    }

    /** @throws IllegalArgumentException when {@code text} is not a size */
    static long parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 1.5T, 500G, 1GiB)");
        }
        int power = "KMGTP".indexOf(m.group(2).toUpperCase(Locale.ROOT)) + 1;
        return (long) (Double.parseDouble(m.group(1)) * Math.pow(1024, power));
    }

    /** {@code 1.5 TiB}, {@code 640 MiB}: one decimal, the largest unit below the value. */
    static String shown(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytes + " B" : Probes.figure(Math.round(v * 10) / 10.0) + " " + units[u];
    }
}
