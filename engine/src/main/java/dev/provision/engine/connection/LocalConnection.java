package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The controller itself as a host ({@code ansible_connection: local}): every command is a
 * {@code /bin/sh -c} child process. Standard input is fed and both outputs read concurrently; when the
 * time limit passes, the shell and its descendants are killed and the call fails. Files go through
 * the same atomic put and read as every connection.
 *
 * <p>Thread-safe; closing only refuses further calls (there is nothing to release).
 */
public final class LocalConnection implements Connection {
    private final String hostName;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param hostName the inventory name, used in messages */
    public LocalConnection(String hostName) {
        this.hostName = requireNonNull(hostName, "hostName cannot be null");
    }

    @Override
    public String hostName() {
        return hostName;
    }

    @Override
    public boolean isController() {
        return true;
    }

    @Override
    public ExecResult exec(ExecRequest request) throws ConnectionException {
        requireNonNull(request, "request cannot be null");
        if (closed.get()) {
            throw new ConnectionException("connection to " + hostName + " is closed");
        }
        long deadline = System.nanoTime() + request.timeout().toNanos();
        Process process;
        try {
            process = new ProcessBuilder(shellArguments(request.commandLine())).start();
        } catch (IOException e) {
            throw new ConnectionException("cannot start /bin/sh on " + hostName + ": " + e.getMessage(), e);
        }
        Pipes pipes = Pipes.start(process.getOutputStream(), request, process.getInputStream(),
                process.getErrorStream());
        try {
            if (!process.waitFor(remainingNanos(deadline), TimeUnit.NANOSECONDS)) {
                throw timedOut(process, request);
            }
            // A background child may still hold the output pipes open: it gets the rest of the time.
            Pipes.Outputs outputs = pipes.await(TimeUnit.NANOSECONDS.toMillis(remainingNanos(deadline)));
            return new ExecResult(process.exitValue(), outputs.stdout(), outputs.stderr());
        } catch (TimeoutException e) {
            throw timedOut(process, request);
        } catch (IOException e) {
            killTree(process);
            throw new ConnectionException("reading the output of a command on " + hostName + " failed: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while running a command on " + hostName, e);
        }
    }



    @Override
    public void close() {
        closed.set(true);
    }

    @Override
    public String toString() {
        return "LocalConnection[" + hostName + "]";
    }

    private ConnectionException timedOut(Process process, ExecRequest request) {
        killTree(process);
        return new ConnectionException("command on " + hostName + " timed out after "
                + Durations.human(request.timeout()) + " and was killed");
    }

    private static long remainingNanos(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /**
     * Kills the shell first, so that it cannot go on to its next command when its current child dies,
     * then every descendant it had (seen before it died: afterwards they would belong to init).
     */
    private static void killTree(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * The JVM encodes process arguments in the platform's file-name charset; under a non-UTF-8 locale
     * (LANG=C) a file name like {@code ünïcødé} would arrive as question marks. Such a command line is
     * passed in an ASCII-only form instead, which the shell turns back into the exact UTF-8 bytes.
     */
    static List<String> shellArguments(String commandLine) {
        Charset platform = platformCharset();
        if (platform.equals(StandardCharsets.UTF_8) || platform.newEncoder().canEncode(commandLine)) {
            return List.of("/bin/sh", "-c", commandLine);
        }
        return List.of("/bin/sh", "-c", "exec /bin/sh -c \"$(printf '%b' '" + octalEscaped(commandLine) + "')\"");
    }

    /** Every byte outside the letters and digits as {@code \0ooo}, which {@code printf %b} decodes. */
    static String octalEscaped(String text) {
        StringBuilder escaped = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int unsigned = b & 0xff;
            if ((unsigned >= 'a' && unsigned <= 'z') || (unsigned >= 'A' && unsigned <= 'Z')
                    || (unsigned >= '0' && unsigned <= '9')) {
                escaped.append((char) unsigned);
            } else {
                escaped.append(String.format("\\0%03o", unsigned));
            }
        }
        return escaped.toString();
    }

    private static Charset platformCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.US_ASCII;
        }
    }
}
