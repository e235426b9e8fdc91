package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Open-files and locked-memory limits from {@link #SCRIPT}'s two lines ({@code ulimit -n} then
 * {@code ulimit -l}) or from bash's {@code ulimit -a} table ({@code open files  (-n) 20000},
 * {@code max locked memory  (kbytes, -l) unlimited}).
 *
 * @param nofile a number or {@code unlimited}
 * @param memlockKb kilobytes or {@code unlimited}
 */
record Ulimits(String nofile, String memlockKb) {
    static final String SCRIPT = "ulimit -n; ulimit -l";
    static final String UNLIMITED = "unlimited";
    private static final Pattern TABLE = Pattern.compile("\\(.*?-([nl])\\)\\s+(\\S+)\\s*$");

    Ulimits {
        requireNonNull(nofile, "nofile cannot be null");
        requireNonNull(memlockKb, "memlockKb cannot be null");
    }

    /**
     * @throws IllegalArgumentException when neither form is found
     */
    static Ulimits parse(String output) {
        String nofile = null;
        String memlock = null;
        for (String line : output.lines().toList()) {
            Matcher m = TABLE.matcher(line);
            if (m.find()) {
                if (m.group(1).equals("n")) {
                    nofile = m.group(2);
                } else {
                    memlock = m.group(2);
                }
            }
        }
        if (nofile == null || memlock == null) {
            // login shells may print a banner or motd first: the answers are the last two lines
            List<String> values = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
            if (values.size() >= 2 && limit(values.get(values.size() - 2)) && limit(values.get(values.size() - 1))) {
                nofile = values.get(values.size() - 2);
                memlock = values.get(values.size() - 1);
            }
        }
        if (nofile == null || memlock == null) {
            throw new IllegalArgumentException("no nofile/memlock limits in the output");
        }
        return new Ulimits(nofile, memlock);
    }

    private static boolean limit(String s) {
        return s.matches("\\d+") || s.equals(UNLIMITED);
    }

    /** The value as a number; empty for {@code unlimited}. */
    static Optional<Long> number(String value) {
        return value.matches("\\d+") ? Optional.of(Long.parseLong(value)) : Optional.empty();
    }

    /** Whether {@code value} is unlimited or at least {@code minimum}. */
    static boolean atLeast(String value, long minimum) {
        return value.equals(UNLIMITED) || number(value).map(n -> n >= minimum).orElse(false);
    }
}
