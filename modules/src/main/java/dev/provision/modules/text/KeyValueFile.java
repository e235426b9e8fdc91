package dev.provision.modules.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Files of {@code key = value} lines such as {@code /etc/sysctl.d/*.conf}: blank lines and comments
 * ({@code #} or {@code ;} first) are kept as written. Keys are compared exactly as written (no
 * {@code /} versus {@code .} folding for sysctl; a leading {@code -} is part of the key). When a key
 * is assigned more than once the last assignment wins, as sysctl reads it. Pure and thread-safe.
 */
public final class KeyValueFile {
    private static final Pattern ASSIGNMENT = Pattern.compile("^\\s*([^#;=\\s][^=]*?)\\s*=\\s*(.*?)\\s*$");

    private KeyValueFile() {
    }

    /** The assignments in order of first appearance, each with its last value. */
    public static Map<String, String> parse(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : TextLines.of(text).lines) {
            Matcher m = ASSIGNMENT.matcher(line);
            if (m.matches()) {
                values.put(m.group(1), m.group(2));
            }
        }
        return values;
    }

    /** The value the file gives the key (its last assignment). */
    public static Optional<String> get(String text, String key) {
        return Optional.ofNullable(parse(text).get(key));
    }

    /**
     * Sets a key: the first assignment becomes {@code key = value} (kept as written when the value
     * is already right), later assignments of the key are removed (they would override it), and a
     * missing key is appended at the end. Returns the input unchanged when the file already says so.
     *
     * @throws IllegalArgumentException when the key or value would not read back as one assignment
     */
    public static String set(String text, String key, String value) {
        requireSingleLine(key, value);
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        boolean assigned = false;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = ASSIGNMENT.matcher(lines.get(i));
            if (!m.matches() || !m.group(1).equals(key)) {
                continue;
            }
            if (assigned) {
                lines.remove(i--);
            } else {
                if (!m.group(2).equals(value.strip())) {
                    lines.set(i, key + " = " + value.strip());
                }
                assigned = true;
            }
        }
        if (!assigned) {
            lines.add(key + " = " + value.strip());
        }
        return TextLines.render(text, lines);
    }

    /** Removes every assignment of the key; the input unchanged when there is none. */
    public static String remove(String text, String key) {
        List<String> lines = new ArrayList<>(TextLines.of(text).lines);
        lines.removeIf(line -> {
            Matcher m = ASSIGNMENT.matcher(line);
            return m.matches() && m.group(1).equals(key);
        });
        return TextLines.render(text, lines);
    }

    private static void requireSingleLine(String key, String value) {
        if (key.isBlank() || key.contains("=") || key.contains("\n") || !key.equals(key.strip())
                || key.startsWith("#") || key.startsWith(";")) {
            throw new IllegalArgumentException("not a usable key: '" + key + "'");
        }
        if (value.contains("\n")) {
            throw new IllegalArgumentException("the value of " + key + " must be a single line");
        }
    }
}
