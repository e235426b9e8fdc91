package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH server for tests: started on 127.0.0.1 on a free port from a temporary
 * {@code sshd_config}, with its own fresh host key and a fresh client key in its authorized keys.
 * Needs root (sshd switches to the logged-in user) and {@code /usr/sbin/sshd}; tests that use it are
 * skipped otherwise.
 */
final class TestSshd implements AutoCloseable {
    static final Path SSHD = Path.of("/usr/sbin/sshd");

    final Path directory;
    final Path clientKey;
    final int port;
    private final String hostKeyType;
    private Process process;

    private TestSshd(Path directory, String hostKeyType) throws IOException, InterruptedException {
        this.directory = directory;
        this.hostKeyType = hostKeyType;
        this.clientKey = directory.resolve("client_ed25519");
        this.port = freePort();
        Files.createDirectories(directory);
        keygen("ed25519", clientKey);
        Files.copy(directory.resolve("client_ed25519.pub"), directory.resolve("authorized_keys"));
        keygen(hostKeyType, hostKey());
        Files.writeString(directory.resolve("sshd_config"), String.join("\n",
                "Port " + port,
                "ListenAddress 127.0.0.1",
                "HostKey " + hostKey(),
                "AuthorizedKeysFile " + directory.resolve("authorized_keys"),
                "PidFile " + directory.resolve("sshd.pid"),
                "StrictModes no",
                "UsePAM no",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                "LogLevel ERROR",
                "") + "\n");
    }

    /** Skips the calling test unless an sshd can be started here. */
    static void assumeAvailable() {
        assumeTrue(Files.isExecutable(SSHD), "no sshd binary at " + SSHD + ": SSH tests skipped");
        assumeTrue("root".equals(System.getProperty("user.name")), "not root: SSH tests need to start sshd as root");
    }

    /** Prepares (does not start) a server whose host key has the given ssh-keygen type. */
    static TestSshd prepare(Path directory, String hostKeyType) {
        assumeAvailable();
        try {
            return new TestSshd(directory, hostKeyType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static TestSshd start(Path directory) throws IOException, InterruptedException {
        TestSshd sshd = prepare(directory, "ed25519");
        sshd.start();
        return sshd;
    }

    void start() throws IOException, InterruptedException {
        // sshd refuses to start without its privilege separation directory.
        Files.createDirectories(Path.of("/run/sshd"));
        process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", directory.resolve("sshd_config").toString())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("sshd.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("sshd exited: " + Files.readString(directory.resolve("sshd.log")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("sshd did not listen on " + port + " within 15 s");
    }

    void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
            process = null;
        }
    }

    /**
     * Sends {@code signal} (STOP: the host hangs with its TCP connections open; CONT) to every process
     * the server started for its connections, not to the listener itself.
     */
    void signalSessions(String signal) throws IOException, InterruptedException {
        // Twice: a short-lived child may end between the listing and the kill (kill still signals
        // the others; its status is not ours to judge), or be forked just before its parent stopped.
        for (int pass = 0; pass < 2; pass++) {
            List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
            process.descendants().forEach(p -> command.add(Long.toString(p.pid())));
            if (command.size() > 2) {
                Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                kill.waitFor();
            }
        }
    }

    /** A new host key (the node was "rebuilt"); takes effect at the next {@link #start()}. */
    void regenerateHostKey() throws IOException, InterruptedException {
        Files.delete(hostKey());
        Files.delete(Path.of(hostKey() + ".pub"));
        keygen(hostKeyType, hostKey());
    }

    /** The host key as {@code type base64}, from the public key file. */
    String hostKeyLine() throws IOException {
        String[] fields = Files.readString(Path.of(hostKey() + ".pub"), StandardCharsets.UTF_8).strip().split(" ");
        return fields[0] + " " + fields[1];
    }

    /** OpenSSH's own fingerprint of the host key ({@code SHA256:...}). */
    String hostKeyFingerprint() throws IOException, InterruptedException {
        return run(List.of("ssh-keygen", "-l", "-E", "sha256", "-f", hostKey() + ".pub")).split(" ")[1];
    }

    private Path hostKey() {
        return directory.resolve("host_" + hostKeyType);
    }

    static void keygen(String type, Path file) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ssh-keygen", "-q", "-t", type, "-N", "", "-C", "provision-test", "-f", file.toString()));
        if (type.equals("rsa")) {
            command.addAll(List.of("-b", "2048"));
        }
        run(command);
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process keygen = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keygen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (keygen.waitFor() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
        return output;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
