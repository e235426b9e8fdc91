package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where an editor inserts new lines when nothing it owns is in the text yet: Ansible's
 * {@code insertafter} / {@code insertbefore} with their {@code EOF} / {@code BOF} keywords.
 * A regular expression selects the last line it matches (or the first, where the editor says so);
 * when it matches no line, the insertion goes to the end of the file, as in Ansible.
 */
public sealed interface InsertPosition {

    /** At the end of the text (the default). */
    record EndOfFile() implements InsertPosition {
    }

    /** At the start of the text. */
    record BeginningOfFile() implements InsertPosition {
    }

    /** After the line the pattern finds. */
    record After(Pattern pattern) implements InsertPosition {
        public After {
            requireNonNull(pattern, "pattern cannot be null");
        }
    }

    /** Before the line the pattern finds. */
    record Before(Pattern pattern) implements InsertPosition {
        public Before {
            requireNonNull(pattern, "pattern cannot be null");
        }
    }

    InsertPosition END_OF_FILE = new EndOfFile();
    InsertPosition BEGINNING_OF_FILE = new BeginningOfFile();

    /**
     * Reads an {@code insertafter} value: {@code EOF}, {@code BOF} or a regular expression.
     *
     * @throws IllegalArgumentException when the regular expression is malformed
     */
    static InsertPosition after(String value) {
        return switch (value) {
            case "EOF" -> END_OF_FILE;
            case "BOF" -> BEGINNING_OF_FILE;
            default -> new After(PythonRegex.compile(value));
        };
    }

    /**
     * Reads an {@code insertbefore} value: {@code BOF}, {@code EOF} or a regular expression.
     *
     * @throws IllegalArgumentException when the regular expression is malformed
     */
    static InsertPosition before(String value) {
        return switch (value) {
            case "BOF" -> BEGINNING_OF_FILE;
            case "EOF" -> END_OF_FILE;
            default -> new Before(PythonRegex.compile(value));
        };
    }

    /**
     * The index at which new lines go in {@code lines}.
     *
     * @param firstMatch use the first line a pattern finds instead of the last
     */
    default int indexIn(List<String> lines, boolean firstMatch) {
        return switch (this) {
            case EndOfFile e -> lines.size();
            case BeginningOfFile b -> 0;
            case After a -> {
                int found = find(lines, a.pattern(), firstMatch);
                yield found < 0 ? lines.size() : found + 1;
            }
            case Before b -> {
                int found = find(lines, b.pattern(), firstMatch);
                yield found < 0 ? lines.size() : found;
            }
        };
    }

    private static int find(List<String> lines, Pattern pattern, boolean firstMatch) {
        int found = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (pattern.matcher(lines.get(i)).find()) {
                found = i;
                if (firstMatch) {
                    break;
                }
            }
        }
        return found;
    }
}
