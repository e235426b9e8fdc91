package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One change: a human summary ({@code "set mode of /etc/x to 0600"}), the diffs that show it, and
 * the commands that make it so, run by the engine in order.
 *
 * @param sensitive when true the engine never shows the diffs (they may hold secrets)
 */
public record Change(String summary, List<Diff> diffs, List<Command> commands, boolean sensitive) {
    public Change {
        requireNonNull(summary, "summary cannot be null");
        diffs = List.copyOf(diffs);
        commands = List.copyOf(commands);
        if (commands.isEmpty()) {
            throw new IllegalArgumentException("a change needs at least one command: " + summary);
        }
    }

    public Change(String summary, List<Diff> diffs, List<Command> commands) {
        this(summary, diffs, commands, false);
    }

    public static Change of(String summary, Command... commands) {
        return new Change(summary, List.of(), List.of(commands), false);
    }

    public static Change withDiff(String summary, Diff diff, Command... commands) {
        return new Change(summary, List.of(diff), List.of(commands), false);
    }

    public Change asSensitive() {
        return new Change(summary, diffs, commands, true);
    }
}
