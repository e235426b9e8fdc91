package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Optional;

/**
 * One GPU as nvidia-smi reports it. Values the driver cannot give ({@code [N/A]},
 * {@code [Not Supported]}, a column not queried) are {@link #UNAVAILABLE}.
 *
 * @param eccMode {@code Enabled} or {@code Disabled}
 * @param volatileUncorrected uncorrectable ECC errors since the driver loaded
 * @param aggregateUncorrected uncorrectable ECC errors over the board's life
 * @param retiredPagesPending {@code Yes}/{@code No}: a page retirement waits for a reboot
 * @param remappedRowsPending {@code Yes}/{@code No}: a row remapping waits for a GPU reset
 */
record GpuInfo(String index, String name, String uuid, String driverVersion, String busId, String eccMode,
               String volatileUncorrected, String aggregateUncorrected, String retiredPagesPending,
               String remappedRowsPending) {
    static final String UNAVAILABLE = "N/A";

    GpuInfo {
        requireNonNull(index, "index cannot be null");
        requireNonNull(name, "name cannot be null");
        requireNonNull(uuid, "uuid cannot be null");
        requireNonNull(driverVersion, "driverVersion cannot be null");
        requireNonNull(busId, "busId cannot be null");
        requireNonNull(eccMode, "eccMode cannot be null");
        requireNonNull(volatileUncorrected, "volatileUncorrected cannot be null");
        requireNonNull(aggregateUncorrected, "aggregateUncorrected cannot be null");
        requireNonNull(retiredPagesPending, "retiredPagesPending cannot be null");
        requireNonNull(remappedRowsPending, "remappedRowsPending cannot be null");
    }

    /** Normalises what nvidia-smi prints for "no value" ({@code [N/A]}, {@code [Not Supported]}, blank). */
    static String value(String raw) {
        String v = raw.strip();
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1).strip();
        }
        String lower = v.toLowerCase(Locale.ROOT);
        if (v.isEmpty() || lower.equals("n/a") || lower.equals("not supported") || lower.equals("unknown error")
                || lower.equals("requested functionality has been deprecated")) {
            return UNAVAILABLE;
        }
        return v;
    }

    static boolean available(String value) {
        return !UNAVAILABLE.equals(value);
    }

    /** A counter as a number; empty when unavailable or not a number. */
    static Optional<Long> count(String value) {
        return value.matches("\\d+") ? Optional.of(Long.parseLong(value)) : Optional.empty();
    }

    /** A {@code Yes}/{@code No} flag; empty when unavailable. */
    static Optional<Boolean> flag(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "yes", "true", "enabled" -> Optional.of(true);
            case "no", "false", "disabled" -> Optional.of(false);
            default -> Optional.empty();
        };
    }
}
