package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.connection.channel.direct.Signal;

/**
 * One host over SSH: a single authenticated sshj client kept for the whole run. Commands run in
 * long-lived remote shells on it ({@link RemoteShell}: no sshd session and login shell per command),
 * one command per shell at a time, so calls may run concurrently (at most {@value #MAX_SESSIONS} at
 * once, below OpenSSH's default {@code MaxSessions 10}; further calls wait their turn). Where such a
 * shell cannot start (no {@code setsid} or {@code base64} on the host), every command gets a session
 * channel of its own instead, as plain {@code ssh host command} would; so does a command with more
 * than {@value #SHELL_STDIN_LIMIT} bytes of input. Standard input reaches the
 * command whole and then ends, both outputs are returned with the exit status. When the time limit
 * passes, the remote command and its descendants are killed (under become, processes of another
 * user are out of the login user's reach and only get hung up on) and the call fails.
 *
 * <p>Opened by {@link SshConnectionFactory}; closing disconnects (twice is harmless). A broken
 * connection makes every later call fail with {@link UnreachableException}.
 */
public final class SshConnection implements Connection {
    static final int MAX_SESSIONS = 8;
    private static final int KILL_TIMEOUT_SECONDS = 10;
    private static final int LOSS_SETTLE_MILLIS = 1000;
    private static final long SHELL_START_MILLIS = 30_000;
    /**
     * Input above this size (a large file to write) streams through a channel of its own: a shell
     * gets its input as base64 in a here-document, which costs the host ~10x the bytes' time to parse.
     */
    static final int SHELL_STDIN_LIMIT = 1 << 20;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String hostName;
    private final String destination;
    private final SSHClient client;
    private final PublicKey hostKey;
    /** How OpenSSH's client can reach the host for large uploads; empty where it cannot serve. */
    private final java.util.Optional<OpenSshUpload.Target> openSsh;
    private final Semaphore sessions = new Semaphore(MAX_SESSIONS, true);
    private final Semaphore starts;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ConcurrentLinkedDeque<RemoteShell> idleShells = new ConcurrentLinkedDeque<>();
    private volatile boolean shellsWork = true;

    /**
     * @param starts paces the start of remote shells across connections (the factory's handshake
     *     limit): a thousand hosts starting their first shell at once made the nodes' sshd and the
     *     controller share the CPU a thousand ways, and the slowest starts ran past their time limit
     */
    SshConnection(String hostName, String destination, SSHClient client, PublicKey hostKey, Semaphore starts) {
        this(hostName, destination, client, hostKey, starts, java.util.Optional.empty());
    }

    /** @param openSsh how OpenSSH's client reaches the host, for large uploads ({@link OpenSshUpload}) */
    SshConnection(String hostName, String destination, SSHClient client, PublicKey hostKey, Semaphore starts,
                  java.util.Optional<OpenSshUpload.Target> openSsh) {
        this.openSsh = requireNonNull(openSsh, "openSsh cannot be null");
        this.hostName = requireNonNull(hostName, "hostName cannot be null");
        this.destination = requireNonNull(destination, "destination cannot be null");
        this.client = requireNonNull(client, "client cannot be null");
        this.hostKey = requireNonNull(hostKey, "hostKey cannot be null");
        this.starts = requireNonNull(starts, "starts cannot be null");
    }

    @Override
    public String hostName() {
        return hostName;
    }

    @Override
    public void upload(dev.provision.modules.spi.Command.UploadFile file) throws ConnectionException {
        if (openSsh.isPresent() && OpenSshUpload.available() && FileTransfer.uploadThroughOpenSsh(this, file, openSsh.get())) {
            return;
        }
        FileTransfer.upload(this, file);
    }

    /** The host key that was verified when this connection was opened. */
    public PublicKey hostKey() {
        return hostKey;
    }

    @Override
    public ExecResult exec(ExecRequest request) throws ConnectionException {
        requireNonNull(request, "request cannot be null");
        if (closed.get()) {
            throw lost(null);
        }
        long deadline = System.nanoTime() + request.timeout().toNanos();
        try {
            if (!sessions.tryAcquire(remainingNanos(deadline), TimeUnit.NANOSECONDS)) {
                throw timedOut(request);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while waiting to run a command on " + hostName, e);
        }
        try {
            // a streamed file goes through its own channel: the shell takes only inputs it can hold
            RemoteShell shell = shellsWork && request.stdinFile().isEmpty() && request.stdinLength() <= SHELL_STDIN_LIMIT ? shell() : null;
            return shell != null ? runInShell(shell, request, deadline) : runInOwnChannel(request, deadline);
        } finally {
            sessions.release();
        }
    }

    /** An idle shell, or a new one; null where shells cannot start on this host (then never tried again). */
    private RemoteShell shell() throws ConnectionException {
        for (RemoteShell shell; (shell = idleShells.pollFirst()) != null; ) {
            if (shell.isOpen()) {
                return shell;
            }
            shell.close();
        }
        requireConnected();
        starts.acquireUninterruptibly();
        try {
            return RemoteShell.start(client, SHELL_START_MILLIS);
        } catch (IOException e) {
            if (!client.isConnected()) {
                throw lost(e);
            }
            shellsWork = false;
            return null;
        } finally {
            starts.release();
        }
    }

    private ExecResult runInShell(RemoteShell shell, ExecRequest request, long deadline) throws ConnectionException {
        // Whoever comes first, the command's end or its deadline, decides; a command that timed out
        // leaves its shell unusable (closed, once the kill has had its chance).
        AtomicBoolean decided = new AtomicBoolean();
        boolean reusable = false;
        ScheduledFuture<?> due = null;
        try {
            shell.submit(request);
            due = ConnectionTimer.after(remainingNanos(deadline), "provision-timeout", () -> {
                if (!decided.compareAndSet(false, true)) {
                    return;
                }
                killGroup(shell.workDirectory());
                try {
                    TimeUnit.SECONDS.sleep(KILL_TIMEOUT_SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                shell.close(); // the kill could not reach it (become): hang up on it
            });
            ExecResult result = shell.result();
            Heartbeat.heard(client);
            if (!decided.compareAndSet(false, true)) {
                throw timedOut(request);
            }
            reusable = true;
            return result;
        } catch (IOException e) {
            if (!decided.compareAndSet(false, true)) {
                throw timedOut(request); // the kill ended the shell
            }
            throw failed(e);
        } finally {
            if (due != null) {
                due.cancel(false);
            }
            if (reusable) {
                idleShells.offerFirst(shell);
            } else {
                shell.closeInBackground();
            }
        }
    }

    /**
     * Kills the process group of the command a {@link RemoteShell} runs, from a channel of its own.
     * The shell notes the group's id in a file as it starts the command; a command whose deadline
     * passed before that (a host too loaded to start it) is given a moment to get there.
     */
    private void killGroup(String shellDirectory) {
        String d = ShellWords.quote(shellDirectory + "/p");
        String killer = "for i in 1 2 3 4 5 6 7 8 9 10; do [ -s " + d + " ] && break; sleep 0.3; done; g=$(cat " + d
                + " 2>/dev/null) && { kill -KILL -- \"-$g\" 2>/dev/null || kill -KILL \"$g\" 2>/dev/null; }; :";
        try (Session session = client.startSession()) {
            session.exec(killer).join(KILL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException e) {
            // Best effort: the shell is hung up on after the grace time.
        }
    }

    /**
     * A command's channel failed. Mostly the connection is gone (sshd killed, the host rebooted, a
     * keepalive went unanswered), which makes the host unreachable, never "failed": sshj may report
     * the channel's end a moment before its transport notices, so give it that moment.
     */
    private ConnectionException failed(IOException e) {
        boolean lost = !client.isConnected() || transportBroke(e);
        for (int waited = 0; !lost && waited < LOSS_SETTLE_MILLIS; waited += 50) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
            lost = !client.isConnected();
        }
        if (lost) {
            close();
            return lost(e);
        }
        return new ConnectionException("ssh: running a command on " + hostName + " failed: " + SshErrors.reason(e), e);
    }

    private static boolean transportBroke(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof net.schmizz.sshj.transport.TransportException || t instanceof java.net.SocketException
                    || String.valueOf(t.getMessage()).contains("Broken transport")) {
                return true;
            }
        }
        return false;
    }

    private void requireConnected() throws UnreachableException {
        if (!client.isConnected() || !client.isAuthenticated()) {
            throw lost(null);
        }
    }

    /** The host is lost, and why: what the keepalives concluded, else what broke (null: nothing more known). */
    private UnreachableException lost(IOException e) {
        String why = Heartbeat.lossReason(client).orElse(e == null ? "" : SshErrors.reason(e));
        return new UnreachableException("ssh: connection to " + destination + " was lost" + (why.isEmpty() ? "" : ": " + why), e);
    }

    /** A session channel for this one command: the way when remote shells cannot start. */
    private ExecResult runInOwnChannel(ExecRequest request, long deadline) throws ConnectionException {
        requireConnected();
        Session session = null;
        boolean timedOut = false;
        try {
            session = client.startSession();
            String tag = "provision-exec-" + HexFormat.of().formatHex(randomBytes());
            // The tag, a no-op first line, names the command's shell in the process list (see kill).
            Session.Command command = session.exec(": " + tag + "\n" + request.commandLine());
            Pipes pipes = Pipes.start(command.getOutputStream(), request, command.getInputStream(),
                    command.getErrorStream());
            Pipes.Outputs outputs;
            try {
                outputs = pipes.await(TimeUnit.NANOSECONDS.toMillis(remainingNanos(deadline)));
                // The exit status arrives just before the channel closes; both come after the output's end.
                command.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos(deadline))), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | net.schmizz.sshj.connection.ConnectionException e) {
                timedOut = true;
                kill(command, tag);
                throw timedOut(request);
            }
            return new ExecResult(exitStatus(command), outputs.stdout(), outputs.stderr());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while running a command on " + hostName, e);
        } catch (IOException e) {
            throw failed(e);
        } finally {
            if (session != null) {
                close(session, timedOut);
            }
        }
    }

    /**
     * Closing a channel waits for the server's reply, which for a killed command comes only when its
     * last descendant has let go of the output (a {@code sleep} in the background): after a timeout
     * that wait happens in the background, so that the caller gets its failure at the time limit.
     */
    private static void close(Session session, boolean inBackground) {
        Runnable close = () -> {
            try {
                session.close();
            } catch (IOException e) {
                // The channel is gone either way.
            }
        };
        if (inBackground) {
            Thread.ofVirtual().name("provision-ssh-close").start(close);
        } else {
            close.run();
        }
    }



    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Heartbeat.end(client);
            try {
                client.disconnect();
            } catch (IOException e) {
                // Nothing left to do with a connection we are giving up anyway.
            }
        }
    }

    @Override
    public String toString() {
        return "SshConnection[" + hostName + ", " + destination + "]";
    }

    /** A command killed by a signal has no exit status; report it as a shell would: 128 + signal. */
    private static int exitStatus(Session.Command command) {
        Integer status = command.getExitStatus();
        if (status != null) {
            return status;
        }
        Signal signal = command.getExitSignal();
        if (signal == null) {
            return 255;
        }
        return 128 + switch (signal) {
            case HUP -> 1;
            case INT -> 2;
            case QUIT -> 3;
            case ILL -> 4;
            case ABRT -> 6;
            case FPE -> 8;
            case KILL -> 9;
            case USR1 -> 10;
            case SEGV -> 11;
            case USR2 -> 12;
            case PIPE -> 13;
            case ALRM -> 14;
            case TERM -> 15;
            case UNKNOWN -> 127;
        };
    }

    /**
     * Kills a command that ran past its time limit, with its descendants. The SSH "signal" request
     * would be the natural way, but OpenSSH ignores it for root logins (the common case here) and
     * would reach only the shell; so a second short command finds the tagged shell and kills its
     * process group, which sshd made it lead (setsid): background children included. The bracket in
     * the pattern keeps pgrep from matching that second command's own shell.
     */
    private void kill(Session.Command command, String tag) {
        try {
            command.signal(Signal.KILL);
        } catch (IOException e) {
            // The process-group kill below does the job.
        }
        String pattern = "[" + tag.charAt(0) + "]" + tag.substring(1);
        String killer = "for p in $(pgrep -f " + ShellWords.quote(pattern) + "); do kill -KILL -- \"-$p\" 2>/dev/null || kill -KILL \"$p\"; done; :";
        try (Session session = client.startSession()) {
            Session.Command kill = session.exec(killer);
            kill.join(KILL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (IOException e) {
            // Best effort: closing the channel makes sshd hang up on what is left.
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private ConnectionException timedOut(ExecRequest request) {
        return new ConnectionException("command on " + hostName + " timed out after "
                + Durations.human(request.timeout()) + " and was killed");
    }

    private static long remainingNanos(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }
}
