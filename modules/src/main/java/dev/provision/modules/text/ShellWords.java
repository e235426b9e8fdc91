package dev.provision.modules.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * POSIX shell words: the one place where words become a command line (and back).
 *
 * <p>{@link #quote}/{@link #join} make a line that {@code sh} reads back as the same words;
 * {@link #split} reads a line the way {@code sh} would split it into words, without expanding
 * anything ({@code $HOME}, globs and {@code ~} stay literal: no shell runs the result).
 */
public final class ShellWords {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellWords() {
    }

    /** Quotes one word so that {@code sh} reads it back unchanged. */
    /**
     * A name in POSIX shell's sense: letters, digits and {@code _}, not starting with a digit. The
     * names of environment variables and of playbook variables ({@code register}, {@code loop_var},
     * {@code set_fact}, {@code include_vars}) alike; one that is not could reach {@code env} as an
     * option or an assignment, or a template as an expression.
     */
    public static boolean isName(String word) {
        return NAME.matcher(word).matches();
    }

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public static String quote(String word) {
        if (!word.isEmpty() && SAFE.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\"'\"'") + "'";
    }

    public static String join(List<String> words) {
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(quote(w));
        }
        return sb.toString();
    }

    /**
     * Splits a command line into words as a POSIX shell would, without any expansion: blanks
     * separate words; {@code '...'} keeps everything literally; {@code "..."} keeps everything except
     * that a backslash escapes {@code $ ` " \} and a newline; outside quotes a backslash keeps the
     * next character literally (a backslash-newline joins lines). {@code ''} and {@code ""} make an
     * empty word. Shell operators ({@code |}, {@code >}, {@code ;}) are ordinary characters here.
     *
     * @throws IllegalArgumentException on an unterminated quote or a trailing backslash; the message
     *     says which and where
     */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false; // distinguishes "no word yet" from an empty quoted word
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated single quote at column " + (i + 1) + " in: " + line);
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i = readDoubleQuoted(line, i, word);
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= line.length()) {
                    throw new IllegalArgumentException("trailing backslash in: " + line);
                }
                char next = line.charAt(i + 1);
                if (next != '\n') { // backslash-newline is a line continuation: both vanish
                    word.append(next);
                    inWord = true;
                }
                i += 2;
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return List.copyOf(words);
    }

    /** Appends the body of the double-quoted string opening at {@code open}; returns the index after it. */
    private static int readDoubleQuoted(String line, int open, StringBuilder word) {
        int i = open + 1;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\' && i + 1 < line.length() && "$`\"\\\n".indexOf(line.charAt(i + 1)) >= 0) {
                if (line.charAt(i + 1) != '\n') {
                    word.append(line.charAt(i + 1));
                }
                i += 2;
            } else {
                word.append(c);
                i++;
            }
        }
        throw new IllegalArgumentException("unterminated double quote at column " + (open + 1) + " in: " + line);
    }
}
