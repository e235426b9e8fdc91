package dev.provision.modules.system;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The first public key of an OpenPGP key file (ASCII-armored or binary), as {@code rpm --import}
 * names it: its v4 fingerprint (SHA-1 of the key packet, RFC 4880 12.2), the key id (the last 8
 * bytes) and the creation time. rpm records an imported key as the package
 * {@code gpg-pubkey-SHORTID-CREATED}: the last 8 hex digits of the key id and the creation time in
 * hex, both lower case. Parsed on the controller from bytes read with a read-only probe, so that a
 * dry run knows the key without gpg or a keyring on the node. Pure; thread-safe.
 *
 * @param fingerprint 40 upper-case hex digits
 * @param created seconds since the epoch, as written in the key
 */
record OpenPgpKey(String fingerprint, long created) {
    private static final String BEGIN = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
    private static final String END = "-----END PGP PUBLIC KEY BLOCK-----";

    /** The 16 hex digits of the key id, upper case. */
    String keyId() {
        return fingerprint.substring(24);
    }

    /** The version of rpm's {@code gpg-pubkey} package for this key: the short key id, lower case. */
    String rpmVersion() {
        return fingerprint.substring(32).toLowerCase(java.util.Locale.ROOT);
    }

    /** The release of rpm's {@code gpg-pubkey} package for this key: the creation time in hex. */
    String rpmRelease() {
        return String.format("%08x", created);
    }

    /** Whether the bytes hold an ASCII-armored public key block (what Ansible's rpm_key wants from a URL). */
    static boolean isArmored(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int begin = text.indexOf(BEGIN);
        return begin >= 0 && text.indexOf(END, begin) > begin;
    }

    /**
     * Reads the first public key.
     *
     * @throws IllegalArgumentException when the bytes are not an OpenPGP public key, or the key is
     *     not a version 4 key; the message says which
     */
    static OpenPgpKey parse(byte[] bytes) {
        byte[] packets = isArmored(bytes) ? dearmor(new String(bytes, StandardCharsets.ISO_8859_1)) : bytes;
        if (packets.length < 2 || (packets[0] & 0x80) == 0) {
            throw new IllegalArgumentException("not an OpenPGP public key");
        }
        int b = packets[0] & 0xff;
        int tag;
        int offset;
        long length;
        if ((b & 0x40) != 0) {
            tag = b & 0x3f;
            int o1 = packets[1] & 0xff;
            if (o1 < 192) {
                length = o1;
                offset = 2;
            } else if (o1 < 224) {
                length = ((o1 - 192L) << 8) + (at(packets, 2)) + 192;
                offset = 3;
            } else if (o1 == 255) {
                length = (at(packets, 2) << 24) | (at(packets, 3) << 16) | (at(packets, 4) << 8) | at(packets, 5);
                offset = 6;
            } else {
                throw new IllegalArgumentException("not an OpenPGP public key (partial length)");
            }
        } else {
            tag = (b >> 2) & 0x0f;
            switch (b & 0x03) {
                case 0 -> {
                    length = at(packets, 1);
                    offset = 2;
                }
                case 1 -> {
                    length = (at(packets, 1) << 8) | at(packets, 2);
                    offset = 3;
                }
                case 2 -> {
                    length = (at(packets, 1) << 24) | (at(packets, 2) << 16) | (at(packets, 3) << 8) | at(packets, 4);
                    offset = 5;
                }
                default -> throw new IllegalArgumentException("not an OpenPGP public key (indeterminate length)");
            }
        }
        if (tag != 6) {
            throw new IllegalArgumentException("not an OpenPGP public key (the first packet is of type " + tag + ")");
        }
        if (length < 6 || offset + length > packets.length) {
            throw new IllegalArgumentException("not an OpenPGP public key (truncated)");
        }
        int len = (int) length;
        int version = packets[offset] & 0xff;
        if (version != 4) {
            throw new IllegalArgumentException("an OpenPGP version " + version + " key; only version 4 keys are supported");
        }
        long created = (at(packets, offset + 1) << 24) | (at(packets, offset + 2) << 16) | (at(packets, offset + 3) << 8)
                | at(packets, offset + 4);
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(new byte[] {(byte) 0x99, (byte) (len >> 8), (byte) len});
            sha1.update(packets, offset, len);
            return new OpenPgpKey(HexFormat.of().withUpperCase().formatHex(sha1.digest()), created);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long at(byte[] bytes, int i) {
        if (i >= bytes.length) {
            throw new IllegalArgumentException("not an OpenPGP public key (truncated)");
        }
        return bytes[i] & 0xffL;
    }

    /** The packets of the first armored public key block: headers and the checksum line left out. */
    private static byte[] dearmor(String text) {
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END, begin);
        List<String> lines = text.substring(begin + BEGIN.length(), end).replace("\r", "").lines().toList();
        int blank = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                blank = i;
                break;
            }
        }
        List<String> body = new ArrayList<>();
        for (String line : lines.subList(blank < 0 ? 0 : blank + 1, lines.size())) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("=") && !l.contains(":")) {
                body.add(l);
            }
        }
        try {
            return Base64.getDecoder().decode(String.join("", body));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not an OpenPGP public key (bad armor: " + e.getMessage() + ")");
        }
    }
}
