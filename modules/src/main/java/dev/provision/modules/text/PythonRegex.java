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
        return compile(regex, 0);
    }

    /**
     * As {@link #compile(String)}, with {@code flags} ({@link Pattern#MULTILINE},
     * {@link Pattern#DOTALL}) set as Python's {@code re.compile(regex, flags)} sets them. Two of
     * Python's meanings that Java spells otherwise are kept: {@code \Z} is the very end of the text
     * (Java's {@code \z}), and in multi-line mode {@code ^} also matches at the end of a text that
     * ends with a newline and in an empty text, as Python's does (Java's does not), which matters to a substitution
     * ({@code re.sub("^", "# ", "a\n")} gives {@code "# a\n# "}).
     *
     * @throws IllegalArgumentException naming the expression when it is malformed
     */
    public static Pattern compile(String regex, int flags) {
        flags |= Pattern.UNIX_LINES;
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
        String named = NAMED_BACKREFERENCE.matcher(body.replace("(?P<", "(?<")).replaceAll("\\\\k<$1>");
        String java = anchors(named, (flags & Pattern.MULTILINE) != 0);
        try {
            return Pattern.compile(java, flags);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regular expression '" + regex + "': " + e.getDescription(), e);
        }
    }

    /** Python's {@code \Z} and, in multi-line mode, its {@code ^}, in Java's words (outside character classes). */
    private static String anchors(String regex, boolean multiline) {
        if (!regex.contains("\\Z") && !(multiline && regex.contains("^"))) {
            return regex;
        }
        StringBuilder out = new StringBuilder(regex.length() + 16);
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\' && i + 1 < regex.length()) {
                char next = regex.charAt(++i);
                out.append(!inClass && next == 'Z' ? "\\z" : "\\" + next);
            } else if (inClass) {
                out.append(c);
                inClass = c != ']';
            } else if (c == '[') {
                out.append(c);
                inClass = true;
                // a ] first (after an optional ^) is a member, not the end of the class
                if (i + 1 < regex.length() && regex.charAt(i + 1) == '^') {
                    out.append(regex.charAt(++i));
                }
                if (i + 1 < regex.length() && regex.charAt(i + 1) == ']') {
                    out.append(regex.charAt(++i));
                }
            } else if (c == '^' && multiline) {
                out.append("(?:\\A|(?<=\\n))");
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * Expands a Python replacement template against a match, as {@code match.expand} and
     * {@code re.sub} do: {@code \1}..{@code \99} and {@code \g<name>} or {@code \g<1>} insert
     * groups (an unmatched group inserts nothing; {@code \g<0>} the whole match); {@code \0} and
     * three octal digits ({@code \101}) are characters; {@code \\}, {@code \n}, {@code \t},
     * {@code \r}, {@code \a}, {@code \b}, {@code \f}, {@code \v} are Python's escapes; any other
     * backslash before a character that is not an ASCII letter stays as written. Everything else,
     * {@code $} included, is literal text: the result never passes through Java's replacement syntax.
     *
     * @throws IllegalArgumentException when the template names a group the pattern does not have, or
     *     holds an escape Python refuses ({@code \q}, a final lone backslash)
     */
    public static String expand(Matcher match, String template) {
        return expand(template, reference -> {
            try {
                String value = reference.chars().allMatch(PythonRegex::isAsciiDigit)
                        ? match.group(Integer.parseInt(reference))
                        : match.group(reference);
                return value == null ? "" : value;
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                throw noGroup(reference, match.pattern(), e);
            }
        });
    }

    /**
     * Checks a replacement template against a pattern before anything matches, as Python's
     * {@code re.sub} does: a template that names a group the pattern lacks, or holds an escape
     * Python refuses, fails even where the pattern would match nothing.
     *
     * @throws IllegalArgumentException as {@link #expand} would
     */
    public static void checkTemplate(Pattern pattern, String template) {
        int groups = pattern.matcher("").groupCount();
        java.util.Map<String, Integer> names = pattern.namedGroups();
        expand(template, reference -> {
            boolean known = !reference.isEmpty() && (reference.chars().allMatch(PythonRegex::isAsciiDigit)
                            ? reference.length() < 10 && Integer.parseInt(reference) <= groups
                            : names.containsKey(reference));
            if (!known) {
                throw noGroup(reference, pattern, null);
            }
            return "";
        });
    }

    private static IllegalArgumentException noGroup(String reference, Pattern pattern, Exception cause) {
        return new IllegalArgumentException("no group '" + reference + "' in regular expression " + pattern, cause);
    }

    private static String expand(String template, java.util.function.UnaryOperator<String> group) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '\\') {
                out.append(c);
                i++;
                continue;
            }
            if (i + 1 == template.length()) {
                throw new IllegalArgumentException("bad escape (end of template) in: " + template);
            }
            char next = template.charAt(i + 1);
            if (next == '0') {
                int end = i + 2;
                while (end < template.length() && end < i + 4 && isOctal(template.charAt(end))) {
                    end++;
                }
                out.append((char) Integer.parseInt(template.substring(i + 1, end), 8));
                i = end;
            } else if (Character.isDigit(next) && next < 0x80) {
                int end = i + 2;
                if (end < template.length() && isAsciiDigit(template.charAt(end))) {
                    end++;
                    if (end < template.length() && isOctal(next) && isOctal(template.charAt(end - 1))
                            && isOctal(template.charAt(end))) {
                        int code = Integer.parseInt(template.substring(i + 1, end + 1), 8);
                        if (code > 0377) {
                            throw new IllegalArgumentException("octal escape value \\" + template.substring(i + 1, end + 1)
                                    + " outside of range 0-0o377 in: " + template);
                        }
                        out.append((char) code);
                        i = end + 1;
                        continue;
                    }
                }
                out.append(group.apply(template.substring(i + 1, end)));
                i = end;
            } else if (next == 'g') {
                if (i + 2 >= template.length() || template.charAt(i + 2) != '<') {
                    throw new IllegalArgumentException("missing < after \\g in: " + template);
                }
                int close = template.indexOf('>', i + 3);
                if (close < 0) {
                    throw new IllegalArgumentException("unterminated group name in: " + template);
                }
                out.append(group.apply(template.substring(i + 3, close)));
                i = close + 1;
            } else {
                switch (next) {
                    case '\\' -> out.append('\\');
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'a' -> out.append('\u0007');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'v' -> out.append('\u000b');
                    default -> {
                        if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z')) {
                            throw new IllegalArgumentException("bad escape \\" + next + " in: " + template);
                        }
                        out.append('\\').append(next);
                    }
                }
                i += 2;
            }
        }
        return out.toString();
    }

    private static boolean isOctal(char c) {
        return c >= '0' && c <= '7';
    }

    private static boolean isAsciiDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /** What {@link #substitute} made: the new text and how many matches it replaced. */
    public record Substitution(String text, int count) {
        public Substitution {
            java.util.Objects.requireNonNull(text, "text cannot be null");
        }
    }

    /**
     * Python's {@code re.subn(pattern, template, text)}: every match, left to right and not
     * overlapping, replaced by the template's {@linkplain #expand expansion}; an empty match right
     * after a match counts, as since Python 3.7. (One corner differs: after an empty match Python
     * tries a longer match at the same place, Java moves on one character.)
     *
     * @throws IllegalArgumentException when the template is malformed ({@link #checkTemplate})
     */
    public static Substitution substitute(Pattern pattern, String template, String text) {
        checkTemplate(pattern, template);
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        int count = 0;
        while (m.find()) {
            out.append(text, copied, m.start()).append(expand(m, template));
            copied = m.end();
            count++;
        }
        out.append(text, copied, text.length());
        return new Substitution(out.toString(), count);
    }
}
