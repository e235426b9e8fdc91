package dev.provision.modules.text;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * Where an editor inserts new lines when nothing it owns is in the text yet: Ansible's
 * {@code insertafter} / {@code insertbefore} with their keywords. A pattern's match is found by
 * the editor ({@link LineEdit}, {@link ManagedBlock}), each with Ansible's rules; when it matches
 * nothing, the insertion goes to the end of the file, as in Ansible.
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
     * Reads {@code lineinfile}'s {@code insertafter}: {@code EOF}, {@code BOF} or a regular
     * expression ({@code blockinfile} knows only {@code EOF}: see {@link #afterOrEnd}).
     *
     * @throws IllegalArgumentException when the regular expression is malformed
     */
    static InsertPosition after(String value) {
        return value.equals("BOF") ? BEGINNING_OF_FILE : afterOrEnd(value);
    }

    /**
     * Reads {@code blockinfile}'s {@code insertafter}: {@code EOF} or a regular expression
     * ({@code BOF} is a pattern there, as in Ansible).
     *
     * @throws IllegalArgumentException when the regular expression is malformed
     */
    static InsertPosition afterOrEnd(String value) {
        return value.equals("EOF") ? END_OF_FILE : new After(PythonRegex.compile(value));
    }

    /**
     * Reads an {@code insertbefore} value: {@code BOF} or a regular expression ({@code EOF} is a
     * pattern here, as in Ansible).
     *
     * @throws IllegalArgumentException when the regular expression is malformed
     */
    static InsertPosition before(String value) {
        return value.equals("BOF") ? BEGINNING_OF_FILE : new Before(PythonRegex.compile(value));
    }
}
