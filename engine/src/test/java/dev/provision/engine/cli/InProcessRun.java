package dev.provision.engine.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The real {@code provision} command run in this JVM (local hosts), what it printed kept for the assertions' messages. */
final class InProcessRun {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** Runs {@code provision ARGS}; its exit status. */
    int provision(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    /** What the runs printed since the last {@link #reset}. */
    String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    void reset() {
        out.reset();
    }

    /** Writes {@code text} to {@code dir/name}: an inventory, a playbook. */
    static Path write(Path dir, String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    /** An inventory of one host, {@code a}, reached through the local connection. */
    static Path oneLocalHost(Path dir) throws Exception {
        return write(dir, "hosts", "a ansible_connection=local\n");
    }

    /**
     * {@code dir/name}, a directory made immutable ({@code chattr +i}: nothing can be written in it,
     * not even by root), for a write that must fail; the test is skipped where chattr cannot do it.
     * Closing it lifts that, so the temp directory can go.
     */
    static Locked lockedDirectory(Path dir, String name) throws Exception {
        Path locked = Files.createDirectories(dir.resolve(name));
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("chattr", "+i", locked.toString()).start().waitFor() == 0,
                "chattr +i works here");
        return new Locked(locked);
    }

    record Locked(Path path) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            new ProcessBuilder("chattr", "-i", path.toString()).start().waitFor();
        }
    }
}
