package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ensures one line is (or is not) in a text, with Ansible's {@code lineinfile} semantics:
 *
 * <ul>
 *   <li>present with a regexp: the last line the regexp finds (the first with {@code firstMatch})
 *       is replaced by the line; with {@code backrefs} the line is a Python replacement template
 *       expanded against that match ({@code \1}, {@code \g<name>}).
 *   <li>when the regexp finds nothing (or none is given): nothing changes if the exact line is
 *       already there; with {@code backrefs} nothing is ever inserted; otherwise the line is
 *       inserted at the {@link InsertPosition}.
 *   <li>absent: every line the regexp finds, or every line equal to the line, is removed.
 * </ul>
 *
 * Lines compare without a trailing carriage return. Every edit is idempotent when the line matches
 * its own regexp (Ansible's advice); an edit that changes nothing returns the input unchanged.
 * Pure and thread-safe.
 */
public final class LineEdit {

    private LineEdit() {
    }

    /**
     * The edited text and what happened, as a short phrase for the user ({@code line added},
     * {@code line already present}).
     */
    public record Result(String text, String message, boolean changed) {
        public Result {
            requireNonNull(text, "text cannot be null");
            requireNonNull(message, "message cannot be null");
        }
    }

    /** Ensures the exact line is present, inserting it at {@code where} when missing. */
    public static Result present(String text, String line, InsertPosition where, boolean firstMatch) {
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        return insertUnlessPresent(text, lines, line, where, firstMatch);
    }

    /**
     * Replaces the line the regexp finds, or ensures the line is present when it finds none.
     *
     * @throws IllegalArgumentException when {@code backrefs} names a group the regexp lacks
     */
    public static Result present(String text, Pattern regexp, String line, InsertPosition where,
                                 boolean backrefs, boolean firstMatch) {
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        int found = -1;
        Matcher match = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = regexp.matcher(lines.get(i));
            if (m.find()) {
                found = i;
                match = m;
                if (firstMatch) {
                    break;
                }
            }
        }
        if (match != null) {
            String wanted = backrefs ? PythonRegex.expand(match, line) : line;
            if (lines.get(found).equals(wanted)) {
                return new Result(text, "line already present", false);
            }
            lines.set(found, wanted);
            return new Result(TextLines.render(text, lines), "line replaced", true);
        }
        if (backrefs) {
            // Without a match there is nothing to expand the back-references from; Ansible inserts nothing.
            return new Result(text, "regexp matched no line (backrefs: nothing to insert)", false);
        }
        return insertUnlessPresent(text, lines, line, where, firstMatch);
    }

    /** Removes every line the regexp finds. */
    public static Result absent(String text, Pattern regexp) {
        return removeWhere(text, l -> regexp.matcher(l).find());
    }

    /** Removes every line equal to {@code line}. */
    public static Result absent(String text, String line) {
        return removeWhere(text, l -> TextLines.withoutCarriageReturn(l).equals(line));
    }

    private static Result insertUnlessPresent(String text, List<String> lines, String line, InsertPosition where,
                                              boolean firstMatch) {
        if (lines.stream().anyMatch(l -> TextLines.withoutCarriageReturn(l).equals(line))) {
            return new Result(text, "line already present", false);
        }
        lines.add(where.indexIn(lines, firstMatch), line);
        return new Result(TextLines.render(text, lines), "line added", true);
    }

    private static Result removeWhere(String text, java.util.function.Predicate<String> doomed) {
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        int before = lines.size();
        lines.removeIf(doomed);
        int removed = before - lines.size();
        if (removed == 0) {
            return new Result(text, "no matching line", false);
        }
        // Removing lines keeps the rest as written, a missing final newline included.
        StringBuilder sb = new StringBuilder(String.join("\n", lines));
        if (!lines.isEmpty() && TextLines.of(text).endsWithNewline) {
            sb.append('\n');
        }
        return new Result(sb.toString(), removed == 1 ? "1 line removed" : removed + " lines removed", true);
    }
}
