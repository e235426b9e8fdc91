package dev.provision.engine.connection;

import dev.provision.modules.text.ShellWords;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 * run as {@code /bin/sh -c WORD} in a subshell, its standard input a file (decoded from a
 * here-document: {@link StdinDocuments}) or {@code /dev/null}, its outputs files. A timeout kills
 * the command with its descendants by process group: sshd made this shell lead a group of its own,
 * which its subshells share, so the kill takes the shell too (a shell whose command timed out is
 * closed anyway); where the shell leads no group, each command gets one of its own through
 * {@code setsid}. The group's id is in the file {@code p} of the shell's {@link #workDirectory()}
 * while a command runs. The shell answers each command by framing its two outputs and its status
 * with a random token sent with the command, so nothing a command prints can be taken for framing:
 * <pre>
 *   stdout bytes, "\n" TOKEN " " status "\n", stderr bytes, TOKEN "\n"
 * </pre>
 * Builtins do all of it but the {@code cat} of an output that is not empty: on a slow node each
 * program started costs milliseconds, and a run sends hundreds of commands to each node.
 * One answer per command, not a "started" line too: at a thousand hosts each answer is a packet
 * to decrypt and a thread to wake on the controller. For the same reason an answer without error
 * output is written at once (its framing appended to the output file, or one {@code printf} when
 * there is no output), not as two or three writes that sshd would send as as many packets.
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
            : >"$__pv_d/p"
            __pv_lead=
            if read -r __pv_l </proc/$$/stat 2>/dev/null; then set -- $__pv_l; [ "$5" = "$$" ] && __pv_lead=1; fi
            __pv() {
              if [ -n "$__pv_lead" ]; then
                echo $$ >"$__pv_d/p"
                ( exec /bin/sh -c "$1" ) <"$2" >"$__pv_d/o" 2>"$__pv_d/e"
                __pv_s=$?
              else
                setsid /bin/sh -c "$1" <"$2" >"$__pv_d/o" 2>"$__pv_d/e" &
                echo "$!" >"$__pv_d/p"
                wait "$!"
                __pv_s=$?
              fi
              : >"$__pv_d/p"
              [ "$2" = /dev/null ] || : >"$2"
              if [ -s "$__pv_d/e" ]; then
                [ -s "$__pv_d/o" ] && cat -- "$__pv_d/o"
                printf '\n%s %s\n' "$3" "$__pv_s"
                cat -- "$__pv_d/e"
                printf '%s\n' "$3"
              elif [ -s "$__pv_d/o" ] && printf '\n%s %s\n%s\n' "$3" "$__pv_s" "$3" 2>/dev/null >>"$__pv_d/o"; then
                cat -- "$__pv_d/o"
              else
                # no output, or no room left in /tmp to append to it: the framing is written apart
                [ -s "$__pv_d/o" ] && cat -- "$__pv_d/o"
                printf '\n%s %s\n%s\n' "$3" "$__pv_s" "$3"
              fi
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
        // Unbuffered: the channel buffers what arrives, and an answer is read in bulk; only the
        // READY line is read a byte at a time. A buffer of our own was 64 KB per host (64 MB at 1000).
        this.answers = shell.getInputStream();
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

    /** The token that frames the answer of the command sent last. */
    private String token;

    /** Sends {@code request}; {@link #result} waits for its end. */
    void submit(ExecRequest request) throws IOException {
        byte[] stdin = request.stdin();
        String input = "/dev/null";
        if (stdin.length > 0) {
            script.write(StdinDocuments.of(stdin, gzip));
            input = "\"$__pv_d/i\"";
        }
        token = Boundary.random("PROVISION-");
        send("__pv " + ShellWords.quote(request.commandLine()) + ' ' + input + ' ' + token + '\n');
    }

    /** Waits for the command sent by {@link #submit} to end and returns its status and outputs. */
    ExecResult result() throws IOException {
        byte[] head = ("\n" + token + " ").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = (token + "\n").getBytes(StandardCharsets.US_ASCII);
        Answer answer = new Answer();
        int h = answer.readUntil(head, 0);
        int statusEnd = answer.readUntil(new byte[] {'\n'}, h + head.length);
        String status = new String(answer.bytes, h + head.length, statusEnd - h - head.length, StandardCharsets.US_ASCII);
        if (!status.matches("\\d{1,3}")) {
            throw new IOException("unexpected answer from the remote shell: status " + status);
        }
        int t = answer.readUntil(tail, statusEnd + 1);
        if (answer.length != t + tail.length) {
            throw new IOException("unexpected answer from the remote shell: more than one answer");
        }
        return new ExecResult(Integer.parseInt(status), Arrays.copyOfRange(answer.bytes, 0, h),
                Arrays.copyOfRange(answer.bytes, statusEnd + 1, t));
    }

    /**
     * One command's answer as it arrives. It reads only what has arrived: nothing follows an answer
     * until the next command is sent, so it never reads into another.
     */
    private final class Answer {
        byte[] bytes = new byte[256];
        int length;

        /** Reads on until {@code marker} has arrived at or after {@code from}; returns where it starts. */
        int readUntil(byte[] marker, int from) throws IOException {
            int searched = from;
            while (true) {
                int at = Boundary.indexOf(bytes, length, marker, searched);
                if (at >= 0) {
                    return at;
                }
                searched = Math.max(from, length - marker.length + 1);
                int ready = Math.max(1, answers.available());
                if (length + ready > bytes.length) {
                    bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + ready));
                }
                int n = answers.read(bytes, length, ready);
                if (n < 0) {
                    throw new EOFException("the remote shell ended");
                }
                length += n;
            }
        }
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

}
