package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The filesystem holding a path, from {@code findmnt -n -P -o TARGET,SOURCE,FSTYPE,OPTIONS --target PATH}
 * ({@code TARGET="/shared" SOURCE="nfs1:/export" FSTYPE="nfs4" OPTIONS="rw,relatime,..."}; util-linux
 * escapes odd characters in the values as {@code \x20}).
 */
record FindmntOutput(String target, String source, String fstype, List<String> options) {
    private static final Pattern PAIR = Pattern.compile("([A-Z-]+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    FindmntOutput {
        requireNonNull(target, "target cannot be null");
        requireNonNull(source, "source cannot be null");
        requireNonNull(fstype, "fstype cannot be null");
        options = List.copyOf(options);
    }

    static List<String> command(String path) {
        return List.of("findmnt", "-n", "-P", "-o", "TARGET,SOURCE,FSTYPE,OPTIONS", "--target", path);
    }

    boolean readOnly() {
        return options.contains("ro");
    }

    /** The first line's filesystem; empty when there is none. */
    static Optional<FindmntOutput> parse(String output) {
        String first = output.lines().filter(l -> !l.isBlank()).findFirst().orElse("");
        Map<String, String> pairs = new LinkedHashMap<>();
        Matcher m = PAIR.matcher(first);
        while (m.find()) {
            pairs.put(m.group(1), unescape(m.group(2)));
        }
        if (!pairs.containsKey("TARGET")) {
            return Optional.empty();
        }
        String options = pairs.getOrDefault("OPTIONS", "");
        return Optional.of(new FindmntOutput(pairs.get("TARGET"), pairs.getOrDefault("SOURCE", ""),
                pairs.getOrDefault("FSTYPE", ""), options.isEmpty() ? List.of() : List.of(options.split(","))));
    }

    private static String unescape(String s) {
        Matcher m = Pattern.compile("\\\\x([0-9a-fA-F]{2})").matcher(s);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 16))));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
