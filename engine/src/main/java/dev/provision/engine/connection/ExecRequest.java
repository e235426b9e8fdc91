package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A command line for {@code /bin/sh -c}, its standard input and a time limit. Build it from an argument
 * vector with {@link #argv(List)} so that every word is quoted: values can never inject shell.
 *
 * @param stdin the bytes fed to the command's standard input
 * @param stdinFile a controller file whose content follows {@code stdin}, streamed (a large upload
 *     is never held in memory); empty for none
 */
public record ExecRequest(String commandLine, byte[] stdin, Duration timeout, Optional<Path> stdinFile) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(1);

    public ExecRequest {
        requireNonNull(commandLine, "commandLine cannot be null");
        stdin = stdin == null ? new byte[0] : stdin.clone();
        requireNonNull(timeout, "timeout cannot be null");
        requireNonNull(stdinFile, "stdinFile cannot be null");
    }

    public ExecRequest(String commandLine, byte[] stdin, Duration timeout) {
        this(commandLine, stdin, timeout, Optional.empty());
    }

    /** This request's input and time limit for another command line (a decorator's wrapping of it). */
    public ExecRequest withCommandLine(String line) {
        return new ExecRequest(line, stdin, timeout, stdinFile);
    }

    /** This request with {@code file}'s content streamed after its {@link #stdin()} bytes. */
    public ExecRequest withStdinFile(Path file) {
        return new ExecRequest(commandLine, stdin, timeout, Optional.of(file));
    }

    public static ExecRequest shell(String commandLine) {
        return new ExecRequest(commandLine, new byte[0], DEFAULT_TIMEOUT);
    }

    public static ExecRequest argv(List<String> argv) {
        return shell(ShellWords.join(argv));
    }

    public static ExecRequest argv(String... argv) {
        return argv(List.of(argv));
    }

    public ExecRequest withTimeout(Duration limit) {
        return new ExecRequest(commandLine, stdin, limit, stdinFile);
    }

    public ExecRequest withStdin(byte[] input) {
        return new ExecRequest(commandLine, input, timeout, stdinFile);
    }

    /** The length of {@link #stdin()}, without copying it. */
    public int stdinLength() {
        return stdin.length;
    }

    @Override
    public byte[] stdin() {
        return stdin.clone();
    }
}
