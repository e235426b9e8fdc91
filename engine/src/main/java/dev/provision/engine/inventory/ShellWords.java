package dev.provision.engine.inventory;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an INI host line into words as Ansible does (Python's {@code shlex.split(line,
 * comments=True)}, POSIX mode): words end at blanks; {@code '...'} keeps everything literally;
 * {@code "..."} too, except that a backslash escapes {@code "} and {@code \}; outside quotes a backslash
 * escapes any character; quotes join the word they touch ({@code foo="a b"} is the one word
 * {@code foo=a b}); an unquoted {@code #} ends the line.
 */
final class ShellWords {
    /** One word and the 1-based column where it starts. */
    record Word(String text, int column) {
    }

    /** The line cannot be split; {@link #column()} is the quote or backslash that is not closed. */
    static final class MalformedException extends IllegalArgumentException {
        private final int column;

        MalformedException(String message, int column) {
            super(message);
            this.column = column;
        }

        int column() {
            return column;
        }
    }

    private static final String BLANKS = " \t\r\n";

    private ShellWords() {
    }

    /**
     * The words of a line.
     *
     * @throws MalformedException for a quote without its closing quote, or a backslash at the end
     */
    static List<Word> split(String line) {
        List<Word> words = new ArrayList<>();
        StringBuilder word = null;
        int start = 0;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (BLANKS.indexOf(c) >= 0) {
                if (word != null) {
                    words.add(new Word(word.toString(), start + 1));
                    word = null;
                }
                i++;
                continue;
            }
            if (c == '#') {
                break;
            }
            if (word == null) {
                word = new StringBuilder();
                start = i;
            }
            i = switch (c) {
                case '\'' -> quoted(line, i, '\'', word);
                case '"' -> quoted(line, i, '"', word);
                case '\\' -> {
                    if (i + 1 >= line.length()) {
                        throw new MalformedException("a backslash at the end of the line escapes nothing", i + 1);
                    }
                    word.append(line.charAt(i + 1));
                    yield i + 2;
                }
                default -> {
                    word.append(c);
                    yield i + 1;
                }
            };
        }
        if (word != null) {
            words.add(new Word(word.toString(), start + 1));
        }
        return words;
    }

    /** Appends a quoted part opened at {@code open}; returns the index after its closing quote. */
    private static int quoted(String line, int open, char quote, StringBuilder word) {
        int i = open + 1;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == quote) {
                return i + 1;
            }
            if (quote == '"' && c == '\\' && i + 1 < line.length()) {
                char next = line.charAt(i + 1);
                if (next != '"' && next != '\\') {
                    word.append('\\'); // "\n" keeps its backslash, as in the shell
                }
                word.append(next);
                i += 2;
                continue;
            }
            word.append(c);
            i++;
        }
        throw new MalformedException("the quote " + quote + " opened here is never closed; close it", open + 1);
    }
}
