package dev.provision.modules.cluster;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An OpenSSH public key line: optional options (authorized_keys only), the key type, the base64
 * blob and an optional comment. Two keys are the same key when type and blob are equal; options
 * and comments do not count.
 */
record PublicKey(String options, String type, String blob, String comment) {
    private static final Set<String> TYPES = Set.of("ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256",
            "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com");
    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]+={0,2}");

    PublicKey {
        requireNonNull(options, "options cannot be null");
        requireNonNull(type, "type cannot be null");
        requireNonNull(blob, "blob cannot be null");
        requireNonNull(comment, "comment cannot be null");
    }

    /** The identity the comparisons use. */
    String identity() {
        return type + " " + blob;
    }

    /**
     * Reads a key line; empty for blank and comment lines and for lines that are not keys. Options
     * may hold quoted strings with blanks ({@code from="a, b"}).
     */
    static Optional<PublicKey> parse(String line) {
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("#")) {
            return Optional.empty();
        }
        String options = "";
        if (!isType(firstWord(s))) {
            int end = endOfOptions(s);
            options = s.substring(0, end);
            s = s.substring(end).strip();
        }
        String[] parts = s.split("\\s+", 3);
        if (parts.length < 2 || !isType(parts[0]) || !BASE64.matcher(parts[1]).matches()) {
            return Optional.empty();
        }
        return Optional.of(new PublicKey(options, parts[0], parts[1], parts.length > 2 ? parts[2] : ""));
    }

    private static boolean isType(String word) {
        return TYPES.contains(word) || word.endsWith("-cert-v01@openssh.com");
    }

    private static String firstWord(String s) {
        return s.split("\\s+", 2)[0];
    }

    /** The index of the first blank outside double quotes. */
    private static int endOfOptions(String s) {
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && quoted) {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && Character.isWhitespace(c)) {
                return i;
            }
        }
        return s.length();
    }
}
