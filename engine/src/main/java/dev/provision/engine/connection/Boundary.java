package dev.provision.engine.connection;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Framing a command's output with a token it cannot guess, so that nothing it prints can be taken
 * for the frame: the remote shell's answers ({@link RemoteShell}) and the engine's batches of reads
 * in one exchange ({@code ProbeBatch}). Output is bytes, and is searched as bytes.
 */
public final class Boundary {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Boundary() {
    }

    /** {@code prefix} and 128 random bits in hex: a word no command's output holds by chance. */
    public static String random(String prefix) {
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        return prefix + HexFormat.of().formatHex(token);
    }

    /** Where {@code what} (not empty) first stands in the first {@code length} bytes of {@code in}, at or after {@code from}; -1 if nowhere. */
    public static int indexOf(byte[] in, int length, byte[] what, int from) {
        for (int i = Math.max(0, from); i <= length - what.length; i++) {
            if (in[i] == what[0] && Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                return i;
            }
        }
        return -1;
    }
}
