package dev.provision.modules.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Playbooks carry Python regular expressions ({@code regexp:}, {@code insertafter:}) and Python
 * replacement templates ({@code \1}, {@code \g<name>} with {@code backrefs}). Java's syntax is
 * nearly the same; this class translates the differences that playbooks actually use: named groups
 * {@code (?P<name>...)} and {@code (?P=name)}, and Python's expansion of a match.
 */
public final class PythonRegex {
    private static final Pattern NAMED_BACKREFERENCE = Pattern.compile("\\(\\?P=(\\w+)\\)");
    private static final Pattern GLOBAL_FLAGS = Pattern.compile("^\\(\\?([aiLmsux]+)\\)");

    private PythonRegex() {
    }

    /**
     * Compiles a Python-style regular expression for searching lines ({@code re.search}). Only
     * {@code \n} ends a line, as in Python ({@code $} matches before a final {@code \n}, not before
     * {@code \r}); leading global flags ({@code (?m)}, {@code (?i)}) become the pattern's
     * {@link Pattern#flags()}, so that callers can ask whether it is multi-line.
     *
     * @throws IllegalArgumentException naming the expression when it is malformed
     */
    public static Pattern compile(String regex) {
        int flags = Pattern.UNIX_LINES;
        String body = regex;
        Matcher global = GLOBAL_FLAGS.matcher(regex);
        if (global.find()) {
            for (char f : global.group(1).toCharArray()) {
                flags |= switch (f) {
                    case 'i' -> Pattern.CASE_INSENSITIVE;
                    case 'm' -> Pattern.MULTILINE;
                    case 's' -> Pattern.DOTALL;
                    case 'x' -> Pattern.COMMENTS;
                    default -> 0; // a, L, u: ASCII, locale and Unicode matching, Java's defaults serve
                };
            }
            body = regex.substring(global.end());
        }
        String java = NAMED_BACKREFERENCE.matcher(body.replace("(?P<", "(?<")).replaceAll("\\\\k<$1>");
        try {
            return Pattern.compile(java, flags);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regular expression '" + regex + "': " + e.getDescription(), e);
        }
    }

    /**
     * Expands a Python replacement template against a match, as {@code match.expand} does:
     * {@code \1}..{@code \99} and {@code \g<name>} or {@code \g<1>} insert groups (an unmatched group
     * inserts nothing), {@code \\} a backslash, {@code \n} and {@code \t} a newline and a tab; any
     * other backslash stays as written.
     *
     * @throws IllegalArgumentException when the template names a group the pattern does not have
     */
    public static String expand(Matcher match, String template) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '\\' || i + 1 == template.length()) {
                out.append(c);
                i++;
                continue;
            }
            char next = template.charAt(i + 1);
            if (Character.isDigit(next)) {
                int end = i + 2;
                if (end < template.length() && Character.isDigit(template.charAt(end))) {
                    end++;
                }
                appendGroup(out, match, template.substring(i + 1, end));
                i = end;
            } else if (next == 'g' && i + 2 < template.length() && template.charAt(i + 2) == '<') {
                int close = template.indexOf('>', i + 3);
                if (close < 0) {
                    throw new IllegalArgumentException("unterminated group name in: " + template);
                }
                appendGroup(out, match, template.substring(i + 3, close));
                i = close + 1;
            } else {
                switch (next) {
                    case '\\' -> out.append('\\');
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    default -> out.append('\\').append(next);
                }
                i += 2;
            }
        }
        return out.toString();
    }

    private static void appendGroup(StringBuilder out, Matcher match, String reference) {
        String value;
        try {
            value = reference.chars().allMatch(Character::isDigit)
                    ? match.group(Integer.parseInt(reference))
                    : match.group(reference);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IllegalArgumentException("no group '" + reference + "' in regular expression " + match.pattern(), e);
        }
        if (value != null) {
            out.append(value);
        }
    }
}
