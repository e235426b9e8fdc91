package dev.provision.engine.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands Ansible host ranges: {@code node[01:64]} (zero-padded like the start), {@code node[1:8]},
 * {@code node[1:9:2]} (with a step), {@code rack[a:c]-n[1:2]} (several ranges multiply).
 */
final class HostRanges {
    /** A typo such as {@code node[1:9999999]} must not eat the controller's memory. */
    static final int MAX_HOSTS = 100_000;
    private static final Pattern RANGE = Pattern.compile("\\[([^\\]]*)\\]");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern LETTER = Pattern.compile("[a-zA-Z]");

    private HostRanges() {
    }

    /** Whether the name holds a range at all. */
    static boolean hasRange(String name) {
        return RANGE.matcher(name).find();
    }

    /**
     * The names a pattern stands for, in order.
     *
     * @throws IllegalArgumentException with a one-line reason when a range is malformed
     */
    static List<String> expand(String pattern) {
        List<String> out = new ArrayList<>();
        expand(pattern, out);
        return out;
    }

    private static void expand(String pattern, List<String> out) {
        Matcher m = RANGE.matcher(pattern);
        if (!m.find()) {
            if (pattern.contains("[") || pattern.contains("]")) {
                throw new IllegalArgumentException("unbalanced '[' or ']'");
            }
            out.add(pattern);
            return;
        }
        String head = pattern.substring(0, m.start());
        String tail = pattern.substring(m.end());
        if (head.contains("[") || head.contains("]")) {
            throw new IllegalArgumentException("unbalanced '[' or ']'");
        }
        for (String value : values(m.group(1))) {
            expand(head + value + tail, out);
            if (out.size() > MAX_HOSTS) {
                throw new IllegalArgumentException("expands to more than " + MAX_HOSTS + " hosts");
            }
        }
    }

    private static List<String> values(String range) {
        String[] parts = range.split(":", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new IllegalArgumentException("a range is written [start:end] or [start:end:step], not [" + range + "]");
        }
        String start = parts[0].trim().isEmpty() ? "0" : parts[0].trim();
        String end = parts[1].trim();
        int step = 1;
        if (parts.length == 3) {
            if (!NUMBER.matcher(parts[2].trim()).matches() || Integer.parseInt(parts[2].trim()) == 0) {
                throw new IllegalArgumentException("the step of [" + range + "] must be a positive number");
            }
            step = Integer.parseInt(parts[2].trim());
        }
        List<String> values = new ArrayList<>();
        if (NUMBER.matcher(start).matches() && NUMBER.matcher(end).matches()) {
            long from = Long.parseLong(start);
            long to = Long.parseLong(end);
            if (from > to) {
                throw new IllegalArgumentException("start " + start + " is after end " + end);
            }
            if ((to - from) / step >= MAX_HOSTS) {
                throw new IllegalArgumentException("expands to more than " + MAX_HOSTS + " hosts");
            }
            int width = start.startsWith("0") && start.length() > 1 ? start.length() : 0;
            for (long i = from; i <= to; i += step) {
                String digits = Long.toString(i);
                values.add(digits.length() < width ? "0".repeat(width - digits.length()) + digits : digits);
            }
            return values;
        }
        if (LETTER.matcher(start).matches() && LETTER.matcher(end).matches()
                && Character.isLowerCase(start.charAt(0)) == Character.isLowerCase(end.charAt(0))) {
            char from = start.charAt(0);
            char to = end.charAt(0);
            if (from > to) {
                throw new IllegalArgumentException("start " + start + " is after end " + end);
            }
            for (char c = from; c <= to; c += (char) step) {
                values.add(String.valueOf(c));
            }
            return values;
        }
        throw new IllegalArgumentException("[" + range + "] must go from number to number or from letter to letter");
    }
}
