package dev.provision.engine.report;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.text.UnifiedDiff;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * Ansible-shaped output: {@code PLAY [..]}, {@code TASK [..]}, one line per host, the changes made
 * (or that would be made), unified diffs under {@code --diff}, and the {@code PLAY RECAP}. Colour only
 * when asked (a terminal without {@code NO_COLOR}).
 */
public final class HumanOutput implements RunListener {
    private static final int WIDTH = 80;
    private final PrintStream out;
    private final boolean color;
    private final boolean diff;
    private final int verbosity;

    public HumanOutput(PrintStream out, boolean color, boolean diff, int verbosity) {
        this.out = out;
        this.color = color;
        this.diff = diff;
        this.verbosity = verbosity;
    }

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        out.println();
        out.println(banner("PLAY [" + name + "]" + (check ? " (check mode: nothing will be changed)" : "")));
    }

    @Override
    public void noHostsMatched(String pattern) {
        out.println(paint("[WARNING]: no hosts matched '" + pattern + "', skipping this play", Colour.PURPLE));
    }

    @Override
    public void warning(String message) {
        out.println(paint("[WARNING]: " + message, Colour.PURPLE));
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        out.println();
        out.println(banner((handler ? "RUNNING HANDLER [" : "TASK [") + name + "]"));
        if (verbosity >= 2) {
            out.println("task path: " + position);
        }
    }

    @Override
    public void hostResult(TaskResult r) {
        if (!r.items().isEmpty()) {
            for (TaskResult item : r.items()) {
                line(item, " => (item=" + (r.hidden() ? "hidden by no_log" : item.itemLabel()) + ")");
            }
            if (r.status() == TaskStatus.FAILED) {
                out.println(paint("failed: [" + r.host() + "] => one or more items failed", Colour.RED));
            }
            return;
        }
        line(r, "");
    }

    private void line(TaskResult r, String suffix) {
        Colour c = switch (r.status()) {
            case OK -> Colour.GREEN;
            case CHANGED -> Colour.YELLOW;
            case FAILED, UNREACHABLE -> Colour.RED;
            case IGNORED -> Colour.CYAN;
            case SKIPPED -> Colour.CYAN;
            case RESCUED -> Colour.PURPLE;
        };
        StringBuilder sb = new StringBuilder(r.status().word()).append(": [").append(r.host()).append("]").append(suffix);
        String message = r.hidden() ? "the output has been hidden due to no_log: true" : r.message();
        boolean showMessage = switch (r.status()) {
            case FAILED, UNREACHABLE, IGNORED -> true;
            // debug's msg or var; a command's rc/stdout and a check's table only at -v
            case OK -> isDebugOutput(r) || verbosity >= 1;
            case SKIPPED -> verbosity >= 1;
            default -> false;
        };
        if (showMessage && !message.isEmpty()) {
            sb.append(" => ").append(message);
        }
        if (verbosity >= 2 && !r.hidden() && !r.output().isEmpty() && r.checks().isEmpty()) {
            sb.append(" => ").append(r.output());
        }
        if (r.conditional()) {
            sb.append(" (forecast: depends on what earlier tasks change or print in this run)");
        }
        out.println(paint(sb.toString(), c));
        printChecks(r);
        for (Change change : r.changes()) {
            if (r.status() == TaskStatus.CHANGED || r.status() == TaskStatus.FAILED || verbosity >= 1) {
                // A summary quotes what the task does ("run: echo PASSWORD"), so no_log hides it too.
                String summary = r.hidden() ? "(change hidden: no_log)" : change.summary();
                out.println(paint("    " + (r.forecast() ? "would " : "") + summary, c));
            }
            if (diff && !change.diffs().isEmpty()) {
                if (r.hidden() || change.sensitive()) {
                    out.println("    (diff hidden: " + (r.hidden() ? "no_log" : "sensitive content") + ")");
                    continue;
                }
                for (Diff d : change.diffs()) {
                    printDiff(UnifiedDiff.render(d, 3));
                }
            }
        }
    }

    private static boolean isDebugOutput(TaskResult r) {
        return !r.output().isEmpty() && !r.output().containsKey("rc") && r.checks().isEmpty();
    }

    /** Readiness checks: one table per host (check, measured, expected, verdict). */
    private void printChecks(TaskResult r) {
        List<CheckResult> rows = r.hidden() ? List.of() : r.checks();
        if (rows.isEmpty()) {
            return;
        }
        List<String[]> table = new java.util.ArrayList<>();
        table.add(new String[] {"check", "measured", "expected", "verdict"});
        for (CheckResult row : rows) {
            String detail = row.detail().isEmpty() ? "" : "  " + row.detail();
            table.add(new String[] {row.check(), row.measured(), row.expected(), row.verdict().word() + detail});
        }
        int[] width = new int[3];
        for (String[] t : table) {
            for (int i = 0; i < 3; i++) {
                width[i] = Math.min(40, Math.max(width[i], t[i].length()));
            }
        }
        for (int i = 0; i < table.size(); i++) {
            String[] t = table.get(i);
            String line = String.format("    %-" + width[0] + "s  %-" + width[1] + "s  %-" + width[2] + "s  %s", t[0], t[1], t[2], t[3]);
            out.println(paint(line, i == 0 ? Colour.NONE : colour(rows.get(i - 1).verdict())));
        }
    }

    private static Colour colour(dev.provision.modules.spi.Verdict verdict) {
        return switch (verdict) {
            case FAIL -> Colour.RED;
            case WARN -> Colour.PURPLE;
            case UNKNOWN -> Colour.CYAN;
            case PASS -> Colour.GREEN;
            case SKIP -> Colour.NONE;
        };
    }

    private void printDiff(String text) {
        for (String l : text.split("\n", -1)) {
            if (l.isEmpty()) {
                continue;
            }
            Colour c = l.startsWith("+") ? Colour.GREEN : l.startsWith("-") ? Colour.RED : l.startsWith("@@") ? Colour.CYAN : Colour.NONE;
            out.println(paint(l, c));
        }
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        out.println();
        out.println(banner("PLAY RECAP"));
        int width = stats.keySet().stream().mapToInt(String::length).max().orElse(10);
        stats.forEach((host, s) -> {
            Colour c = s.unreachable() > 0 || s.failed() > 0 ? Colour.RED : s.changed() > 0 ? Colour.YELLOW : Colour.GREEN;
            out.println(paint(String.format("%-" + width + "s", host), c) + " : "
                    + String.format("ok=%-4d changed=%-4d unreachable=%-4d failed=%-4d skipped=%-4d rescued=%-4d ignored=%d",
                    s.ok(), s.changed(), s.unreachable(), s.failed(), s.skipped(), s.rescued(), s.ignored()));
        });
        if (!retryHint.isEmpty()) {
            out.println();
            out.println("To retry the failed and unreachable hosts only:");
            out.println("    " + retryHint);
        }
        out.flush();
    }

    private String banner(String title) {
        int stars = Math.max(3, WIDTH - title.length() - 1);
        return title + " " + "*".repeat(stars);
    }

    private String paint(String text, Colour c) {
        if (!color || c == Colour.NONE) {
            return text;
        }
        return c.code + text + "\u001b[0m";
    }

    private enum Colour {
        NONE(""), GREEN("\u001b[0;32m"), YELLOW("\u001b[0;33m"), RED("\u001b[0;31m"), CYAN("\u001b[0;36m"), PURPLE("\u001b[0;35m");

        final String code;

        Colour(String code) {
            this.code = code;
        }
    }
}
