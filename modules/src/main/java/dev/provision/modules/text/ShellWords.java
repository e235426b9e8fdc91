package dev.provision.modules.text;

import java.util.List;
import java.util.regex.Pattern;

/** POSIX shell words: the one place where words become a command line (and back). */
public final class ShellWords {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellWords() {
    }

    /** Quotes one word so that {@code sh} reads it back unchanged. */
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
}
