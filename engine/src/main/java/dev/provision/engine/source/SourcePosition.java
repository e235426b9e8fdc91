package dev.provision.engine.source;

import static java.util.Objects.requireNonNull;

/**
 * A place in a user's file, 1-based. {@link #UNKNOWN} for values that did not come from a file
 * (extra vars given on the command line, facts).
 */
public record SourcePosition(String file, int line, int column) {
    public static final SourcePosition UNKNOWN = new SourcePosition("", 0, 0);

    public SourcePosition {
        requireNonNull(file, "file cannot be null");
    }

    /** {@code file:line:column}, the prefix of every error message about this place. */
    @Override
    public String toString() {
        if (file.isEmpty()) {
            return "<command line>";
        }
        return line > 0 ? file + ":" + line + ":" + column : file;
    }
}
