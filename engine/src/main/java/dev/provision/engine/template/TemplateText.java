package dev.provision.engine.template;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Questions about a string before it is handed to FreeMarker. */
final class TemplateText {
    /** Longer strings are rare in YAML values, and the cheap path is not worth guessing about them. */
    private static final int STRAIGHT_LINE_MAX_LENGTH = 2000;
    private static final Pattern DIRECTIVE_OR_RANGE = Pattern.compile("<#|\\[#|<@|\\[@|\\.\\.");
    private static final Pattern BUILT_IN = Pattern.compile("\\?([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern INTERPRET = Pattern.compile("\\?\\s*interpret\\b");
    private static final Pattern PAD = Pattern.compile("\\?\\s*(left_pad|right_pad)\\s*\\(\\s*(-?[0-9]+)");
    /**
     * Built-ins whose work is in proportion to their input: no callback (?filter), no regular
     * expression (?matches), no text built from a number (?left_pad), no evaluation (?eval).
     */
    private static final Set<String> STRAIGHT_LINE_BUILT_INS = Set.of("has_content", "c", "cn", "string",
            "upper_case", "lower_case", "cap_first", "uncap_first", "capitalize", "trim", "length", "size",
            "contains", "starts_with", "ends_with", "ensure_starts_with", "ensure_ends_with", "remove_beginning",
            "remove_ending", "index_of", "last_index_of", "boolean", "then", "switch", "first", "last", "keys",
            "values", "join", "seq_contains", "seq_index_of", "round", "floor", "ceiling", "abs", "int",
            "is_string", "is_number", "is_boolean", "is_sequence", "is_hash", "is_hash_ex", "is_enumerable",
            "is_collection", "is_date", "json_string", "j_string", "js_string", "url", "no_esc");

    private TemplateText() {
    }

    /**
     * Whether evaluating the text is straight-line work: no directive, macro call or range, only
     * built-ins from a short list, so that no loop or recursion can happen and the cost is bounded by
     * the text and the data it reads. Such text is evaluated in the caller's thread, everything else
     * under {@link EvaluationGuard}'s watch. When in doubt (a {@code ?} inside a string literal) the
     * answer is no, which costs only speed.
     */
    static boolean isStraightLine(String text) {
        if (text.length() > STRAIGHT_LINE_MAX_LENGTH || DIRECTIVE_OR_RANGE.matcher(text).find()) {
            return false;
        }
        Matcher builtIn = BUILT_IN.matcher(text);
        while (builtIn.find()) {
            if (!STRAIGHT_LINE_BUILT_INS.contains(builtIn.group(1))) {
                return false;
            }
        }
        return true;
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

    /**
     * Why the sandbox refuses the text before running it, if it does. {@code ?interpret} runs text as a
     * template that has no interruption checks, so a loop in it could not be stopped. {@code ?left_pad}
     * and {@code ?right_pad} build their whole result in one call, before any limit can look: a width
     * written as a number larger than the output limit is refused here instead. (A string literal that
     * mentions them is refused too; that costs nothing real.)
     */
    static Optional<String> refusal(String text, Limits limits) {
        if (INTERPRET.matcher(text).find()) {
            return Optional.of("?interpret is not available: it runs text as a template, where a loop could not be "
                    + "stopped; write the template directly");
        }
        Matcher pad = PAD.matcher(text);
        while (pad.find()) {
            if (new java.math.BigInteger(pad.group(2)).compareTo(java.math.BigInteger.valueOf(limits.outputChars())) > 0) {
                return Optional.of("?" + pad.group(1) + "(" + pad.group(2) + ") would make more than "
                        + LimitExceeded.characters(limits.outputChars()) + " of text");
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
