package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.time.Duration;
import java.util.List;

/**
 * A command line for {@code /bin/sh -c}, its standard input and a time limit. Build it from an argument
 * vector with {@link #argv(List)} so that every word is quoted: values can never inject shell.
 */
public record ExecRequest(String commandLine, byte[] stdin, Duration timeout) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(1);

    public ExecRequest {
        requireNonNull(commandLine, "commandLine cannot be null");
        stdin = stdin == null ? new byte[0] : stdin.clone();
        requireNonNull(timeout, "timeout cannot be null");
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
        return new ExecRequest(commandLine, stdin, limit);
    }

    public ExecRequest withStdin(byte[] input) {
        return new ExecRequest(commandLine, input, timeout);
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
