package dev.provision.modules.system;

import dev.provision.modules.spi.ProbeResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code seboolean} and {@code sefcontext} read of SELinux: read-only probes and pure parsers of
 * their output, as libselinux's {@code getsebool} and policycoreutils' {@code semanage} print it
 * (semanage under {@code LC_ALL=C}, since it translates "on", "off" and its headings).
 */
final class Selinux {
    /** Exits 0 when SELinux is enabled, 1 when it is not (libselinux-utils). */
    static final List<String> ENABLED = List.of("selinuxenabled");
    /** Every boolean with its live and persistent value. */
    static final List<String> BOOLEANS = List.of("env", "LC_ALL=C", "semanage", "boolean", "-l");
    /** The local file context rules (what {@code semanage fcontext -a} added), in the order they apply. */
    static final List<String> LOCAL_FCONTEXTS = List.of("env", "LC_ALL=C", "semanage", "fcontext", "-l", "-C");
    /** A boolean's name: letters, digits and '_' (getsebool would read a leading '-' as an option). */
    static final Pattern BOOLEAN_NAME = Pattern.compile("[A-Za-z0-9_]+");
    /** {@code getsebool}'s (and setsebool's) answer when SELinux is disabled. */
    static final String DISABLED = "SELinux is disabled";

    // getsebool.c: "%s --> %s" or "%s --> %s pending: %s" (name, active, pending)
    private static final Pattern GETSEBOOL = Pattern.compile("(\\S+) --> (on|off)(?: pending: (on|off))?");
    // seobject.py booleanRecords.list: "%-30s (%-5s,%5s)  %s" (name, State = active, Default = persistent, description)
    private static final Pattern BOOLEAN_ROW = Pattern.compile("(\\S+)\\s+\\((on|off)\\s*,\\s*(on|off)\\)(?:\\s+.*)?");
    // seobject.py fcontextRecords.list: "%-50s %-18s %s:%s:%s[:%s] " or "%-50s %-18s <<None>>"
    private static final Pattern FCONTEXT_ROW = Pattern.compile("(\\S+)\\s+(all files|regular file|directory|character device"
            + "|block device|socket|symbolic link|named pipe)\\s+(<<None>>|[^\\s:]+:[^\\s:]+:[^\\s:]+(?::\\S+)?)\\s*");

    private Selinux() {
    }

    static List<String> getsebool(String name) {
        return List.of("getsebool", name);
    }

    /** A boolean's live value ({@code active}) and the one a commit would make live ({@code pending}). */
    record LiveBoolean(String name, boolean active, boolean pending) {
    }

    /** The line {@code getsebool NAME} prints; empty when the output is not one. */
    static Optional<LiveBoolean> parseGetsebool(String stdout) {
        Matcher m = GETSEBOOL.matcher(stdout.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        boolean active = m.group(2).equals("on");
        return Optional.of(new LiveBoolean(m.group(1), active, m.group(3) == null ? active : m.group(3).equals("on")));
    }

    /** What getsebool prints for a boolean whose live and pending value is {@code on}. */
    static ProbeResult getseboolAnswer(String name, boolean on) {
        return new ProbeResult(0, name + " --> " + onOff(on) + "\n", "");
    }

    /** One row of {@code semanage boolean -l}: the live value and the persistent one (the policy store's). */
    record StoredBoolean(boolean active, boolean persistent) {
    }

    /** {@code semanage boolean -l}, name to values; the heading and blank lines are skipped. */
    static Map<String, StoredBoolean> parseBooleans(String stdout) {
        Map<String, StoredBoolean> all = new LinkedHashMap<>();
        for (String line : stdout.lines().toList()) {
            Matcher m = BOOLEAN_ROW.matcher(line.strip());
            if (m.matches()) {
                all.put(m.group(1), new StoredBoolean(m.group(2).equals("on"), m.group(3).equals("on")));
            }
        }
        return all;
    }

    /** {@code stdout} of {@code semanage boolean -l} with {@code name}'s row saying {@code value}, live and persistent. */
    static String withBoolean(String stdout, String name, boolean value) {
        StringBuilder out = new StringBuilder();
        for (String line : stdout.split("\n", -1)) {
            Matcher m = BOOLEAN_ROW.matcher(line.strip());
            if (m.matches() && m.group(1).equals(name)) {
                String description = line.substring(line.indexOf(')') + 1).strip();
                line = String.format("%-30s (%-5s,%5s)  %s", name, onOff(value), onOff(value), description);
            }
            out.append(line).append('\n');
        }
        return out.substring(0, out.length() - 1);
    }

    static String onOff(boolean on) {
        return on ? "on" : "off";
    }

    /** Ansible's {@code ftype} letters and the names semanage lists them by (libsemanage's fcontext_record.c). */
    static final Map<String, String> FILE_TYPES = Map.of("a", "all files", "f", "regular file", "d", "directory",
            "c", "character device", "b", "block device", "s", "socket", "l", "symbolic link", "p", "named pipe");

    /**
     * A file context: SELinux user, role, type and, with MLS on, level; empty level when the policy has
     * no MLS.
     */
    record Context(String user, String role, String type, Optional<String> level) {
        static Context parse(String text) {
            String[] parts = text.split(":", 4);
            return new Context(parts[0], parts[1], parts[2], parts.length == 4 ? Optional.of(parts[3]) : Optional.empty());
        }

        @Override
        public String toString() {
            return user + ":" + role + ":" + type + level.map(l -> ":" + l).orElse("");
        }
    }

    /** One rule: a path expression, the file type it is for (semanage's name for it), its context (none: {@code <<None>>}). */
    record FileContext(String target, String fileType, Optional<Context> context) {
        String row() {
            return String.format("%-50s %-18s %s ", target, fileType, context.map(Context::toString).orElse("<<None>>"));
        }
    }

    /** {@code semanage fcontext -l [-C]}: the rules in the order listed; headings and equivalences are skipped. */
    static List<FileContext> parseFileContexts(String stdout) {
        List<FileContext> rules = new ArrayList<>();
        for (String line : stdout.lines().toList()) {
            Matcher m = FCONTEXT_ROW.matcher(line);
            if (m.matches()) {
                rules.add(new FileContext(m.group(1), m.group(2),
                        m.group(3).equals("<<None>>") ? Optional.empty() : Optional.of(Context.parse(m.group(3)))));
            }
        }
        return rules;
    }

    /**
     * {@code stdout} of {@code semanage fcontext -l -C} with the rule for ({@code target}, {@code fileType})
     * replaced by {@code rule}, or removed when empty, or, when there was none, added after the last one.
     */
    static String withFileContext(String stdout, String target, String fileType, Optional<FileContext> rule) {
        List<String> lines = new ArrayList<>(stdout.lines().toList());
        int last = -1;
        boolean found = false;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = FCONTEXT_ROW.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            if (m.group(1).equals(target) && m.group(2).equals(fileType)) {
                found = true;
                if (rule.isPresent()) {
                    lines.set(i, rule.get().row());
                } else {
                    lines.remove(i--);
                    continue;
                }
            }
            last = i;
        }
        if (!found && rule.isPresent()) {
            if (last < 0) {
                lines.add(0, String.format("%-50s %-18s %s", "SELinux fcontext", "type", "Context"));
                lines.add(1, "");
                last = 1;
            }
            lines.add(last + 1, rule.get().row());
        }
        return String.join("\n", lines) + "\n";
    }
}
