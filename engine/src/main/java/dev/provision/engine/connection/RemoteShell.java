package dev.provision.engine.connection;

import dev.provision.modules.text.ShellWords;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;

/**
 * One long-lived {@code /bin/sh} on a host that runs the connection's commands one after another,
 * so that a command costs a few forks on the node instead of an sshd session (fork, PAM, the login
 * shell and its rc files) per command: the difference between provision and one shell script per
 * node over plain ssh.
 *
 * <p>The shell reads its script from the channel's standard input; each command is one chunk of
 * script that never reads that stream itself: the command line travels as one quoted word and is
 * run as {@code setsid /bin/sh -c WORD} (its own process group, so a timeout can kill it with its
 * descendants: the group's id is in the file {@code p} of the shell's {@link #workDirectory()} while
 * it runs), its standard input is a file (decoded from a here-document: {@link StdinDocuments}) or
 * {@code /dev/null}, and
 * its outputs go to files. The shell answers each command with one line this class parses and the
 * two outputs by length, so nothing a command prints can be taken for framing:
 * <pre>
 *   R status stdoutBytes stderrBytes
 *   stdout bytes, then stderr bytes
 * </pre>
 * One answer per command, not a "started" line too: at a thousand hosts each answer is a packet
 * to decrypt and a thread to wake on the controller.
 * Not thread-safe: {@link SshConnection} lends each shell to one call at a time.
 */
final class RemoteShell implements AutoCloseable {
    /**
     * Defines {@code __pv} and answers {@code READY} with its work directory and whether it has
     * {@code gzip} ({@code z} or {@code -}); exits (no READY) where a tool it needs is missing.
     * Its work directory holds its pid, so that the next shell removes the directories of shells that
     * died without their EXIT trap (the controller was killed: a signal, or the session just vanished).
     */
    private static final String PRELUDE = """
            command -v setsid >/dev/null 2>&1 && command -v base64 >/dev/null 2>&1 || exit 3
            for __pv_o in /tmp/provision.????????; do
              [ -f "$__pv_o/pid" ] && ! kill -0 "$(cat "$__pv_o/pid")" 2>/dev/null && rm -rf -- "$__pv_o"
            done
            __pv_d=$(mktemp -d /tmp/provision.XXXXXXXX) || exit 3
            trap 'rm -rf "$__pv_d"' EXIT
            trap 'rm -rf "$__pv_d"; exit 1' HUP PIPE TERM
            echo $$ >"$__pv_d/pid"
            __pv() {
              setsid /bin/sh -c "$1" <"$2" >"$__pv_d/o" 2>"$__pv_d/e" &
              echo "$!" >"$__pv_d/p"
              wait "$!"
              __pv_s=$?
              rm -f -- "$__pv_d/p"
              [ "$2" = /dev/null ] || rm -f -- "$2"
              set -- $(wc -c "$__pv_d/o" "$__pv_d/e")
              echo "R $__pv_s $1 $3"
              [ "$1$3" = 00 ] || cat -- "$__pv_d/o" "$__pv_d/e"
            }
            command -v gzip >/dev/null 2>&1 && __pv_z=z || __pv_z=-
            echo "READY $__pv_d $__pv_z"
            """;
    private static final Pattern READY_LINE = Pattern.compile("READY (/tmp/provision\\.[A-Za-z0-9]{8}) ([z-])");
    private static final int MAX_LINE = 4096;

    private final Session session;
    private final Session.Command shell;
    private final OutputStream script;
    private final InputStream answers;
    private String workDirectory;
    private boolean gzip;

    private RemoteShell(Session session, Session.Command shell) {
        this.session = session;
        this.shell = shell;
        this.script = shell.getOutputStream();
        this.answers = new BufferedInputStream(shell.getInputStream(), 64 * 1024);
        // What the shell itself says on stderr (nothing, normally) must not fill the channel's window.
        Thread.ofVirtual().name("provision-shell-stderr").start(() -> {
            try (InputStream err = shell.getErrorStream()) {
                err.transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                // The shell is gone; its caller finds out from the next read.
            }
        });
    }

    /**
     * Starts a shell on a new session channel of {@code client}.
     *
     * @throws IOException when the channel cannot be opened or the shell does not answer READY (a
     *                     host without {@code setsid}, {@code base64} or a writable {@code /tmp}) within
     *                     {@code timeoutMillis}
     */
    static RemoteShell start(SSHClient client, long timeoutMillis) throws IOException {
        Session session = client.startSession();
        RemoteShell remote = null;
        try {
            Session.Command command = session.exec("exec /bin/sh -s");
            remote = new RemoteShell(session, command);
            RemoteShell starting = remote;
            // Who comes first, the READY or the watchdog, decides: a watchdog that woke as the shell
            // answered must not hang up on a shell already handed out (its next command would find
            // the stream closed, and the task would fail on a healthy host).
            AtomicReference<String> outcome = new AtomicReference<>();
            Thread watchdog = Thread.ofVirtual().name("provision-shell-start").start(() -> {
                try {
                    Thread.sleep(timeoutMillis);
                    if (outcome.compareAndSet(null, "gave up")) {
                        starting.close(); // a shell that hangs in its start-up: give up on it
                    }
                } catch (InterruptedException e) {
                    // started in time
                }
            });
            try {
                remote.send(PRELUDE);
                // A login script may print a banner even for a command; skip it.
                for (int lines = 0; remote.workDirectory == null; lines++) {
                    Matcher ready = READY_LINE.matcher(remote.line());
                    if (ready.matches()) {
                        remote.workDirectory = ready.group(1);
                        remote.gzip = ready.group(2).equals("z");
                    } else if (lines > 200) {
                        throw new IOException("the remote shell did not start");
                    }
                }
                if (!outcome.compareAndSet(null, "started")) {
                    throw new IOException("the remote shell did not start within " + timeoutMillis + " ms");
                }
            } finally {
                watchdog.interrupt();
            }
            return remote;
        } catch (IOException | RuntimeException e) {
            if (remote != null) {
                remote.close();
            } else {
                session.close();
            }
            throw e;
        }
    }

    /**
     * The shell's directory on the host ({@code /tmp/provision.XXXXXXXX}), whose file {@code p}
     * holds the process group id of the command running, if any.
     */
    String workDirectory() {
        return workDirectory;
    }

    /** Sends {@code request}; {@link #result} waits for its end. */
    void submit(ExecRequest request) throws IOException {
        byte[] stdin = request.stdin();
        String input = "/dev/null";
        if (stdin.length > 0) {
            script.write(StdinDocuments.of(stdin, gzip));
            input = "\"$__pv_d/i\"";
        }
        send("__pv " + ShellWords.quote(request.commandLine()) + ' ' + input + '\n');
    }

    /** Waits for the command sent by {@link #submit} to end and returns its status and outputs. */
    ExecResult result() throws IOException {
        String[] header = line().split(" ");
        if (header.length != 4 || !header[0].equals("R")) {
            throw new IOException("unexpected answer from the remote shell: " + String.join(" ", header));
        }
        int status = Integer.parseInt(header[1]);
        byte[] stdout = exactly(Integer.parseInt(header[2]));
        byte[] stderr = exactly(Integer.parseInt(header[3]));
        return new ExecResult(status, stdout, stderr);
    }

    boolean isOpen() {
        return shell.isOpen();
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (IOException e) {
            // The channel is gone either way.
        }
    }

    /** Closes without waiting for the server's reply (used when a killed command may linger). */
    void closeInBackground() {
        Thread.ofVirtual().name("provision-shell-close").start(this::close);
    }

    /** Waits for the shell to exit after its input ended; for tests and orderly shutdown. */
    void awaitExit(long millis) throws IOException {
        shell.join(millis, TimeUnit.MILLISECONDS);
    }

    private void send(String text) throws IOException {
        script.write(text.getBytes(StandardCharsets.UTF_8));
        script.flush();
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = answers.read();
            if (b < 0) {
                throw new EOFException("the remote shell ended");
            }
            if (b == '\n') {
                return line.toString(StandardCharsets.UTF_8);
            }
            if (line.size() >= MAX_LINE) {
                throw new IOException("unexpected answer from the remote shell");
            }
            line.write(b);
        }
    }

    private byte[] exactly(int length) throws IOException {
        byte[] bytes = answers.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("the remote shell ended");
        }
        return bytes;
    }
}
