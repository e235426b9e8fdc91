package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What one template render or one expression may cost the controller. A playbook author's mistake (an
 * endless {@code #list}, a macro that calls itself, {@code ?left_pad(2000000000)}) then fails its task
 * with a message instead of stopping or killing the run.
 *
 * @param cpuTime CPU time of the thread that evaluates; not wall-clock time, which a busy controller
 *     stretches and which a template spends legitimately waiting ({@code hostvars} of a host that is
 *     still behind)
 * @param allocatedBytes bytes allocated while evaluating (not the live set: a loop that doubles a
 *     string allocates twice what it keeps)
 * @param outputChars text one render or one interpolated string may produce
 * @param valueItems items (list items, map entries, nested ones included) of one expression's value
 */
record Limits(Duration cpuTime, long allocatedBytes, int outputChars, int valueItems) {
    /** Far above what rendering a config file for ten thousand hosts needs. */
    static final Limits DEFAULT = new Limits(Duration.ofSeconds(5), 1L << 30, 16 << 20, 1_000_000);

    Limits {
        requireNonNull(cpuTime, "cpuTime cannot be null");
        if (allocatedBytes < 1 || outputChars < 1 || valueItems < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
    }
}
