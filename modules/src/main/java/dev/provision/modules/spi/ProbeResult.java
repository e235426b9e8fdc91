package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

/** The outcome of a read-only probe. */
public record ProbeResult(int exitCode, String stdout, String stderr) {
    public ProbeResult {
        requireNonNull(stdout, "stdout cannot be null");
        requireNonNull(stderr, "stderr cannot be null");
    }

    public boolean ok() {
        return exitCode == 0;
    }
}
