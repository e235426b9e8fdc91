package dev.provision.engine.migrate;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jinja2 as Ansible playbooks write it, turned into provision's FreeMarker where the translation is
 * mechanical: variable references ({@code {{ item }}}, {@code {{ a.b }}}, {@code {{ hostvars[h]['x'] }}}),
 * the builtin filters with a FreeMarker twin ({@code default}, {@code lower}, {@code join}, {@code length},
 * ...), the operators and tests of conditions ({@code and}, {@code or}, {@code not}, {@code is defined},
 * {@code in}, {@code ~}), and {@code {% if %}}/{@code {% for %}} statements. Anything else (custom
 * filters, lookups, macros) is not guessed at: {@link #expression} is empty and the caller says so.
 */
public final class Jinja2 {
    private static final Pattern STATEMENT = Pattern.compile("\\{%-?\\s*(.*?)\\s*-?%\\}", Pattern.DOTALL);
    private static final Pattern JINJA_OUTPUT = Pattern.compile("\\{\\{-?\\s*[A-Za-z_(\\['\"]");
    private static final Pattern JINJA_STATEMENT = Pattern.compile(
            "\\{%-?\\s*(?:if|elif|else|endif|for|endfor|set|raw|endraw|macro|endmacro|block|include|import)\\b");
    private static final Pattern JINJA_CONDITION = Pattern.compile(
            "\\bis\\s+(?:not\\s+)?(?:defined|none)\\b|\\b(?:and|or)\\b\\s|^\\s*not\\s|\\{\\{");
    private Jinja2() {
    }

    /**
     * Whether {@code text} holds Jinja2 template syntax: {@code {{ name... }}} or a Jinja2 statement
     * ({@code {% if %}}, {@code {% for %}}, ...). A Go template ({@code --format '{{.State}}'}, which
     * docker and podman take) is not Jinja2.
     */
    public static boolean isTemplate(String text) {
        return JINJA_OUTPUT.matcher(text).find() || JINJA_STATEMENT.matcher(text).find();
    }

    /**
     * Whether a condition ({@code when:} and the like) is written in Jinja2: a template, or one of
     * Jinja2's words that FreeMarker lacks ({@code is defined}, {@code is none}, {@code and},
     * {@code or}, a leading {@code not}).
     */
    public static boolean isCondition(String text) {
        return isTemplate(text) || JINJA_CONDITION.matcher(text).find() || jinjaOnly(text).isPresent();
    }

    /**
     * What in a condition is Jinja2 and never FreeMarker, read outside string literals: a filter
     * ({@code x | default('yes')}: FreeMarker would read the single {@code |} as a logical or, and
     * the condition would mean something else), an {@code is} test, {@code in}, {@code ~},
     * Python's {@code True}/{@code False}/{@code None}. Empty when there is none. The rule: where a
     * text parses both ways it is Jinja2 unless it is plainly FreeMarker ({@code ||}, {@code ?builtin},
     * {@code !}).
     */
    public static Optional<String> jinjaOnly(String text) {
        String code = STRING_LITERAL.matcher(text).replaceAll("''");
        Matcher m = JINJA_ONLY.matcher(code);
        if (!m.find()) {
            return Optional.empty();
        }
        String found = m.group().strip();
        if (found.startsWith("|")) {
            return Optional.of("the filter '" + found.substring(1).strip() + "' (in FreeMarker a single | is a logical or)");
        }
        if (found.startsWith("is")) {
            return Optional.of("the test '" + found + "'");
        }
        return Optional.of(switch (found) {
            case "in" -> "the 'in' operator";
            case "~" -> "the '~' concatenation";
            default -> "Python's '" + found + "'";
        });
    }

    private static final Pattern STRING_LITERAL = Pattern.compile("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern JINJA_ONLY = Pattern.compile(
            "(?<![|])\\|(?![|])\\s*[A-Za-z_][A-Za-z0-9_]*|\\bis\\s+(?:not\\s+)?[A-Za-z_][A-Za-z0-9_]*|\\bin\\b|~|\\b(?:True|False|None)\\b");

    /**
     * The text with every {@code {{ expr }}} and {@code {% if/for %}} translated; empty when one of
     * them is not mechanically translatable.
     */
    public static Optional<String> template(String text) {
        return template(text, '"');
    }

    /**
     * As {@link #template(String)}, writing FreeMarker's string literals with {@code quote} ({@code '}
     * inside a double-quoted YAML scalar, where a {@code "} would end it).
     */
    public static Optional<String> template(String text, char quote) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        for (int open = text.indexOf("{{", at); open >= 0; open = text.indexOf("{{", at)) {
            int close = closing(text, open + 2);
            if (close < 0) {
                return Optional.empty();
            }
            String inner = text.substring(open + 2, close).replaceAll("^-", "").replaceAll("-$", "").strip();
            Optional<String> e = expression(inner, quote);
            if (e.isEmpty()) {
                return Optional.empty();
            }
            out.append(text, at, open).append("${").append(e.get()).append('}');
            at = close + 2;
        }
        out.append(text.substring(at));
        return statements(out.toString(), quote);
    }

    /**
     * Where the {@code }}} that ends an expression starting at {@code from} is: outside string literals
     * and the expression's own braces ({@code {{ x if y else {}}}} ends at the last two); -1 when none.
     */
    private static int closing(String text, int from) {
        int depth = 0;
        char inString = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (inString != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == inString) {
                    inString = 0;
                }
            } else if (c == '\'' || c == '"') {
                inString = c;
            } else if (c == '{') {
                depth++;
            } else if (c == '}') {
                if (depth == 0 && i + 1 < text.length() && text.charAt(i + 1) == '}') {
                    return i;
                }
                depth = Math.max(0, depth - 1);
            }
        }
        return -1;
    }

    private static Optional<String> statements(String text, char quote) {
        StringBuilder out = new StringBuilder();
        Matcher m = STATEMENT.matcher(text);
        int at = 0;
        while (m.find()) {
            String s = m.group(1).strip();
            String translated;
            if (s.startsWith("if ") || s.startsWith("elif ")) {
                boolean elif = s.startsWith("elif ");
                Optional<String> condition = condition(s.substring(elif ? 5 : 3), quote);
                if (condition.isEmpty()) {
                    return Optional.empty();
                }
                translated = (elif ? "<#elseif " : "<#if ") + condition.get() + ">";
            } else if (s.equals("else")) {
                translated = "<#else>";
            } else if (s.equals("endif")) {
                translated = "</#if>";
            } else if (s.equals("endfor")) {
                translated = "</#list>";
            } else if (s.matches("for\\s+[A-Za-z_][A-Za-z0-9_]*\\s+in\\s+.+")) {
                String[] parts = s.substring(4).strip().split("\\s+in\\s+", 2);
                Optional<String> seq = expression(parts[1], quote);
                if (seq.isEmpty()) {
                    return Optional.empty();
                }
                translated = "<#list " + seq.get() + " as " + parts[0] + ">";
            } else {
                return Optional.empty();
            }
            out.append(text, at, m.start()).append(translated);
            at = m.end();
        }
        out.append(text.substring(at));
        return Optional.of(out.toString());
    }

    /**
     * One Jinja2 expression (what is inside {@code {{ }}}) as a FreeMarker value; empty when it uses
     * something without a mechanical twin ({@link JinjaExpression}).
     */
    public static Optional<String> expression(String jinja) {
        return expression(jinja, '"');
    }

    /** As {@link #expression(String)}, with FreeMarker's string literals in {@code quote}. */
    public static Optional<String> expression(String jinja, char quote) {
        return JinjaExpression.value(jinja, quote);
    }

    /**
     * A Jinja2 condition ({@code when:} and the like, or an {@code {% if %}}) as a FreeMarker boolean
     * with the same truth value: a value that is not a boolean is read as Jinja2 reads it (empty and
     * 0 are false). Empty without a mechanical twin.
     */
    public static Optional<String> condition(String jinja) {
        return condition(jinja, '"');
    }

    /** As {@link #condition(String)}, with FreeMarker's string literals in {@code quote}. */
    public static Optional<String> condition(String jinja, char quote) {
        return JinjaExpression.condition(jinja, quote);
    }
}
