package dev.provision.modules.checks;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The transfer line dd prints on stderr when it ends (also when interrupted by SIGINT, which is how
 * the write test's time limit stops it): GNU coreutils
 * {@code 1073741824 bytes (1.1 GB, 1.0 GiB) copied, 1.23 s, 870 MB/s}, busybox
 * {@code 1073741824 bytes (1.0GB) copied, 1.23 seconds, 830.0MB/s}. The rate is recomputed from
 * bytes and seconds (dd's own unit changes with the figure); run under {@code LC_ALL=C} so the
 * decimal mark is a point.
 */
record DdOutput(long bytes, double seconds) {
    private static final Pattern COPIED = Pattern.compile("(\\d+) bytes .*copied, ([0-9.]+) s");

    static Optional<DdOutput> parse(String stderr) {
        DdOutput last = null;
        for (String line : stderr.lines().toList()) {
            Matcher m = COPIED.matcher(line);
            if (m.find()) {
                last = new DdOutput(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)));
            }
        }
        return Optional.ofNullable(last);
    }

    /** Megabytes (10^6 bytes, as dd and disk vendors count) per second; 0 when no time passed. */
    double megabytesPerSecond() {
        return seconds <= 0 ? 0 : bytes / seconds / 1e6;
    }
}
