package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.CheckResult;
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
 * @param duration how long the task took on this host
 * @param roundTrips the exchanges with the host it took (commands run, files written or read)
 * @param checks a check task's table (its own rows, then those of the fleet step)
 */
public record TaskResult(String host, TaskStatus status, List<Change> changes, String message,
                         List<TaskResult> items, String itemLabel, boolean forecast, boolean conditional,
                         boolean hidden, Map<String, Object> output, Duration duration, int roundTrips,
                         List<CheckResult> checks) {
    /** The key under which {@link #reported} shows the check table, as {@link CheckResult#toMap} rows. */
    public static final String CHECKS_KEY = "checks";

    public TaskResult {
        requireNonNull(host, "host cannot be null");
        requireNonNull(status, "status cannot be null");
        changes = List.copyOf(changes);
        requireNonNull(message, "message cannot be null");
        items = List.copyOf(items);
        requireNonNull(itemLabel, "itemLabel cannot be null");
        output = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(output));
        requireNonNull(duration, "duration cannot be null");
        checks = List.copyOf(checks);
    }

    public TaskResult(String host, TaskStatus status, List<Change> changes, String message, List<TaskResult> items,
                      String itemLabel, boolean forecast, boolean conditional, boolean hidden, Map<String, Object> output,
                      Duration duration, int roundTrips) {
        this(host, status, changes, message, items, itemLabel, forecast, conditional, hidden, output, duration, roundTrips,
                List.of());
    }

    /**
     * The output as {@code register} and the JSON report show it: the module's values, then a check
     * task's table ({@value #CHECKS_KEY}) and whether a row of it failed ({@code failed}).
     */
    public Map<String, Object> reported() {
        if (checks.isEmpty()) {
            return output;
        }
        Map<String, Object> m = new java.util.LinkedHashMap<>(output);
        m.put(CHECKS_KEY, CheckResult.toMaps(checks));
        m.put("failed", CheckResult.anyFailed(checks));
        return java.util.Collections.unmodifiableMap(m);
    }

    public static TaskResult simple(String host, TaskStatus status, String message) {
        return builder(host, status).message(message).build();
    }

    /** A result of {@code host} with {@code status}; everything else empty or false until set. */
    public static Builder builder(String host, TaskStatus status) {
        return new Builder(host, status);
    }

    /** A builder holding this result's values, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder(host, status);
        b.changes = changes;
        b.message = message;
        b.items = items;
        b.itemLabel = itemLabel;
        b.forecast = forecast;
        b.conditional = conditional;
        b.hidden = hidden;
        b.output = output;
        b.duration = duration;
        b.roundTrips = roundTrips;
        b.checks = checks;
        return b;
    }

    public TaskResult withStatus(TaskStatus newStatus) {
        return toBuilder().status(newStatus).build();
    }

    public TaskResult withMessage(String newMessage) {
        return toBuilder().message(newMessage).build();
    }

    public TaskResult withItemLabel(String label) {
        return toBuilder().itemLabel(label).build();
    }

    public TaskResult withDuration(Duration took) {
        return toBuilder().duration(took).build();
    }

    public TaskResult withRoundTrips(int count) {
        return toBuilder().roundTrips(count).build();
    }

    /** Builds a {@link TaskResult} by name, so that no two adjacent booleans can be swapped unseen. */
    public static final class Builder {
        private final String host;
        private TaskStatus status;
        private List<Change> changes = List.of();
        private String message = "";
        private List<TaskResult> items = List.of();
        private String itemLabel = "";
        private boolean forecast;
        private boolean conditional;
        private boolean hidden;
        private Map<String, Object> output = Map.of();
        private Duration duration = Duration.ZERO;
        private int roundTrips;
        private List<CheckResult> checks = List.of();

        private Builder(String host, TaskStatus status) {
            this.host = host;
            this.status = status;
        }

        public Builder status(TaskStatus value) {
            this.status = value;
            return this;
        }

        public Builder changes(List<Change> value) {
            this.changes = value;
            return this;
        }

        public Builder message(String value) {
            this.message = value;
            return this;
        }

        public Builder items(List<TaskResult> value) {
            this.items = value;
            return this;
        }

        public Builder itemLabel(String value) {
            this.itemLabel = value;
            return this;
        }

        /** Check mode: the changes were planned, not applied. */
        public Builder forecast(boolean value) {
            this.forecast = value;
            return this;
        }

        /** The forecast depends on an earlier change of this run (a handler). */
        public Builder conditional(boolean value) {
            this.conditional = value;
            return this;
        }

        /** {@code no_log}. */
        public Builder hidden(boolean value) {
            this.hidden = value;
            return this;
        }

        public Builder output(Map<String, Object> value) {
            this.output = value;
            return this;
        }

        public Builder duration(Duration value) {
            this.duration = value;
            return this;
        }

        public Builder roundTrips(int value) {
            this.roundTrips = value;
            return this;
        }

        /** A check task's table. */
        public Builder checks(List<CheckResult> value) {
            this.checks = value;
            return this;
        }

        public TaskResult build() {
            return new TaskResult(host, status, changes, message, items, itemLabel, forecast, conditional, hidden, output,
                    duration, roundTrips, checks);
        }
    }
}
