package dev.provision.engine.exec;

import dev.provision.engine.playbook.Task;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.RunTimeValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a dry run cannot know: the output of a program it does not run. A dry run registers it as a
 * placeholder that names the task ({@code <output of 'get kernel' at site.yml:4:7, known when it
 * runs>}), so a later task that uses it shows the placeholder in its diff instead of an empty
 * string, is marked as depending on this run, and is never written into a saved plan (the run
 * would not write what the plan shows).
 */
public final class RunTimeOutput {
    private static final String OPENING = "<output of '";
    private static final Pattern PLACEHOLDER = Pattern.compile(OPENING + "[^'\\n]*' at [^\\n>]*, known when it runs>");

    private RunTimeOutput() {
    }

    static String placeholder(Task task) {
        return OPENING + task.displayName().replace("'", "") + "' at " + task.position() + ", known when it runs>";
    }

    /**
     * Whether a value (strings, lists and maps of them) holds a placeholder. A dry run asks this of
     * every task's parameters on every host ({@code ssh_known_hosts} of a thousand nodes: thousands
     * of strings each), so a string without the placeholder's opening is passed over before the
     * pattern is tried.
     */
    static boolean in(Object value) {
        // instanceof, not a pattern switch: its type dispatch is a call of its own under C1
        if (value instanceof String s) {
            return s.contains(OPENING) && PLACEHOLDER.matcher(s).find();
        }
        if (value instanceof List<?> l) {
            for (Object v : l) {
                if (in(v)) {
                    return true;
                }
            }
        } else if (value instanceof Map<?, ?> m) {
            for (Object v : m.values()) {
                if (in(v)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a plan's changes carry a placeholder in a summary, a diff or a command. */
    public static boolean in(List<Change> changes) {
        for (Change change : changes) {
            if (in(change.summary())) {
                return true;
            }
            for (Diff d : change.diffs()) {
                if (in(d.after())) {
                    return true;
                }
            }
            for (Command c : change.commands()) {
                boolean holds = switch (c) {
                    case Command.Exec e -> in(e.argv()) || in(new String(e.stdin(), StandardCharsets.UTF_8));
                    case Command.Shell s -> in(s.script());
                    case Command.PutFile p -> in(new String(p.content(), StandardCharsets.UTF_8));
                    default -> in(c.toString());
                };
                if (holds) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the plan runs a program whose output a later task may use ({@code register}). */
    static boolean runsAProgram(List<Change> changes) {
        return changes.stream().flatMap(c -> c.commands().stream())
                .anyMatch(c -> c instanceof Command.Exec || c instanceof Command.Shell);
    }

    /**
     * Puts {@code value} in place of each {@link RunTimeValue} of a result: what the plan's last
     * program printed once it ran, or in a dry run the placeholder.
     */
    static void resolve(Map<String, Object> output, String value) {
        output.replaceAll((key, v) -> v instanceof RunTimeValue ? value : v);
    }

    /** Leaves out the {@link RunTimeValue}s nothing resolved (the plan failed, or planned nothing). */
    static void leaveOutUnresolved(Map<String, Object> output) {
        output.values().removeIf(v -> v instanceof RunTimeValue);
    }
}
