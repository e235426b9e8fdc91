package dev.provision.modules.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Dotted numeric versions ({@code 13.0}, {@code 580.159.04}, {@code 2.11.0+cu130}). */
final class Versions {
    private static final Pattern LEADING = Pattern.compile("^(\\d+(?:\\.\\d+)*)");

    private Versions() {
    }

    /** The numeric components before any suffix ({@code 2.11.0+cu130} -> [2, 11, 0]); empty when none. */
    static List<Integer> components(String version) {
        Matcher m = LEADING.matcher(version.strip());
        List<Integer> parts = new ArrayList<>();
        if (m.find()) {
            for (String p : m.group(1).split("\\.")) {
                parts.add(Integer.parseInt(p.length() > 9 ? p.substring(0, 9) : p));
            }
        }
        return parts;
    }

    /** Compares numerically, missing components counting as 0 ({@code 13.0 == 13}). */
    static int compare(String a, String b) {
        List<Integer> x = components(a);
        List<Integer> y = components(b);
        for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
            int c = Integer.compare(i < x.size() ? x.get(i) : 0, i < y.size() ? y.get(i) : 0);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    static Optional<Integer> major(String version) {
        List<Integer> parts = components(version);
        return parts.isEmpty() ? Optional.empty() : Optional.of(parts.get(0));
    }

    /**
     * Whether {@code measured} is what a user meant by {@code expected}: every component the user
     * wrote matches ({@code 580} and {@code 580.159} match {@code 580.159.04}); a suffix written by
     * the user must match exactly ({@code 2.11.0+cu130}).
     */
    static boolean matches(String measured, String expected) {
        String e = expected.strip();
        if (e.contains("+")) {
            return measured.strip().equals(e);
        }
        List<Integer> want = components(e);
        List<Integer> have = components(measured);
        return !want.isEmpty() && have.size() >= want.size() && have.subList(0, want.size()).equals(want);
    }
}
