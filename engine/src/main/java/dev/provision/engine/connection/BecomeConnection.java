package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Become (sudo) as a decorator: every command line of the wrapped connection runs as another user
 * through {@code sudo -u USER -- /bin/sh -c 'COMMAND'}. Files are written and read through the same
 * wrapped exec path, so a put lands as the become user (root) with the attributes asked for.
 *
 * <p>Without a password, sudo runs with {@code -n}: it fails at once ("a password is required")
 * instead of waiting for a prompt nobody answers. With a password, sudo runs with {@code -k -S -p ''}
 * and the password line is put before the command's own input. Because a {@code NOPASSWD} rule makes
 * sudo skip reading it, a per-call random marker line follows the password, and a tiny shell inside
 * sudo discards everything up to and including the marker: the command sees exactly its own input
 * either way, and the password can never reach it.
 *
 * <p>The password is held only in memory (a private copy that {@link #close()} wipes); it never
 * appears in a command line, a message, an exception or {@link #toString()}.
 *
 * <p>Thread-safe when the wrapped connection is; closing closes the wrapped connection.
 */
public final class BecomeConnection implements Connection {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String SKIP_PASSWORD = "while IFS= read -r line; do [ \"$line\" = \"$0\" ] && exec /bin/sh -c \"$1\"; done; exit 1";

    private final Connection wrapped;
    private final String user;
    private final char[] password;

    /** Becomes {@code user} with passwordless sudo ({@code sudo -n}). */
    public BecomeConnection(Connection wrapped, String user) {
        this(wrapped, user, null, false);
    }

    /**
     * Becomes {@code user} with sudo, answering its password prompt.
     *
     * @param password copied; the caller may wipe its array afterwards
     */
    public BecomeConnection(Connection wrapped, String user, char[] password) {
        this(wrapped, user, requireNonNull(password, "password cannot be null"), true);
    }

    private BecomeConnection(Connection wrapped, String user, char[] password, boolean withPassword) {
        this.wrapped = requireNonNull(wrapped, "wrapped cannot be null");
        this.user = requireNonNull(user, "user cannot be null");
        if (user.isBlank()) {
            throw new IllegalArgumentException("become user cannot be blank");
        }
        if (withPassword) {
            for (char c : password) {
                if (c == '\n' || c == '\r') {
                    // The message must not contain the password, not even in part.
                    throw new IllegalArgumentException("the become password cannot contain a line break");
                }
            }
            this.password = password.clone();
        } else {
            this.password = null;
        }
    }

    /** The user commands run as. */
    public String user() {
        return user;
    }

    @Override
    public String hostName() {
        return wrapped.hostName();
    }

    @Override
    public ExecResult exec(ExecRequest request) throws ConnectionException {
        requireNonNull(request, "request cannot be null");
        if (password == null) {
            String line = ShellWords.join(List.of("sudo", "-n", "-u", user, "--", "/bin/sh", "-c", request.commandLine()));
            return wrapped.exec(request.withCommandLine(line));
        }
        String marker = "provision-become-" + HexFormat.of().formatHex(randomBytes());
        String line = ShellWords.join(List.of("sudo", "-k", "-S", "-p", "", "-u", user, "--",
                "/bin/sh", "-c", SKIP_PASSWORD, marker, request.commandLine()));
        byte[] input = withPasswordAndMarker(marker, request.stdin());
        try {
            return wrapped.exec(new ExecRequest(line, input, request.timeout(), request.stdinFile()));
        } finally {
            Arrays.fill(input, (byte) 0);
        }
    }



    @Override
    public void close() {
        if (password != null) {
            Arrays.fill(password, '\0');
        }
        wrapped.close();
    }

    @Override
    public String toString() {
        return "BecomeConnection[" + user + (password == null ? "" : ", with password") + ", " + wrapped + "]";
    }

    private byte[] withPasswordAndMarker(String marker, byte[] stdin) {
        ByteBuffer secret = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
        byte[] markerLine = ("\n" + marker + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] input = new byte[secret.remaining() + markerLine.length + stdin.length];
        int secretLength = secret.remaining();
        secret.get(input, 0, secretLength);
        System.arraycopy(markerLine, 0, input, secretLength, markerLine.length);
        System.arraycopy(stdin, 0, input, secretLength + markerLine.length, stdin.length);
        if (secret.hasArray()) {
            Arrays.fill(secret.array(), (byte) 0);
        }
        return input;
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
