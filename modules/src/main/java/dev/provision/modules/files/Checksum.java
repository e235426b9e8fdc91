package dev.provision.modules.files;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ProbeResult;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A checksum as Ansible's {@code get_url} writes it: {@code ALGORITHM:HEX}, the algorithm one of
 * {@code md5}, {@code sha1}, {@code sha224}, {@code sha256}, {@code sha384}, {@code sha512}. The
 * hex digits are kept in lower case. Each algorithm has its coreutils tool ({@code sha256sum}), which
 * computes the digest on the host: {@link #probe} to compare, the download script to verify.
 *
 * @param algorithm the lower-case name ({@code sha256})
 * @param hex the expected digest, lower-case hex of the algorithm's length
 */
record Checksum(String algorithm, String hex) {
    /** Digest length in hex digits, by algorithm, with the JDK's name for it. */
    private static final Map<String, Integer> HEX_LENGTH = Map.of(
            "md5", 32, "sha1", 40, "sha224", 56, "sha256", 64, "sha384", 96, "sha512", 128);
    private static final Map<String, String> JDK_NAME = Map.of(
            "md5", "MD5", "sha1", "SHA-1", "sha224", "SHA-224", "sha256", "SHA-256", "sha384", "SHA-384", "sha512", "SHA-512");

    Checksum {
        requireNonNull(algorithm, "algorithm cannot be null");
        requireNonNull(hex, "hex cannot be null");
        if (!HEX_LENGTH.containsKey(algorithm)) {
            throw new IllegalArgumentException("unknown algorithm " + algorithm);
        }
    }

    /**
     * Reads {@code ALGORITHM:HEX}; empty for the empty string (no checksum).
     *
     * @throws ModuleException naming what is wrong: no colon, an unknown algorithm, a URL instead
     *     of digits (Ansible's {@code sha256:https://.../SHA256SUMS}, not supported), digits of the
     *     wrong length or not hex
     */
    static Optional<Checksum> parse(String written) throws ModuleException {
        String text = written.strip();
        if (text.isEmpty()) {
            return Optional.empty();
        }
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new ModuleException("checksum '" + text + "' is not ALGORITHM:HEX (such as sha256:9f86d0...)");
        }
        String algorithm = text.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String value = text.substring(colon + 1).strip();
        if (!HEX_LENGTH.containsKey(algorithm)) {
            throw new ModuleException("checksum algorithm '" + algorithm + "' is not one of md5, sha1, sha224, sha256, sha384, sha512");
        }
        if (value.contains("://")) {
            throw new ModuleException("checksum " + algorithm + ":URL (a checksum file to download) is not supported: "
                    + "give the digest itself, " + algorithm + ":HEX");
        }
        String hex = value.toLowerCase(Locale.ROOT);
        if (hex.length() != HEX_LENGTH.get(algorithm) || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new ModuleException("checksum " + algorithm + ":" + value + " is not " + HEX_LENGTH.get(algorithm)
                    + " hex digits, as a " + algorithm + " digest is");
        }
        return Optional.of(new Checksum(algorithm, hex));
    }

    /** The coreutils program that prints this digest ({@code sha256sum}). */
    String tool() {
        return algorithm + "sum";
    }

    /** The read-only probe that prints the digest of {@code path} on the host (NUL-ended, so no name is escaped). */
    java.util.List<String> probe(String path) {
        return java.util.List.of(tool(), "-z", "--", path);
    }

    /** The digest of {@code content} computed here, in this checksum's algorithm. */
    String of(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(JDK_NAME.get(algorithm)).digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has " + algorithm, e);
        }
    }

    /**
     * The digest of the file at {@code path} on the host: read by the tool there, or, in a dry run
     * where an earlier task changes the file, computed here from the forecast content (the tool would
     * read the old one).
     */
    String digestOf(HostView host, String path) throws ModuleException {
        if (host.changesPending(path)) {
            return of(host.readFile(path).orElseThrow(() -> new ModuleException("cannot read " + path)));
        }
        ProbeResult r = host.probe(probe(path).toArray(String[]::new));
        String out = r.stdout();
        int end = out.indexOf(' ');
        if (!r.ok() || end <= 0) {
            throw new ModuleException("cannot compute the " + algorithm + " of " + path + ": " + r.stderr().strip());
        }
        return out.substring(0, end).toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return algorithm + ":" + hex;
    }
}
