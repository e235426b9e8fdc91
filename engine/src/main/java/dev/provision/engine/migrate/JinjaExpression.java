package dev.provision.engine.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Jinja2 expression, parsed (precedence as Jinja2's: {@code if/else} &lt; {@code or} &lt;
 * {@code and} &lt; {@code not} &lt; comparisons, {@code in}, {@code is} &lt; {@code ~ + -} &lt;
 * {@code * / %} &lt; filters and attributes) and written again as FreeMarker with the same meaning.
 * Where a Jinja2 value is read as a truth value (a condition, an operand of {@code and}/{@code or}/
 * {@code not}, the test of an inline {@code if}), a value that is not already a boolean is read as
 * Jinja2 reads it: empty strings, empty lists, 0 and false are false. Anything without a twin
 * (functions such as {@code lookup}, custom filters and tests, {@code none}) makes the whole
 * translation empty: never a guess.
 */
final class JinjaExpression {
    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:(?<str>'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\")|(?<num>\\d+(?:\\.\\d+)?)|(?<id>[A-Za-z_][A-Za-z0-9_]*)"
                    + "|(?<op>==|!=|<=|>=|//|[-+*/%<>()\\[\\]{}.,|~:]))");
    /** Filters with a FreeMarker built-in of the same meaning: name to built-in. */
    private static final Map<String, String> BUILTINS = Map.ofEntries(
            Map.entry("lower", "lower_case"), Map.entry("upper", "upper_case"), Map.entry("length", "size"),
            Map.entry("count", "size"), Map.entry("join", "join"), Map.entry("int", "number"), Map.entry("float", "number"),
            Map.entry("string", "string"), Map.entry("trim", "trim"), Map.entry("replace", "replace"),
            Map.entry("first", "first"), Map.entry("last", "last"), Map.entry("sort", "sort"),
            Map.entry("capitalize", "cap_first"), Map.entry("reverse", "reverse"));
    /** Tests of a registered result, as Ansible defines them, on provision's register keys. */
    private static final Map<String, String> RESULT_TESTS = Map.of(
            "failed", "(%s.failed)!false", "succeeded", "!((%s.failed)!false)", "success", "!((%s.failed)!false)",
            "changed", "(%s.changed)!false", "skipped", "(%s.skipped)!false");

    /** Ansible's regex tests as a whole-string Java pattern around the test's own ({@code %s}). */
    private static final Map<String, String> REGEX_TESTS = Map.of(
            "search", "(?s).*(?:%s).*", "regex", "(?s).*(?:%s).*", "match", "(?s)(?:%s).*");
    /**
     * A pattern Python's re and Java's Pattern read alike: no inline flags, named groups, \A or \Z, no
     * backslash but before a class letter or a punctuation mark.
     */
    private static final java.util.regex.Pattern PORTABLE_REGEX = java.util.regex.Pattern.compile(
            "(?:[^\\\\(]|\\\\[dswDSW.\\\\^$|()\\[\\]{}*+?/-]|\\((?!\\?))*");

    private static final int TERNARY = 1;
    private static final int OR = 2;
    private static final int AND = 3;
    private static final int NOT = 4;
    private static final int COMPARE = 5;
    private static final int ADD = 6;
    private static final int MUL = 7;
    private static final int ATOM = 9;

    /** A translated piece: its FreeMarker text, how tightly it binds, whether it is a boolean. */
    private record Node(String text, int precedence, boolean bool) {
        String at(int needed) {
            return precedence >= needed ? text : "(" + text + ")";
        }

        /** As an operand of a built-in ({@code ?size}) or a default ({@code !}): a name or a parenthesised whole. */
        String operand() {
            return text.matches("[A-Za-z_][A-Za-z0-9_]*") ? text : "(" + text + ")";
        }

        /** Read as Jinja2 reads a truth value. */
        Node truth() {
            if (bool) {
                return this;
            }
            String x = operand();
            return new Node(x + "?is_boolean?then(" + x + ", " + x + "?is_number?then(" + x + " != 0, " + x + "?has_content))",
                    ATOM, true);
        }
    }

    private static final class Unsupported extends RuntimeException {
        Unsupported() {
            super(null, null, false, false);
        }
    }

    private final List<String> tokens;
    private final char quote;
    private int at;

    private JinjaExpression(List<String> tokens, char quote) {
        this.tokens = tokens;
        this.quote = quote;
    }

    /** The expression as a FreeMarker value (inside {@code ${}}); empty without a mechanical twin. */
    static Optional<String> value(String jinja, char quote) {
        return parse(jinja, quote).map(Node::text);
    }

    /** The expression as a FreeMarker condition: a boolean, read as Jinja2 reads truth; empty without a twin. */
    static Optional<String> condition(String jinja, char quote) {
        return parse(jinja, quote).map(n -> n.truth().text());
    }

    private static Optional<Node> parse(String jinja, char quote) {
        List<String> tokens = tokens(jinja, quote);
        if (tokens == null || tokens.isEmpty()) {
            return Optional.empty();
        }
        JinjaExpression p = new JinjaExpression(tokens, quote);
        try {
            Node n = p.ternary();
            return p.at == tokens.size() ? Optional.of(n) : Optional.empty();
        } catch (Unsupported | IndexOutOfBoundsException e) {
            return Optional.empty();
        }
    }

    private String peek() {
        return at < tokens.size() ? tokens.get(at) : "";
    }

    private String peek(int ahead) {
        return at + ahead < tokens.size() ? tokens.get(at + ahead) : "";
    }

    private boolean accept(String t) {
        if (peek().equals(t)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String t) {
        if (!accept(t)) {
            throw new Unsupported();
        }
    }

    private Node ternary() {
        Node value = or();
        if (!accept("if")) {
            return value;
        }
        Node test = or();
        expect("else"); // without else Jinja2 gives an undefined value: no twin
        Node otherwise = ternary();
        return new Node(test.truth().operand() + "?then(" + value.text() + ", " + otherwise.text() + ")", ATOM,
                value.bool() && otherwise.bool());
    }

    private Node or() {
        Node left = and();
        while (accept("or")) {
            Node right = and();
            left = new Node(left.truth().at(OR) + " || " + right.truth().at(OR + 1), OR, true);
        }
        return left;
    }

    private Node and() {
        Node left = not();
        while (accept("and")) {
            Node right = not();
            left = new Node(left.truth().at(AND) + " && " + right.truth().at(AND + 1), AND, true);
        }
        return left;
    }

    private Node not() {
        if (peek().equals("not") && !peek(1).equals("in")) {
            at++;
            return new Node("!" + not().truth().at(ATOM), NOT, true);
        }
        return compare();
    }

    private Node compare() {
        Node left = add();
        while (true) {
            String op = peek();
            if (List.of("==", "!=", "<", ">", "<=", ">=").contains(op)) {
                at++;
                Node right = add();
                left = (op.equals("==") || op.equals("!=")) && (isBooleanLiteral(right) || isBooleanLiteral(left))
                        ? equalsBoolean(isBooleanLiteral(right) ? left : right, isBooleanLiteral(right) ? right : left, op.equals("!="))
                        : new Node(left.at(ADD) + " " + op + " " + right.at(ADD), COMPARE, true);
            } else if (op.equals("in") || op.equals("not") && peek(1).equals("in")) {
                boolean negated = op.equals("not");
                at += negated ? 2 : 1;
                Node haystack = add();
                String h = haystack.operand();
                String needle = left.text();
                // in: an element of a list, a key of a mapping, a part of a string, as Jinja2 decides by the type
                String in = h + "?is_sequence?then(" + h + "?seq_contains(" + needle + "), " + h + "?is_hash?then(" + h
                        + "?keys?seq_contains(" + needle + "), " + h + "?contains(" + needle + ")))";
                left = new Node(negated ? "!" + in : in, negated ? NOT : ATOM, true);
            } else if (op.equals("is")) {
                at++;
                boolean negated = accept("not");
                String test = peek();
                at++;
                String x = left.operand();
                if (test.equals("version") || test.equals("version_compare")) {
                    left = version(x, negated);
                    continue;
                }
                String pattern = REGEX_TESTS.containsKey(test) ? regexArgument() : "";
                String result = switch (test) {
                    // Ansible's search/match/regex: Python's re.search/re.match on the value; FreeMarker's
                    // ?matches matches the whole string, so the pattern is wrapped to find it anywhere
                    case "search", "regex", "match" -> (negated ? "!" : "") + x + "?matches(r" + quote
                            + REGEX_TESTS.get(test).formatted(pattern) + quote + ")";
                    case "defined" -> (negated ? "!" : "") + x + "??";
                    case "undefined" -> (negated ? "" : "!") + x + "??";
                    // Jinja2's true/false tests: the boolean itself, never a truthy string or number
                    case "true", "false" -> (negated ? "!" : "") + "(" + x + "?? && " + x + "?is_boolean && "
                            + (test.equals("true") ? "" : "!") + x + ")";
                    default -> {
                        String form = RESULT_TESTS.get(test);
                        if (form == null) {
                            throw new Unsupported();
                        }
                        String positive = form.formatted(left.at(ATOM));
                        yield negated ? "!(" + positive + ")" : positive;
                    }
                };
                left = new Node(result, result.startsWith("!") ? NOT : ATOM, true);
            } else {
                return left;
            }
        }
    }

    /** Ansible's version test's operators, as FreeMarker compares version_compare's -1, 0 or 1 with 0. */
    private static final Map<String, String> VERSION_OPERATORS = Map.ofEntries(
            Map.entry("<", "<"), Map.entry("lt", "<"), Map.entry("<=", "<="), Map.entry("le", "<="),
            Map.entry(">", ">"), Map.entry("gt", ">"), Map.entry(">=", ">="), Map.entry("ge", ">="),
            Map.entry("==", "=="), Map.entry("=", "=="), Map.entry("eq", "=="),
            Map.entry("!=", "!="), Map.entry("<>", "!="), Map.entry("ne", "!="));

    /**
     * {@code x is version('2.0', '>=')}: provision's {@code version_compare}, which compares as the
     * test does by default (LooseVersion); {@code strict} or {@code version_type} are not translated.
     */
    private Node version(String x, boolean negated) {
        expect("(");
        Node other = ternary();
        String operator = "eq";
        if (accept(",")) {
            String literal = tokens.get(at++);
            if (literal.length() < 2 || literal.charAt(0) != quote) {
                throw new Unsupported(); // an operator in a variable, or keyword arguments
            }
            operator = literal.substring(1, literal.length() - 1);
        }
        expect(")");
        String op = VERSION_OPERATORS.get(operator);
        if (op == null) {
            throw new Unsupported();
        }
        String compared = "version_compare(" + x + ", " + other.text() + ") " + op + " 0";
        return negated ? new Node("!(" + compared + ")", NOT, true) : new Node(compared, COMPARE, true);
    }

    /** The one argument of a regex test, a string literal both regex dialects read alike; its body. */
    private String regexArgument() {
        expect("(");
        String literal = tokens.get(at++);
        expect(")");
        if (literal.length() < 2 || literal.charAt(0) != quote) {
            throw new Unsupported(); // a pattern in a variable, or flags (ignorecase=True)
        }
        String body = literal.substring(1, literal.length() - 1);
        if (body.contains(String.valueOf(quote)) || body.contains("\\\\") || !PORTABLE_REGEX.matcher(body).matches()) {
            throw new Unsupported();
        }
        return body;
    }

    private static boolean isBooleanLiteral(Node n) {
        return n.bool() && (n.text().equals("true") || n.text().equals("false"));
    }

    /** Python's x == True: a boolean compares as it is, a number as 1 or 0, anything else is not equal. */
    private static Node equalsBoolean(Node x, Node literal, boolean negated) {
        String v = x.operand();
        String number = literal.text().equals("true") ? "1" : "0";
        String equal = v + "?is_boolean?then(" + v + " == " + literal.text() + ", " + v + "?is_number?then(" + v + " == " + number
                + ", false))";
        return new Node(negated ? "!" + equal : equal, negated ? NOT : ATOM, true);
    }

    private Node add() {
        Node left = mul();
        while (List.of("+", "-", "~").contains(peek())) {
            String op = tokens.get(at++);
            Node right = mul();
            left = op.equals("~")
                    ? new Node(asString(left) + " + " + asString(right), ADD, false)
                    : new Node(left.at(ADD) + " " + op + " " + right.at(ADD + 1), ADD, false);
        }
        return left;
    }

    /** Jinja2's ~ joins texts: a string literal as it is, anything else turned into one. */
    private String asString(Node n) {
        return n.text().charAt(0) == quote && n.precedence() == ATOM ? n.text() : n.operand() + "?string";
    }

    private Node mul() {
        Node left = unary();
        while (List.of("*", "/", "%").contains(peek())) {
            String op = tokens.get(at++);
            Node right = unary();
            left = new Node(left.at(MUL) + " " + op + " " + right.at(MUL + 1), MUL, false);
        }
        if (peek().equals("//")) {
            throw new Unsupported();
        }
        return left;
    }

    private Node unary() {
        if (accept("-")) {
            return new Node("-" + unary().at(ATOM), MUL + 1, false);
        }
        Node n = postfix(primary());
        while (accept("|")) {
            n = filter(n, tokens.get(at++));
        }
        return n;
    }

    private Node filter(Node x, String name) {
        List<Node> args = new ArrayList<>();
        if (accept("(")) {
            while (!accept(")")) {
                args.add(ternary());
                if (!peek().equals(")")) {
                    expect(",");
                }
            }
        }
        String empty = "" + quote + quote;
        switch (name) {
            case "default", "d" -> {
                if (args.size() > 1) {
                    throw new Unsupported(); // default(x, true): on falsy values too, no twin
                }
                String fallback = args.isEmpty() ? empty : args.get(0).at(ATOM);
                // FreeMarker's default takes everything after it that it can (x!"a" == "b" is x!("a" == "b")):
                // the lowest precedence makes every use parenthesise it
                return new Node(x.operand() + "!" + fallback, TERNARY, false);
            }
            case "basename" -> {
                // Python's os.path.basename: after the last slash
                String v = x.operand();
                String slash = quote + "/" + quote;
                return new Node("(" + v + "?contains(" + slash + ")?then(" + v + "?keep_after_last(" + slash + "), " + v + "))",
                        ATOM, false);
            }
            case "dirname" -> {
                // Python's os.path.dirname: up to the last slash, trailing slashes dropped unless it is all slashes
                String v = x.operand();
                String q = String.valueOf(quote);
                String slash = q + "/" + q;
                return new Node("(" + v + "?contains(" + slash + ")?then((" + v + "?keep_before_last(" + slash + ") + " + slash
                        + ")?replace(r" + q + "(?<=[^/])/+$" + q + ", " + q + q + ", " + q + "r" + q + "), " + q + q + "))", ATOM, false);
            }
            case "splitext" -> {
                // Python's os.path.splitext: the extension is from the last dot of the last path part,
                // leading dots not counting ("a/b.tar.gz" -> "a/b.tar", ".gz"; ".bashrc" -> ".bashrc", "")
                String v = x.operand();
                String q = String.valueOf(quote);
                String base = "(" + v + "?contains(" + q + "/" + q + ")?then(" + v + "?keep_after_last(" + q + "/" + q + "), "
                        + v + "))";
                String ext = "(" + base + "?replace(r" + q + "^\\.+" + q + ", " + q + q + ", " + q + "r" + q + ")?contains("
                        + q + "." + q + ")?then(" + q + "." + q + " + " + base + "?keep_after_last(" + q + "." + q + "), " + q + q + "))";
                return new Node("[" + v + "?remove_ending(" + ext + "), " + ext + "]", ATOM, false);
            }
            case "ternary" -> {
                if (args.size() != 2) {
                    throw new Unsupported(); // ternary(a, b, none_value): a third branch for None, no twin
                }
                // Ansible's ternary: the first value when x is true as Jinja2 reads truth, else the second
                return new Node(x.truth().at(ATOM) + "?then(" + args.get(0).text() + ", " + args.get(1).text() + ")", ATOM, false);
            }
            case "bool" -> {
                // Ansible's bool: true for yes, on, 1, true (any case) and the boolean true
                String v = x.operand();
                String words = String.join(", ", List.of("yes", "on", "1", "true").stream().map(w -> quote + w + quote).toList());
                return new Node(v + "?is_boolean?then(" + v + ", [" + words + "]?seq_contains(" + v + "?string?lower_case))", ATOM, true);
            }
            default -> {
                String builtin = BUILTINS.get(name);
                if (builtin == null) {
                    throw new Unsupported();
                }
                List<String> shown = args.stream().map(Node::text).toList();
                if (name.equals("join") && shown.isEmpty()) {
                    shown = List.of(empty);
                }
                return new Node(x.operand() + "?" + builtin + (shown.isEmpty() ? "" : "(" + String.join(", ", shown) + ")"), ATOM, false);
            }
        }
    }

    private Node postfix(Node n) {
        while (true) {
            if (accept(".")) {
                String name = tokens.get(at++);
                if (name.equals("get") && accept("(")) {
                    // a mapping's get(key, fallback): the entry when there is one, else the fallback
                    Node key = ternary();
                    expect(",");
                    Node fallback = ternary();
                    expect(")");
                    n = new Node("(" + n.at(ATOM) + "[" + key.text() + "])!" + fallback.at(ATOM), TERNARY, false);
                    continue;
                }
                n = name.matches("\\d+") ? new Node(n.at(ATOM) + "[" + name + "]", ATOM, false)
                        : new Node(n.at(ATOM) + "." + name, ATOM, false);
            } else if (accept("[")) {
                Node index = ternary();
                expect("]");
                n = new Node(n.at(ATOM) + "[" + index.text() + "]", ATOM, false);
            } else if (peek().equals("(")) {
                throw new Unsupported(); // a call: lookup, query, range, a method
            } else {
                return n;
            }
        }
    }

    private Node primary() {
        String t = tokens.get(at++);
        switch (t) {
            case "(" -> {
                Node inner = ternary();
                expect(")");
                return new Node(inner.text(), inner.precedence(), inner.bool());
            }
            case "[" -> {
                List<String> items = new ArrayList<>();
                while (!accept("]")) {
                    items.add(ternary().text());
                    if (!peek().equals("]")) {
                        expect(",");
                    }
                }
                return new Node("[" + String.join(", ", items) + "]", ATOM, false);
            }
            case "{" -> {
                List<String> entries = new ArrayList<>();
                while (!accept("}")) {
                    Node key = ternary();
                    expect(":");
                    entries.add(key.text() + ": " + ternary().text());
                    if (!peek().equals("}")) {
                        expect(",");
                    }
                }
                return new Node("{" + String.join(", ", entries) + "}", ATOM, false);
            }
            case "True", "true" -> {
                return new Node("true", ATOM, true);
            }
            case "False", "false" -> {
                return new Node("false", ATOM, true);
            }
            case "None", "none", "not", "and", "or", "in", "is", "if", "else" -> throw new Unsupported();
            default -> {
                if (t.charAt(0) == quote || Character.isDigit(t.charAt(0))) {
                    return new Node(t, ATOM, false);
                }
                if (Character.isLetter(t.charAt(0)) || t.charAt(0) == '_') {
                    return new Node(t, ATOM, false);
                }
                throw new Unsupported();
            }
        }
    }

    /** Tokens with strings as FreeMarker writes them (in {@code quote}), or null when the text does not tokenize. */
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
