package dev.provision.engine.fuzz;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What every outcome must satisfy, whatever the input: it ended, with an exit code that means a
 * user's mistake or a run, never 1 ("internal error"); no Java stack trace or exception class name in
 * what it printed; an invalid input is one {@code ERROR:} line; an error or a failed task about a file
 * names the file with its line and column, unless the problem is the file as a whole.
 */
final class Verdict {
    private static final Set<Integer> EXPECTED_EXIT_CODES = Set.of(0, 2, 4, 5, 6);
    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s*at [\\w$.]+\\(");
    private static final Pattern THROWABLE_NAME = Pattern.compile(
            "\\b(?:java|javax|jdk|sun|org|com|freemarker|picocli|dev)\\.[\\w$.]*(?:Exception|Error)\\b");
    private static final Pattern POSITIONED = Pattern.compile("^\\S+?:\\d+:\\d+: ");
    /** Problems with a file as a whole, where no line could be named. */
    private static final Pattern WHOLE_FILE = Pattern.compile(
            "^\\S+: (?:\\S+ )?(?:file not found|file is larger than|cannot read|no such playbook file|cannot list)");
    private static final Pattern FAILED_TASK = Pattern.compile("(?m)^failed: \\[[^\\]]*\\] => (.*)$");

    private Verdict() {
    }

    static List<String> problems(CliRun.Outcome outcome, Path dir) {
        List<String> problems = new ArrayList<>();
        if (outcome.timedOut()) {
            problems.add("did not return within its time bound (a hang)");
            return problems;
        }
        String all = outcome.all();
        if (!EXPECTED_EXIT_CODES.contains(outcome.exitCode())) {
            problems.add("exit code " + outcome.exitCode());
        }
        if (all.contains("internal error")) {
            problems.add("an internal error");
        }
        if (STACK_FRAME.matcher(all).find() || all.contains("Exception in thread")) {
            problems.add("a Java stack trace");
        }
        var thrown = THROWABLE_NAME.matcher(all);
        if (thrown.find()) {
            problems.add("a Java exception named in the output (" + thrown.group() + ")");
        }
        List<String> errLines = outcome.err().lines().filter(l -> !l.isBlank()).toList();
        // One ERROR line; or, where the checks before contact found several problems at once,
        // "ERROR: N problems:" and one indented line each, every one with its position.
        boolean several = !errLines.isEmpty() && errLines.get(0).matches("ERROR: \\d+ problems:")
                && errLines.size() == Integer.parseInt(errLines.get(0).replaceAll("\\D", "")) + 1
                && errLines.subList(1, errLines.size()).stream().allMatch(l -> l.startsWith("  "));
        if (outcome.exitCode() == 4 && !several && (errLines.size() != 1 || !errLines.get(0).startsWith("ERROR: "))) {
            problems.add("invalid input, but not exactly one ERROR line on stderr");
        }
        for (String line : errLines) {
            if (line.startsWith("ERROR: ") && !several) {
                checkPosition(line.substring("ERROR: ".length()), dir, problems);
            } else if (several && line.startsWith("  ")) {
                checkPosition(line.strip(), dir, problems);
            }
        }
        var failed = FAILED_TASK.matcher(outcome.out());
        while (failed.find()) {
            if (!POSITIONED.matcher(failed.group(1)).find()) {
                problems.add("a failed task without file:line:column: " + failed.group(1));
            }
        }
        return problems;
    }

    private static void checkPosition(String message, Path dir, List<String> problems) {
        boolean aboutOurFile = message.startsWith(dir.toString()) || message.startsWith("-e:");
        if (aboutOurFile && !POSITIONED.matcher(message).find() && !WHOLE_FILE.matcher(message).find()) {
            problems.add("an error about a file without line and column: " + message);
        }
    }
}
