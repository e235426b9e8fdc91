package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the operator asked for on the command line, as the executor needs it.
 *
 * @param forks how many hosts are worked on at once
 * @param limit an extra host pattern ({@code --limit}); empty for none
 */
public record RunOptions(boolean check, boolean diff, Set<String> tags, Set<String> skipTags, int forks,
                         Map<String, Object> extraVars, Optional<String> limit, Optional<String> startAtTask,
                         int verbosity) {
    public RunOptions {
        tags = Set.copyOf(tags);
        skipTags = Set.copyOf(skipTags);
        if (forks < 1) {
            throw new IllegalArgumentException("forks must be at least 1");
        }
        extraVars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extraVars));
        requireNonNull(limit, "limit cannot be null");
        requireNonNull(startAtTask, "startAtTask cannot be null");
    }
}
