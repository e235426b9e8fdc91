package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the operator asked for on the command line, as the executor needs it.
 *
 * @param forks how many hosts are worked on at once
 * @param limit an extra host pattern ({@code --limit}); empty for none
 * @param taskTimeout how long one task may take on one host unless its {@code timeout:} says otherwise
 */
public record RunOptions(boolean check, boolean diff, Set<String> tags, Set<String> skipTags, int forks,
                         Map<String, Object> extraVars, Optional<String> limit, Optional<String> startAtTask,
                         int verbosity, Duration taskTimeout) {
    public static final Duration DEFAULT_TASK_TIMEOUT = Duration.ofHours(1);

    public RunOptions(boolean check, boolean diff, Set<String> tags, Set<String> skipTags, int forks,
                      Map<String, Object> extraVars, Optional<String> limit, Optional<String> startAtTask, int verbosity) {
        this(check, diff, tags, skipTags, forks, extraVars, limit, startAtTask, verbosity, DEFAULT_TASK_TIMEOUT);
    }

    public RunOptions {
        tags = Set.copyOf(tags);
        skipTags = Set.copyOf(skipTags);
        if (forks < 1) {
            throw new IllegalArgumentException("forks must be at least 1");
        }
        extraVars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extraVars));
        requireNonNull(limit, "limit cannot be null");
        requireNonNull(startAtTask, "startAtTask cannot be null");
        if (taskTimeout.isNegative() || taskTimeout.isZero()) {
            throw new IllegalArgumentException("taskTimeout must be positive");
        }
    }
}
