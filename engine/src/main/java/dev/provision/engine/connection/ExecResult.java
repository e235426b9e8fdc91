package dev.provision.engine.connection;

import java.nio.charset.StandardCharsets;

/** Exit code and the complete output of a command. */
public record ExecResult(int exitCode, byte[] stdout, byte[] stderr) {
    public ExecResult {
        stdout = stdout.clone();
        stderr = stderr.clone();
    }

    public String stdoutText() {
        return new String(stdout, StandardCharsets.UTF_8);
    }

    public String stderrText() {
        return new String(stderr, StandardCharsets.UTF_8);
    }

    @Override
    public byte[] stdout() {
        return stdout.clone();
    }

    @Override
    public byte[] stderr() {
        return stderr.clone();
    }
}
