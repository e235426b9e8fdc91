package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * Parses {@code df -Pk PATH}: POSIX output format (df(1p) {@code -P}), a header and one line per
 * filesystem, {@code Filesystem 1024-blocks Used Available Capacity Mounted on}, sizes in KiB
 * ({@code -k}); the mount point is the rest of the line and may hold spaces.
 */
record DfOutput(String filesystem, long totalBytes, long usedBytes, long availableBytes, int capacityPercent, String mountedOn) {
    DfOutput {
        requireNonNull(filesystem, "filesystem cannot be null");
        requireNonNull(mountedOn, "mountedOn cannot be null");
    }

    static List<String> command(String path) {
        return List.of("df", "-Pk", "--", path);
    }

    static Optional<DfOutput> parse(String output) {
        List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        if (lines.size() < 2 || !lines.get(0).startsWith("Filesystem")) {
            return Optional.empty();
        }
        String[] f = lines.get(lines.size() - 1).split("\\s+", 6);
        if (f.length < 6 || !f[1].matches("\\d+") || !f[2].matches("\\d+") || !f[3].matches("\\d+") || !f[4].matches("\\d+%")) {
            return Optional.empty();
        }
        return Optional.of(new DfOutput(f[0], Long.parseLong(f[1]) * 1024, Long.parseLong(f[2]) * 1024, Long.parseLong(f[3]) * 1024,
                Integer.parseInt(f[4].substring(0, f[4].length() - 1)), f[5]));
    }
}
