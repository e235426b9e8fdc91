package dev.provision.engine.inventory;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a value of an INI inventory the way Ansible does: as a Python literal
 * ({@code ast.literal_eval} of Python 3.11, what Debian's ansible-core runs on), and as the text
 * itself when it is not one. So {@code 5} is an integer, {@code 1.5} and {@code 1e3} floats,
 * {@code True}/{@code False} booleans ({@code true} stays text), {@code None} null, {@code 'a b'} and
 * {@code "a b"} strings (escapes, prefixes and {@code 'a' 'b'} concatenation as in Python),
 * {@code [1, 2]} and {@code (1, 2)} lists, {@code {'a': 1}} a mapping; {@code 0644} (a leading zero),
 * {@code 1+2}, {@code f'x'}, {@code --1} or {@code bar # note} stay text, as they do in Ansible. A
 * {@code #} outside quotes starts a Python comment: {@code 8080 # web} is 8080.
 *
 * <p>Values Python reads but an inventory cannot hold (complex numbers, sets, {@code ...}, a mapping
 * key that is a list) are refused: Ansible itself fails on them.
 */
final class PythonLiteral {
    /** Python's tokenizer refuses deeper bracket nesting ("too many nested parentheses"). */
    private static final int MAX_NESTING = 200;
    /** Python refuses longer decimal integer literals (the int max-str-digits limit). */
    private static final int MAX_DECIMAL_DIGITS = 4300;
    private static final Object COMPLEX = new Object();

    /** Not a literal: the value is the text as written (Python's SyntaxError or ValueError). */
    private static final class NotLiteral extends RuntimeException {
        static final NotLiteral INSTANCE = new NotLiteral();

        private NotLiteral() {
            super(null, null, false, false);
        }
    }

    /** How literal_eval sees a parsed part: signs apply to plain numbers only. */
    private enum Shape { NUMBER, SIGNED_NUMBER, OTHER }

    private record Term(Object value, Shape shape) {
    }

    private final String text;
    private int pos;
    private int nesting;
    private String unsupported;

    private PythonLiteral(String text) {
        this.text = text;
    }

    /**
     * The value {@code text} stands for: what the literal evaluates to ({@link String},
     * {@link Integer}/{@link Long}/{@link BigInteger}, {@link Double}, {@link Boolean}, {@code null},
     * {@link List}, {@link Map} with string keys), or {@code text} itself.
     *
     * @throws IllegalArgumentException for a literal of a type an inventory cannot hold
     */
    static Object read(String text) {
        PythonLiteral parser = new PythonLiteral(text);
        Object value;
        try {
            value = parser.parse();
        } catch (NotLiteral e) {
            return text;
        }
        if (parser.unsupported != null) {
            throw new IllegalArgumentException("'" + text + "' is a Python " + parser.unsupported
                    + ", which an inventory variable cannot hold; quote it (\"'...'\") to keep it text");
        }
        return value;
    }

    private Object parse() {
        if (text.indexOf('\0') >= 0) {
            throw NotLiteral.INSTANCE;
        }
        skipBlanks();
        if (atEnd()) {
            throw NotLiteral.INSTANCE;
        }
        Term term = tupleOrExpression(true);
        skipBlanks();
        if (!atEnd()) {
            throw NotLiteral.INSTANCE;
        }
        return term.value();
    }

    /** {@code a}, or {@code a, b, ...} (a tuple); {@code topLevel} ends at the text's end, else at ')'. */
    private Term tupleOrExpression(boolean topLevel) {
        Term first = expression();
        if (!peekIs(',')) {
            return first;
        }
        List<Object> items = new ArrayList<>();
        items.add(first.value());
        while (take(',')) {
            skipBlanks();
            if (topLevel ? atEnd() : peekIs(')')) {
                break;
            }
            items.add(expression().value());
        }
        return new Term(items, Shape.OTHER);
    }

    /** A term, or {@code number + complex} (the only operator literal_eval allows). */
    private Term expression() {
        Term left = unary();
        if (!peekIs('+') && !peekIs('-')) {
            return left;
        }
        pos++;
        Term right = unary();
        boolean realLeft = left.shape() != Shape.OTHER && left.value() != COMPLEX;
        if (!realLeft || right.shape() != Shape.NUMBER || right.value() != COMPLEX) {
            throw NotLiteral.INSTANCE;
        }
        return new Term(COMPLEX, Shape.OTHER);
    }

    private Term unary() {
        skipBlanks();
        if (!peekIs('+') && !peekIs('-')) {
            return atom();
        }
        boolean negative = text.charAt(pos++) == '-';
        Term operand = atom(); // a second sign is not a number: atom() refuses it
        if (operand.shape() != Shape.NUMBER) {
            throw NotLiteral.INSTANCE;
        }
        return new Term(negative ? negate(operand.value()) : operand.value(), Shape.SIGNED_NUMBER);
    }

    private Term atom() {
        skipBlanks();
        if (atEnd()) {
            throw NotLiteral.INSTANCE;
        }
        char c = text.charAt(pos);
        if (Character.isDigit(c) && c < 128 || c == '.' && pos + 1 < text.length() && isAsciiDigit(text.charAt(pos + 1))) {
            return new Term(number(), Shape.NUMBER);
        }
        if (text.startsWith("...", pos)) {
            pos += 3;
            return unsupported("Ellipsis");
        }
        if (c == '\'' || c == '"' || isNameStart(c)) {
            return nameOrStrings();
        }
        return switch (c) {
            case '(' -> parenthesised();
            case '[' -> list();
            case '{' -> dictOrSet();
            default -> throw NotLiteral.INSTANCE;
        };
    }

    private Term parenthesised() {
        open();
        skipBlanks();
        if (take(')')) {
            nesting--;
            return new Term(new ArrayList<>(), Shape.OTHER);
        }
        Term inner = tupleOrExpression(false); // parentheses alone make no tuple: (5) is 5
        expect(')');
        nesting--;
        return inner;
    }

    private Term list() {
        open();
        List<Object> items = new ArrayList<>();
        skipBlanks();
        while (!take(']')) {
            items.add(expression().value());
            skipBlanks();
            if (!take(',')) {
                expect(']');
                break;
            }
            skipBlanks();
        }
        nesting--;
        return new Term(items, Shape.OTHER);
    }

    private Term dictOrSet() {
        open();
        skipBlanks();
        if (take('}')) {
            nesting--;
            return new Term(new LinkedHashMap<>(), Shape.OTHER);
        }
        Term first = expression();
        skipBlanks();
        if (!peekIs(':')) {
            while (take(',')) {
                skipBlanks();
                if (peekIs('}')) {
                    break;
                }
                expression();
            }
            expect('}');
            nesting--;
            return unsupported("set");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        Term key = first;
        while (true) {
            expect(':');
            Object value = expression().value();
            map.put(key(key.value()), value);
            skipBlanks();
            if (!take(',')) {
                break;
            }
            skipBlanks();
            if (peekIs('}')) {
                break;
            }
            key = expression();
        }
        expect('}');
        nesting--;
        return new Term(map, Shape.OTHER);
    }

    /** A mapping key as JSON (and so {@code ansible-inventory}) writes it. */
    private String key(Object key) {
        return switch (key) {
            case null -> "null";
            case String s -> s;
            case Boolean b -> b.toString();
            case Number n -> n.toString();
            default -> {
                unsupported("mapping key that is a " + (key instanceof List ? "list or tuple" : "mapping or set"));
                yield "";
            }
        };
    }

    private Term nameOrStrings() {
        StringBuilder joined = null;
        Boolean bytes = null;
        while (true) {
            skipBlanks();
            if (atEnd()) {
                break;
            }
            int start = pos;
            String prefix = "";
            if (isNameStart(text.charAt(pos))) {
                while (pos < text.length() && isNamePart(text.charAt(pos))) {
                    pos++;
                }
                prefix = text.substring(start, pos);
                if (pos >= text.length() || (text.charAt(pos) != '\'' && text.charAt(pos) != '"')) {
                    if (joined != null) {
                        pos = start; // a name after a string: not ours to read
                        break;
                    }
                    return name(prefix);
                }
                if (!List.of("r", "u", "b", "br", "rb", "f", "fr", "rf").contains(prefix.toLowerCase(Locale.ROOT))) {
                    throw NotLiteral.INSTANCE;
                }
            } else if (text.charAt(pos) != '\'' && text.charAt(pos) != '"') {
                break;
            }
            String lower = prefix.toLowerCase(Locale.ROOT);
            if (lower.contains("f")) {
                throw NotLiteral.INSTANCE; // an f-string is an expression (JoinedStr), never a literal
            }
            boolean isBytes = lower.contains("b");
            if (bytes != null && bytes != isBytes) {
                throw NotLiteral.INSTANCE; // Python cannot join bytes and text
            }
            bytes = isBytes;
            String value = string(lower.contains("r"), isBytes);
            joined = joined == null ? new StringBuilder(value) : joined.append(value);
        }
        if (joined == null) {
            throw NotLiteral.INSTANCE;
        }
        String value = joined.toString();
        if (Boolean.TRUE.equals(bytes)) {
            value = new String(value.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }
        return new Term(value, Shape.OTHER);
    }

    private Term name(String name) {
        return switch (name) {
            case "True" -> new Term(Boolean.TRUE, Shape.OTHER);
            case "False" -> new Term(Boolean.FALSE, Shape.OTHER);
            case "None" -> new Term(null, Shape.OTHER);
            case "set" -> {
                skipBlanks();
                expect('(');
                skipBlanks();
                expect(')');
                yield unsupported("set");
            }
            default -> throw NotLiteral.INSTANCE;
        };
    }

    /** One quoted string from its opening quote; bytes come back as one char per byte. */
    private String string(boolean raw, boolean bytes) {
        char quote = text.charAt(pos);
        boolean triple = text.startsWith(String.valueOf(quote).repeat(3), pos);
        String end = triple ? String.valueOf(quote).repeat(3) : String.valueOf(quote);
        pos += end.length();
        StringBuilder out = new StringBuilder();
        while (true) {
            if (atEnd()) {
                throw NotLiteral.INSTANCE; // unterminated
            }
            if (text.startsWith(end, pos)) {
                pos += end.length();
                return out.toString();
            }
            char c = text.charAt(pos++);
            if (bytes && c > 127) {
                throw NotLiteral.INSTANCE; // bytes can only contain ASCII literal characters
            }
            if (c != '\\') {
                out.append(c);
            } else if (atEnd()) {
                throw NotLiteral.INSTANCE;
            } else if (raw) {
                out.append(c).append(text.charAt(pos++)); // the backslash stays, but the quote cannot end it
            } else {
                escape(out, bytes);
            }
        }
    }

    private void escape(StringBuilder out, boolean bytes) {
        char c = text.charAt(pos++);
        switch (c) {
            case '\\', '\'', '"' -> out.append(c);
            case 'a' -> out.append('\u0007');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'v' -> out.append('\u000b');
            case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                int start = pos - 1;
                while (pos < text.length() && pos - start < 3 && text.charAt(pos) >= '0' && text.charAt(pos) <= '7') {
                    pos++;
                }
                int value = Integer.parseInt(text.substring(start, pos), 8);
                if (bytes && value > 0xff) {
                    throw NotLiteral.INSTANCE;
                }
                out.append((char) value);
            }
            case 'x' -> out.append((char) hex(2));
            case 'u', 'U', 'N' -> {
                if (bytes) {
                    out.append('\\').append(c); // not an escape in bytes
                } else if (c == 'N') {
                    out.appendCodePoint(namedCharacter());
                } else {
                    long value = hex(c == 'u' ? 4 : 8);
                    if (value > Character.MAX_CODE_POINT) {
                        throw NotLiteral.INSTANCE;
                    }
                    out.appendCodePoint((int) value);
                }
            }
            default -> out.append('\\').append(c); // an unknown escape keeps its backslash
        }
    }

    private long hex(int digits) {
        if (pos + digits > text.length()) {
            throw NotLiteral.INSTANCE;
        }
        String hex = text.substring(pos, pos + digits);
        if (!hex.chars().allMatch(ch -> Character.digit(ch, 16) >= 0 && ch < 128)) {
            throw NotLiteral.INSTANCE;
        }
        pos += digits;
        return Long.parseLong(hex, 16);
    }

    private int namedCharacter() {
        int close = text.indexOf('}', pos);
        if (atEnd() || text.charAt(pos) != '{' || close < 0) {
            throw NotLiteral.INSTANCE;
        }
        String name = text.substring(pos + 1, close);
        pos = close + 1;
        try {
            return Character.codePointOf(name);
        } catch (IllegalArgumentException e) {
            throw NotLiteral.INSTANCE;
        }
    }

    /** An unsigned number as Python's tokenizer reads it; one followed by a name char is not one. */
    private Object number() {
        int start = pos;
        if (text.charAt(pos) == '0' && pos + 1 < text.length() && "xXoObB".indexOf(text.charAt(pos + 1)) >= 0) {
            int radix = switch (Character.toLowerCase(text.charAt(pos + 1))) {
                case 'x' -> 16;
                case 'o' -> 8;
                default -> 2;
            };
            pos += 2;
            int digitsStart = pos;
            digits(radix);
            if (pos == digitsStart) {
                throw NotLiteral.INSTANCE;
            }
            return endOfNumber(narrow(new BigInteger(text.substring(digitsStart, pos).replace("_", ""), radix)));
        }
        digits(10);
        String integerPart = text.substring(start, pos);
        boolean isFloat = false;
        if (pos < text.length() && text.charAt(pos) == '.') {
            pos++;
            isFloat = true;
            if (pos < text.length() && isAsciiDigit(text.charAt(pos))) {
                digits(10);
            }
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            int mark = pos;
            pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            if (pos < text.length() && isAsciiDigit(text.charAt(pos))) {
                digits(10);
                isFloat = true;
            } else {
                pos = mark; // "1e" is 1 followed by a name: not a literal, found below
            }
        }
        String written = text.substring(start, pos).replace("_", "");
        if (pos < text.length() && (text.charAt(pos) == 'j' || text.charAt(pos) == 'J')) {
            pos++;
            endOfNumber(COMPLEX);
            unsupported("complex number");
            return COMPLEX;
        }
        if (isFloat) {
            return endOfNumber(Double.parseDouble(written));
        }
        String digits = integerPart.replace("_", "");
        if (digits.length() > 1 && digits.startsWith("0") && !digits.chars().allMatch(ch -> ch == '0')) {
            throw NotLiteral.INSTANCE; // leading zeros in decimal integer literals are not permitted
        }
        if (digits.length() > MAX_DECIMAL_DIGITS) {
            throw NotLiteral.INSTANCE;
        }
        return endOfNumber(narrow(new BigInteger(digits)));
    }

    /** Digits of a radix with single underscores between them. */
    private void digits(int radix) {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c < 128 && Character.digit(c, radix) >= 0) {
                pos++;
            } else if (c == '_' && pos + 1 < text.length() && text.charAt(pos + 1) < 128
                    && Character.digit(text.charAt(pos + 1), radix) >= 0 && pos > 0 && text.charAt(pos - 1) != '_') {
                pos++;
            } else {
                return;
            }
        }
    }

    private Object endOfNumber(Object value) {
        if (pos < text.length() && (isNamePart(text.charAt(pos)) || text.charAt(pos) == '.')) {
            throw NotLiteral.INSTANCE; // "5abc", "0b12", "1__0", "1.5.2"
        }
        return value;
    }

    private static Object negate(Object number) {
        return switch (number) {
            case Integer i -> narrow(BigInteger.valueOf(i).negate());
            case Long l -> narrow(BigInteger.valueOf(l).negate());
            case BigInteger b -> narrow(b.negate());
            case Double d -> -d;
            default -> number; // complex: refused anyway
        };
    }

    private static Object narrow(BigInteger value) {
        if (value.bitLength() < Integer.SIZE) {
            return value.intValue();
        }
        return value.bitLength() < Long.SIZE ? (Object) value.longValue() : value;
    }

    private Term unsupported(String type) {
        if (unsupported == null) {
            unsupported = type;
        }
        return new Term(null, Shape.OTHER);
    }

    private void open() {
        pos++;
        if (++nesting > MAX_NESTING) {
            throw NotLiteral.INSTANCE;
        }
    }

    /** Blanks and a {@code #} comment, which runs to the end (values are one line). */
    private void skipBlanks() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\f') {
                pos++;
            } else if (c == '#') {
                pos = text.length();
            } else {
                return;
            }
        }
    }

    private boolean atEnd() {
        return pos >= text.length();
    }

    private boolean peekIs(char c) {
        skipBlanks();
        return pos < text.length() && text.charAt(pos) == c;
    }

    private boolean take(char c) {
        if (peekIs(c)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!take(c)) {
            throw NotLiteral.INSTANCE;
        }
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isNameStart(char c) {
        return c == '_' || Character.isUnicodeIdentifierStart(c);
    }

    private static boolean isNamePart(char c) {
        return c == '_' || Character.isUnicodeIdentifierPart(c) && !Character.isIdentifierIgnorable(c);
    }
}
