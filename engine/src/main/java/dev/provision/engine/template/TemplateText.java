package dev.provision.engine.template;

import java.util.Optional;

/** Questions about a string before it is handed to FreeMarker. */
final class TemplateText {

    private TemplateText() {
    }

    /** Whether the string holds an interpolation or a directive; everything else is returned as it is. */
    static boolean needsRendering(String text) {
        return text.contains("${") || text.contains("<#") || text.contains("[#");
    }

    /**
     * The expression inside a string that is exactly one {@code ${expr}}, so that its native value
     * can be returned; empty for anything else. Surrounding blanks are ignored, but a surrounding
     * line break makes it text: {@code "${x}\n"} (a YAML block scalar) must keep its newline. Braces of map
     * literals and braces inside string literals are skipped over; when in doubt (an unusual string
     * literal) the answer is empty and the string is simply rendered as text.
     */
    static Optional<String> singleExpression(String text) {
        String trimmed = text.replaceAll("^[ \\t]+|[ \\t]+$", "");
        if (!trimmed.startsWith("${") || !trimmed.endsWith("}")) {
            return Optional.empty();
        }
        int depth = 0;
        for (int i = 2; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if (c == '"' || c == '\'') {
                i = endOfStringLiteral(trimmed, i);
                if (i < 0) {
                    return Optional.empty();
                }
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                if (depth == 0) {
                    return i == trimmed.length() - 1 ? Optional.of(trimmed.substring(2, i)) : Optional.empty();
                }
                depth--;
            }
        }
        return Optional.empty();
    }

    /** Index of the closing quote of the literal opened at {@code start}, or -1 when it is not closed. */
    private static int endOfStringLiteral(String text, int start) {
        char quote = text.charAt(start);
        boolean raw = start > 0 && text.charAt(start - 1) == 'r';
        for (int i = start + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && !raw) {
                i++;
            } else if (c == quote) {
                return i;
            }
        }
        return -1;
    }

    /** The text for quoting in a one-line message: its {@code line}th line (1-based), shortened. */
    static String excerpt(String text, int line) {
        String[] lines = text.split("\n", -1);
        String chosen = lines.length == 1 ? text : lines[Math.max(0, Math.min(line, lines.length) - 1)];
        chosen = chosen.strip();
        return chosen.length() <= 100 ? chosen : chosen.substring(0, 97) + "...";
    }
}
