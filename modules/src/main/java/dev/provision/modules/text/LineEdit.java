package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Ensures one line is (or is not) in a text, with the byte-for-byte semantics of Ansible's
 * {@code lineinfile} (2.14), on lines that keep their terminators:
 *
 * <ul>
 *   <li>present with a regexp (or a search string, found anywhere in a line): the last line it
 *       finds (the first with {@code firstMatch}) is replaced by the line plus {@code \n}; with
 *       {@code backrefs} the line is a Python replacement template expanded against that match
 *       ({@code \1}, {@code \g<name>}).
 *   <li>when it finds nothing (or none is given): a line equal to the line (its {@code \r} and
 *       {@code \n} aside) is rewritten as the line plus {@code \n} (so a CRLF line becomes LF, a
 *       last line gains its newline); with {@code backrefs} nothing is ever inserted; otherwise the
 *       line is inserted at the {@link InsertPosition}, whose pattern is searched line by line (the
 *       last match, the first with {@code firstMatch}, which also stops the search for an equal line).
 *   <li>absent: every line the regexp or search string finds, or every line equal to the line, is
 *       removed; the others keep their bytes.
 * </ul>
 *
 * One deviation: inserting after the last line of a file without a final newline first ends that
 * line, where Ansible glues the two lines together. An edit that changes nothing returns the input
 * unchanged. Pure and thread-safe.
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

    /** What selects the line to replace or the lines to remove. */
    public sealed interface Selector {
        /** Lines the Python-style pattern finds ({@code regexp}). */
        record Regexp(Pattern pattern) implements Selector {
            public Regexp {
                requireNonNull(pattern, "pattern cannot be null");
            }
        }

        /** Lines that contain the text ({@code search_string}). */
        record Containing(String text) implements Selector {
            public Containing {
                requireNonNull(text, "text cannot be null");
            }
        }
    }

    /** Ensures the exact line is present, inserting it at {@code where} when missing. */
    public static Result present(String text, String line, InsertPosition where, boolean firstMatch) {
        return present(text, Optional.empty(), line, where, false, firstMatch);
    }

    /**
     * Replaces the line the regexp finds, or ensures the line is present when it finds none.
     *
     * @throws IllegalArgumentException when {@code backrefs} names a group the regexp lacks
     */
    public static Result present(String text, Pattern regexp, String line, InsertPosition where,
                                 boolean backrefs, boolean firstMatch) {
        return present(text, Optional.of(new Selector.Regexp(regexp)), line, where, backrefs, firstMatch);
    }

    /**
     * Replaces the line the selector finds, or ensures the line is present when it finds none (or
     * there is no selector). {@code backrefs} needs a {@link Selector.Regexp}.
     *
     * @throws IllegalArgumentException when {@code backrefs} names a group the regexp lacks
     */
    public static Result present(String text, Optional<Selector> selector, String line, InsertPosition where,
                                 boolean backrefs, boolean firstMatch) {
        List<String> lines = TextLines.splitKeepingEnds(text, false);
        int found = -1;
        if (selector.isPresent()) {
            for (int i = 0; i < lines.size(); i++) {
                if (finds(selector.get(), lines.get(i))) {
                    found = i;
                    if (firstMatch) {
                        break;
                    }
                }
            }
        }
        boolean selected = found >= 0;
        int insertAt = -1;
        Optional<Pattern> anchor = switch (where) {
            case InsertPosition.After a -> Optional.of(a.pattern());
            case InsertPosition.Before b -> Optional.of(b.pattern());
            default -> Optional.empty();
        };
        boolean after = where instanceof InsertPosition.After;
        if (!selected) {
            for (int i = 0; i < lines.size(); i++) {
                if (TextLines.withoutTerminators(lines.get(i)).equals(line)) {
                    found = i;
                } else if (anchor.isPresent() && anchor.get().matcher(lines.get(i)).find()) {
                    insertAt = after ? i + 1 : i;
                    if (firstMatch) {
                        break;
                    }
                }
            }
        }
        if (found >= 0) {
            String wanted = backrefs && selected ? expand(selector.get(), lines.get(found), line) : line;
            wanted = wanted.endsWith("\n") ? wanted : wanted + "\n";
            if (lines.get(found).equals(wanted)) {
                return new Result(text, "line already present", false);
            }
            lines.set(found, wanted);
            return new Result(String.join("", lines), "line replaced", true);
        }
        if (backrefs) {
            // Without a match there is nothing to expand the back-references from; Ansible inserts nothing.
            return new Result(text, "regexp matched no line (backrefs: nothing to insert)", false);
        }
        String added = line + "\n";
        if (where instanceof InsertPosition.BeginningOfFile) {
            lines.addFirst(added);
        } else if (where instanceof InsertPosition.EndOfFile || insertAt < 0 || insertAt == lines.size()) {
            // At the end (also after a last line that the anchor found): end the last line first.
            if (!lines.isEmpty() && !endsLine(lines.getLast())) {
                lines.add("\n");
            }
            lines.add(added);
        } else if (after && TextLines.withoutTerminators(lines.get(insertAt)).equals(line)) {
            return new Result(text, "line already present", false);
        } else {
            lines.add(insertAt, added);
        }
        return new Result(String.join("", lines), "line added", true);
    }

    /** Removes every line the regexp finds. */
    public static Result absent(String text, Pattern regexp) {
        return absent(text, new Selector.Regexp(regexp));
    }

    /** Removes every line the selector finds. */
    public static Result absent(String text, Selector selector) {
        return removeWhere(text, l -> finds(selector, l));
    }

    /** Removes every line equal to {@code line} (its terminators aside). */
    public static Result absent(String text, String line) {
        return removeWhere(text, l -> TextLines.withoutTerminators(l).equals(line));
    }

    /** Whether the selector finds one line (with its terminator, as Python reads it). */
    private static boolean finds(Selector selector, String line) {
        return switch (selector) {
            case Selector.Regexp r -> r.pattern().matcher(line).find();
            case Selector.Containing c -> line.contains(c.text());
        };
    }

    /** The line template expanded against the regexp's match in the found line. */
    private static String expand(Selector selector, String foundLine, String template) {
        if (!(selector instanceof Selector.Regexp r)) {
            throw new IllegalArgumentException("backrefs needs a regexp");
        }
        Matcher m = r.pattern().matcher(foundLine);
        m.find();
        return PythonRegex.expand(m, template);
    }

    private static boolean endsLine(String line) {
        return line.endsWith("\n") || line.endsWith("\r");
    }

    private static Result removeWhere(String text, Predicate<String> doomed) {
        List<String> lines = TextLines.splitKeepingEnds(text, false);
        int before = lines.size();
        lines.removeIf(doomed);
        int removed = before - lines.size();
        if (removed == 0) {
            return new Result(text, "no matching line", false);
        }
        return new Result(String.join("", lines), removed == 1 ? "1 line removed" : removed + " lines removed", true);
    }
}
