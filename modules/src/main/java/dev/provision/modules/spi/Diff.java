package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

/**
 * A before/after view of one thing (a file, a live value). Data only; the output layer draws it.
 *
 * @param label what is compared, e.g. a path or {@code sysctl net.core.rmem_max (live)}
 * @param before the old text; the empty string when the thing did not exist
 * @param after the new text; the empty string when the thing is removed
 */
public record Diff(String label, String before, String after) {
    public Diff {
        requireNonNull(label, "label cannot be null");
        requireNonNull(before, "before cannot be null");
        requireNonNull(after, "after cannot be null");
    }
}
