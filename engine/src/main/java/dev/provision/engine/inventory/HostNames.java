package dev.provision.engine.inventory;

import com.google.common.net.InetAddresses;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What may name an inventory host, and what may be the address, the user or the sudo password of one.
 * Names end up as arguments of ssh, in file names of the fact cache and in rendered config files, so
 * a name such as {@code -oProxyCommand=...} or {@code h;touch x} must never get that far; a password
 * is sudo's one line.
 *
 * <p>A host name is a DNS name (Ansible's rule: dot-separated labels of letters, digits, {@code _}
 * and {@code -}, each starting with a letter, digit or {@code _} and ending with a letter or a
 * digit), an IPv4 or IPv6 address, or an <em>alias</em>: letters, digits and {@code . _ - @ +},
 * which needs {@code ansible_host} to say where the host is. None of them starts with {@code -},
 * holds whitespace, a control character or a shell metacharacter.
 */
final class HostNames {
    /** How a valid host name reaches its host. */
    enum Kind {
        /** A DNS name or an IP address: ssh can connect to the name itself. */
        ADDRESS,
        /** Anything else that is safe: only {@code ansible_host} says where the host is. */
        ALIAS
    }

    /** The variables whose values become ssh's destination or login name. */
    static final Set<String> ADDRESS_VARS = Set.of("ansible_host");
    static final Set<String> USER_VARS = Set.of("ansible_user", "ansible_ssh_user");
    /** The variables sudo reads its password from, as one line. */
    static final Set<String> PASSWORD_VARS = Set.of("ansible_become_password", "ansible_become_pass");

    static final String RULE = "a host name is a DNS name, an IP address, or an alias (letters, digits, . _ - @ +)"
            + " with ansible_host";
    private static final String LABEL = "\\w(?:[\\w-]*(?<![_-]))?";
    private static final Pattern DNS_NAME = Pattern.compile(LABEL + "(?:\\." + LABEL + ")*",
            Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern ALIAS = Pattern.compile("[\\p{L}\\p{N}._@+-]+");
    private static final Pattern USER = Pattern.compile("[\\p{L}\\p{N}._@+-]+");
    private static final String METACHARACTERS = ";|&$`'\"()<>*?{}[]\\!#~^,=:/%";

    private HostNames() {
    }

    /**
     * Checks an inventory host name.
     *
     * @param name as written; {@code null} for a YAML null key
     * @throws IllegalArgumentException with a one-line reason that quotes the name
     */
    static Kind check(String name) {
        if (name == null) {
            throw new IllegalArgumentException("a host name cannot be null (a '~' or 'null' key); " + RULE);
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a host name cannot be empty; " + RULE);
        }
        if (InetAddresses.isInetAddress(name)) {
            return Kind.ADDRESS; // before the metacharacters: an IPv6 address holds ':' and maybe '%'
        }
        unsafe(name).ifPresent(why -> {
            throw new IllegalArgumentException("host name '" + printable(name) + "' " + why + "; " + RULE);
        });
        if (DNS_NAME.matcher(name).matches()) {
            return Kind.ADDRESS;
        }
        if (ALIAS.matcher(name).matches() && !name.startsWith(".")) {
            return Kind.ALIAS;
        }
        throw new IllegalArgumentException("host name '" + printable(name) + "' is not a DNS name, an IP address or"
                + " an alias; " + RULE);
    }

    /**
     * Checks a variable that ssh would take as its destination or login name, or sudo as its
     * password; other variables pass.
     *
     * @param value as read; {@code null} (unset) passes
     * @throws IllegalArgumentException with a one-line reason (never quoting a password)
     */
    static void checkVariable(String name, Object value) {
        if (PASSWORD_VARS.contains(name)) {
            if (value instanceof String password && (password.indexOf('\n') >= 0 || password.indexOf('\r') >= 0)) {
                // sudo would take the second line for something else
                throw new IllegalArgumentException(name + " holds a line break; sudo reads the password as one line");
            }
            return;
        }
        boolean address = ADDRESS_VARS.contains(name);
        if (value == null || !(address || USER_VARS.contains(name))) {
            return;
        }
        if (!(value instanceof String || value instanceof Number)) {
            throw new IllegalArgumentException(name + " must be a string, not " + value.getClass().getSimpleName());
        }
        String text = value.toString();
        if (address && InetAddresses.isInetAddress(text)) {
            return;
        }
        String what = address ? "a DNS name or an IP address" : "a login name (letters, digits, '.', '_', '-', '@', '+')";
        unsafe(text).ifPresent(why -> {
            throw new IllegalArgumentException(name + " '" + printable(text) + "' " + why + "; it must be " + what);
        });
        boolean ok = address ? DNS_NAME.matcher(text.endsWith(".") ? text.substring(0, text.length() - 1) : text).matches()
                : USER.matcher(text).matches();
        if (!ok) {
            throw new IllegalArgumentException(name + " '" + printable(text) + "' is not " + what);
        }
    }

    /** Why a name may not reach a command line, if it may not. */
    private static Optional<String> unsafe(String name) {
        if (name.isBlank()) {
            return Optional.of("is blank");
        }
        if (name.startsWith("-")) {
            return Optional.of("starts with '-', which ssh would read as an option");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                return Optional.of("holds whitespace");
            }
            if (Character.isISOControl(c)) {
                return Optional.of("holds a control character");
            }
            if (METACHARACTERS.indexOf(c) >= 0) {
                return Optional.of("holds '" + c + "'");
            }
        }
        return Optional.empty();
    }

    /** The name with control characters escaped, so that the message stays one readable line. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        name.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.length() > 80 ? out.substring(0, 77) + "..." : out.toString();
    }
}
