package dev.provision.engine.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    private static final Pattern OUTPUT = Pattern.compile("\\{\\{-?\\s*(.*?)\\s*-?\\}\\}", Pattern.DOTALL);
    private static final Pattern STATEMENT = Pattern.compile("\\{%-?\\s*(.*?)\\s*-?%\\}", Pattern.DOTALL);
    private static final Pattern JINJA_OUTPUT = Pattern.compile("\\{\\{-?\\s*[A-Za-z_(\\['\"]");
    private static final Pattern JINJA_STATEMENT = Pattern.compile(
            "\\{%-?\\s*(?:if|elif|else|endif|for|endfor|set|raw|endraw|macro|endmacro|block|include|import)\\b");
    private static final Pattern JINJA_CONDITION = Pattern.compile(
            "\\bis\\s+(?:not\\s+)?(?:defined|none)\\b|\\b(?:and|or)\\b\\s|^\\s*not\\s|\\{\\{");
    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:(?<str>'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\")|(?<num>\\d+(?:\\.\\d+)?)|(?<id>[A-Za-z_][A-Za-z0-9_]*)"
                    + "|(?<op>==|!=|<=|>=|[-+*/%<>()\\[\\].,|~:]))");
    /** Filters with a FreeMarker built-in of the same meaning: name to built-in. */
    private static final Map<String, String> FILTERS = Map.ofEntries(
            Map.entry("lower", "lower_case"), Map.entry("upper", "upper_case"), Map.entry("length", "size"),
            Map.entry("count", "size"), Map.entry("join", "join"), Map.entry("int", "number"), Map.entry("float", "number"),
            Map.entry("string", "string"), Map.entry("trim", "trim"), Map.entry("replace", "replace"),
            Map.entry("first", "first"), Map.entry("last", "last"), Map.entry("sort", "sort"), Map.entry("bool", "boolean"),
            Map.entry("capitalize", "cap_first"), Map.entry("reverse", "reverse"));

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
        Matcher m = OUTPUT.matcher(text);
        int at = 0;
        while (m.find()) {
            Optional<String> e = expression(m.group(1), quote);
            if (e.isEmpty()) {
                return Optional.empty();
            }
            out.append(text, at, m.start()).append("${").append(e.get()).append('}');
            at = m.end();
        }
        out.append(text.substring(at));
        return statements(out.toString(), quote);
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
                Optional<String> condition = expression(s.substring(elif ? 5 : 3), quote);
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
     * One Jinja2 expression (what is inside {@code {{ }}}, or a bare {@code when:} condition) as a
     * FreeMarker expression; empty when it uses something without a mechanical twin.
     */
    public static Optional<String> expression(String jinja) {
        return expression(jinja, '"');
    }

    /** As {@link #expression(String)}, with FreeMarker's string literals in {@code quote}. */
    public static Optional<String> expression(String jinja, char quote) {
        List<String> tokens = tokens(jinja, quote);
        if (tokens == null) {
            return Optional.empty();
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            String next = i + 1 < tokens.size() ? tokens.get(i + 1) : "";
            switch (t) {
                case "and" -> out.append(" && ");
                case "or" -> out.append(" || ");
                case "not" -> {
                    if (next.equals("in")) {
                        return Optional.empty();
                    }
                    out.append('!');
                }
                case "~" -> out.append(" + ");
                case "True", "true" -> out.append("true");
                case "False", "false" -> out.append("false");
                case "none", "None" -> {
                    return Optional.empty();
                }
                case "is" -> {
                    boolean negated = next.equals("not");
                    String test = tokens.size() > i + (negated ? 2 : 1) ? tokens.get(i + (negated ? 2 : 1)) : "";
                    if (!test.equals("defined") && !test.equals("undefined")) {
                        return Optional.empty();
                    }
                    boolean defined = test.equals("defined") != negated;
                    // FreeMarker's x?? applies to the operand just written: wrap it
                    int start = operandStart(out);
                    String operand = out.substring(start).strip();
                    out.setLength(start);
                    out.append(defined ? "" : "!").append(wrap(operand)).append("??");
                    i += negated ? 2 : 1;
                }
                case "in" -> {
                    int start = operandStart(out);
                    String needle = out.substring(start).strip();
                    out.setLength(start);
                    StringBuilder rest = new StringBuilder();
                    int j = i + 1;
                    for (; j < tokens.size() && !List.of("and", "or", ")").contains(tokens.get(j)); j++) {
                        rest.append(tokens.get(j));
                    }
                    out.append(rest).append("?seq_contains(").append(needle).append(')');
                    i = j - 1;
                }
                case "|" -> {
                    String filter = next;
                    i++;
                    List<String> args = new ArrayList<>();
                    if (i + 1 < tokens.size() && tokens.get(i + 1).equals("(")) {
                        int depth = 0;
                        StringBuilder arg = new StringBuilder();
                        for (i = i + 1; i < tokens.size(); i++) {
                            String a = tokens.get(i);
                            if (a.equals("(")) {
                                if (depth++ == 0) {
                                    continue;
                                }
                            } else if (a.equals(")")) {
                                if (--depth == 0) {
                                    break;
                                }
                            } else if (a.equals(",") && depth == 1) {
                                args.add(arg.toString());
                                arg.setLength(0);
                                continue;
                            }
                            arg.append(a);
                        }
                        if (!arg.isEmpty()) {
                            args.add(arg.toString());
                        }
                    }
                    Optional<String> applied = filter(out, filter, args, quote);
                    if (applied.isEmpty()) {
                        return Optional.empty();
                    }
                }
                default -> {
                    if (Character.isLetter(t.charAt(0)) && next.equals("(")) {
                        return Optional.empty(); // a function (lookup, query, range): no twin
                    }
                    if (t.equals("if") || t.equals("else")) {
                        return Optional.empty(); // an inline conditional: FreeMarker's ?then reads differently
                    }
                    if (t.charAt(0) == quote) {
                        out.append(t);
                    } else if (t.equals("==") || t.equals("!=") || t.equals("<") || t.equals(">") || t.equals("<=") || t.equals(">=")
                            || t.equals("+") || t.equals("-") || t.equals("*") || t.equals("/") || t.equals("%")) {
                        out.append(' ').append(t).append(' ');
                    } else {
                        out.append(t);
                    }
                }
            }
        }
        return Optional.of(out.toString().replaceAll(" {2,}", " ").strip());
    }

    private static Optional<String> filter(StringBuilder out, String filter, List<String> args, char quote) {
        String empty = "" + quote + quote;
        int start = operandStart(out);
        String operand = out.substring(start).strip();
        out.setLength(start);
        if (filter.equals("default") || filter.equals("d")) {
            String fallback = args.isEmpty() || args.getFirst().equals("omit") ? empty : args.getFirst();
            out.append(wrap(operand)).append('!').append(fallback);
            return Optional.of(out.toString());
        }
        String builtin = FILTERS.get(filter);
        if (builtin == null) {
            return Optional.empty();
        }
        if (filter.equals("join") && args.isEmpty()) {
            args = List.of(empty);
        }
        out.append(operand).append('?').append(builtin);
        if (!args.isEmpty()) {
            out.append('(').append(String.join(", ", args)).append(')');
        }
        return Optional.of(out.toString());
    }

    /** A plain name as it is; anything else in parentheses, so that {@code ??} and {@code !} apply to all of it. */
    private static String wrap(String operand) {
        return operand.matches("[A-Za-z_][A-Za-z0-9_]*") ? operand : "(" + operand + ")";
    }

    /** Where the operand that ends {@code out} starts: after the last operator outside brackets. */
    private static int operandStart(StringBuilder out) {
        int depth = 0;
        for (int i = out.length() - 1; i >= 0; i--) {
            char c = out.charAt(i);
            if (c == ')' || c == ']') {
                depth++;
            } else if (c == '(' || c == '[') {
                if (depth == 0) {
                    return i + 1;
                }
                depth--;
            } else if (depth == 0 && (c == ' ' || c == '!' || c == ',')) {
                return i + 1;
            }
        }
        return 0;
    }

    /** Tokens with strings as FreeMarker writes them ("..."), or null when the text does not tokenize. */
    private static List<String> tokens(String jinja, char quote) {
        List<String> tokens = new ArrayList<>();
        Matcher m = TOKEN.matcher(jinja);
        int at = 0;
        while (at < jinja.length()) {
            if (!m.find(at) || m.start() != at) {
                return jinja.substring(at).isBlank() ? tokens : null;
            }
            if (m.group("str") != null) {
                String s = m.group("str");
                String body = s.substring(1, s.length() - 1);
                tokens.add(quote + body.replace(String.valueOf(quote), "\\" + quote) + quote);
            } else {
                tokens.add(m.group(m.group("num") != null ? "num" : m.group("id") != null ? "id" : "op"));
            }
            at = m.end();
        }
        return tokens;
    }
}
