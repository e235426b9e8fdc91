package dev.provision.engine.exec;

import dev.provision.modules.text.DecimalSize;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a round's launches received so far, summed over the cluster, and how fast: each launch's
 * progress probe prints its own running totals ({@code BYTES FILES}); the rate is the growth of their
 * sum between two readings. Pure; one thread at a time (the round's sampler).
 */
final class TransferRate {
    private final Map<String, long[]> latest = new LinkedHashMap<>();
    private long lastBytes;
    private long lastFiles;
    private long lastNanos;

    TransferRate(long startNanos) {
        this.lastNanos = startNanos;
    }

    /** A probe's answer, {@code BYTES FILES}; empty for anything else. */
    static Optional<long[]> parse(String stdout) {
        String[] f = stdout.strip().split("\\s+");
        if (f.length != 2 || !f[0].matches("[0-9]{1,18}") || !f[1].matches("[0-9]{1,18}")) {
            return Optional.empty();
        }
        return Optional.of(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
    }

    /** The running totals of one launch (a later reading replaces an earlier one; totals never go back). */
    void record(String launch, long bytes, long files) {
        latest.merge(launch, new long[] {bytes, files}, (a, b) -> new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])});
    }

    /** {@code 48.2 MB received, 4.1 MB/s, 230 files/s} since the last line (or the start). */
    String line(long nowNanos) {
        long bytes = latest.values().stream().mapToLong(v -> v[0]).sum();
        long files = latest.values().stream().mapToLong(v -> v[1]).sum();
        double seconds = Math.max(1e-3, (nowNanos - lastNanos) / 1e9);
        String line = DecimalSize.of(bytes) + " received, " + DecimalSize.of((long) ((bytes - lastBytes) / seconds)) + "/s, "
                + Math.round((files - lastFiles) / seconds) + " files/s";
        lastBytes = bytes;
        lastFiles = files;
        lastNanos = nowNanos;
        return line;
    }

}
