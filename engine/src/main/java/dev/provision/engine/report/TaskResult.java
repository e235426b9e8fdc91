package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Change;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one task on one host, as the listeners see it.
 *
 * @param changes what was applied, or in check mode what would be (a forecast)
 * @param message the failure reason, the no-op reason, or the module's {@code msg}
 * @param items per loop item results; empty for a task without a loop
 * @param itemLabel the loop item's label, empty when this is not an item result
 * @param forecast true in check mode: the changes were planned, not applied
 * @param conditional true when the forecast depends on an earlier change of this run (a handler)
 * @param hidden {@code no_log}: diffs, messages and values must not be shown or written
 * @param output extra values the module returned ({@code debug}'s msg, a command's rc/stdout)
 */
public record TaskResult(String host, TaskStatus status, List<Change> changes, String message,
                         List<TaskResult> items, String itemLabel, boolean forecast, boolean conditional,
                         boolean hidden, Map<String, Object> output, Duration duration) {
    public TaskResult {
        requireNonNull(host, "host cannot be null");
        requireNonNull(status, "status cannot be null");
        changes = List.copyOf(changes);
        requireNonNull(message, "message cannot be null");
        items = List.copyOf(items);
        requireNonNull(itemLabel, "itemLabel cannot be null");
        output = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(output));
        requireNonNull(duration, "duration cannot be null");
    }

    public static TaskResult simple(String host, TaskStatus status, String message) {
        return new TaskResult(host, status, List.of(), message, List.of(), "", false, false, false, Map.of(), Duration.ZERO);
    }
}
