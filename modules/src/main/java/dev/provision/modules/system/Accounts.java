package dev.provision.modules.system;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ProbeResult;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The account database as {@code user} and {@code group} read it: the probes ({@code getent passwd},
 * {@code getent group}, {@code getent shadow}, {@code id -Gn}; through NSS, so directory accounts
 * count as they do for Ansible's {@code pwd}/{@code grp}), pure parsers of their output, and the
 * checks that keep values out of option positions and out of the colon-separated files.
 *
 * <p>Each probe asks for one key, so that the argument vector is the same one a plan's
 * {@link dev.provision.modules.spi.Plan#afterwards} names: a dry run in which an earlier task adds a
 * group sees that group here.
 */
final class Accounts {
    /**
     * shadow-utils' rule for user and group names as Debian relaxes it: a letter or {@code _} first
     * (so never an option, never a number), then letters, digits, {@code . _ -}, an optional final
     * {@code $} (Samba machine accounts); at most 32 characters.
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_](?:[A-Za-z0-9._-]{0,31}|[A-Za-z0-9._-]{0,30}\\$)");
    static final long MAX_ID = 4_294_967_294L; // (uid_t) -1 means "no change" to the kernel
    private static final Pattern NUMBER = Pattern.compile("[0-9]+");

    private Accounts() {
    }

    /** One {@code passwd} entry; {@code uid}/{@code gid} are empty only in a dry run's forecast of a new account. */
    record Passwd(String name, OptionalLong uid, OptionalLong gid, String comment, String home, String shell) {
        Passwd {
            requireNonNull(name, "name cannot be null");
            requireNonNull(uid, "uid cannot be null");
            requireNonNull(gid, "gid cannot be null");
            requireNonNull(comment, "comment cannot be null");
            requireNonNull(home, "home cannot be null");
            requireNonNull(shell, "shell cannot be null");
        }

        /** The line {@code getent passwd} prints for this entry (a forecast's answer). */
        String line() {
            return String.join(":", name, "x", text(uid), text(gid), comment, home, shell) + "\n";
        }
    }

    /** One {@code group} entry; {@code gid} is empty only in a dry run's forecast of a new group. */
    record Group(String name, OptionalLong gid, List<String> members) {
        Group {
            requireNonNull(name, "name cannot be null");
            requireNonNull(gid, "gid cannot be null");
            members = List.copyOf(members);
        }

        String line() {
            return String.join(":", name, "x", text(gid), String.join(",", members)) + "\n";
        }
    }

    private static String text(OptionalLong id) {
        return id.isPresent() ? Long.toString(id.getAsLong()) : "";
    }

    /** @throws ModuleException naming {@code what} when {@code name} is not a user or group name */
    static String requireName(String what, String name) throws ModuleException {
        if (!NAME.matcher(name).matches()) {
            throw new ModuleException(what + " '" + printable(name) + "' is not a valid name: a letter or _ first, then letters,"
                    + " digits, '.', '_' or '-' (an optional final '$'), at most 32 characters");
        }
        return name;
    }

    /** A group given by name or by gid ({@code group: 1000}, as Ansible allows). */
    static String requireGroupReference(String what, String group) throws ModuleException {
        if (NUMBER.matcher(group).matches()) {
            requireId(what, Long.parseLong(group));
            return group;
        }
        return requireName(what, group);
    }

    static long requireId(String what, long id) throws ModuleException {
        if (id < 0 || id > MAX_ID) {
            throw new ModuleException(what + " must be between 0 and " + MAX_ID + ", got " + id);
        }
        return id;
    }

    /**
     * A value that goes into one field of {@code /etc/passwd} (a comment, a home, a shell): no
     * {@code :} (the field separator) and no control characters (a newline would start a new entry).
     */
    static String requireField(String what, String value) throws ModuleException {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ':' || c < 0x20 || c == 0x7f) {
                throw new ModuleException(what + " '" + printable(value) + "' cannot hold "
                        + (c == ':' ? "':' (the field separator of /etc/passwd)" : "control characters (a newline would start a new entry)"));
            }
        }
        return value;
    }

    /** The value with control characters shown as {@code \n}, {@code \x01}: an error message stays one line. */
    static String printable(String value) {
        StringBuilder sb = new StringBuilder();
        value.chars().forEach(c -> {
            if (c == '\n') {
                sb.append("\\n");
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\x%02x", c));
            } else {
                sb.append((char) c);
            }
        });
        return sb.toString();
    }

    static List<String> passwdProbe(String nameOrUid) {
        return List.of("getent", "passwd", nameOrUid);
    }

    static List<String> groupProbe(String nameOrGid) {
        return List.of("getent", "group", nameOrGid);
    }

    static List<String> shadowProbe(String name) {
        return List.of("getent", "shadow", name);
    }

    static List<String> groupsProbe(String name) {
        return List.of("id", "-Gn", name);
    }

    /** What {@code getent} answers for a key it does not find (exit 2, nothing printed). */
    static ProbeResult notFound() {
        return new ProbeResult(2, "", "");
    }

    static Optional<Passwd> passwd(HostView host, String nameOrUid) throws ModuleException {
        Optional<String> line = getent(host, passwdProbe(nameOrUid));
        try {
            return line.map(Accounts::parsePasswd);
        } catch (IllegalArgumentException e) {
            throw new ModuleException("getent passwd " + nameOrUid + " printed " + e.getMessage(), e);
        }
    }

    static Optional<Group> group(HostView host, String nameOrGid) throws ModuleException {
        Optional<String> line = getent(host, groupProbe(nameOrGid));
        try {
            return line.map(Accounts::parseGroup);
        } catch (IllegalArgumentException e) {
            throw new ModuleException("getent group " + nameOrGid + " printed " + e.getMessage(), e);
        }
    }

    /**
     * The password field of the shadow entry; empty when there is none, which for an existing user
     * means the probe may not read it (shadow is root's).
     */
    static Optional<String> shadowHash(HostView host, String name) throws ModuleException {
        return getent(host, shadowProbe(name)).map(line -> {
            String[] f = line.split(":", -1);
            return f.length > 1 ? f[1] : "";
        });
    }

    /** {@code id -Gn NAME}: the primary group first, then the others; empty when id knows no such user. */
    static List<String> groupNames(HostView host, String name) throws ModuleException {
        ProbeResult r = host.probe(groupsProbe(name).toArray(String[]::new));
        if (!r.ok()) {
            return List.of();
        }
        return parseGroupNames(r.stdout());
    }

    static List<String> parseGroupNames(String out) {
        String line = out.strip();
        return line.isEmpty() ? List.of() : Arrays.asList(line.split("\\s+"));
    }

    /** The first line getent prints for the key, or empty for "not found" (exit 2). */
    private static Optional<String> getent(HostView host, List<String> argv) throws ModuleException {
        ProbeResult r = host.probe(argv.toArray(String[]::new));
        if (r.exitCode() == 2) {
            return Optional.empty();
        }
        if (!r.ok() || r.stdout().isBlank()) {
            throw new ModuleException(String.join(" ", argv) + " failed (exit " + r.exitCode() + ")"
                    + (r.stderr().isBlank() ? "" : ": " + r.stderr().strip()));
        }
        return Optional.of(r.stdout().lines().findFirst().orElse(""));
    }

    /** {@code name:password:uid:gid:gecos:home:shell}. */
    static Passwd parsePasswd(String line) {
        String[] f = line.split(":", -1);
        if (f.length < 7) {
            throw new IllegalArgumentException("no passwd entry: '" + line + "'");
        }
        return new Passwd(f[0], id(f[2]), id(f[3]), f[4], f[5], f[6]);
    }

    /** {@code name:password:gid:member,member}. */
    static Group parseGroup(String line) {
        String[] f = line.split(":", -1);
        if (f.length < 4) {
            throw new IllegalArgumentException("no group entry: '" + line + "'");
        }
        List<String> members = f[3].isEmpty() ? List.of() : Arrays.asList(f[3].split(","));
        return new Group(f[0], id(f[2]), members);
    }

    private static OptionalLong id(String field) {
        if (field.isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(field));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a non-numeric id '" + field + "'", e);
        }
    }
}
