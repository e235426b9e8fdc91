package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A large upload through a channel of OpenSSH's own client ({@code ssh}) rather than sshj's: OpenSSH
 * moves a file two to three times as fast (bench/large-copy: 256 MiB in 1.5 s against sshj's 2.5-5 s
 * on the same node). The channel is as trusted as the run's connection: the host key is the one that
 * connection verified, pinned in a known-hosts file of its own with strict checking; the same key
 * files log in, with every other way (agent, passwords, the user's ssh config) off. It carries the
 * same put script; the source's SHA-256 follows its bytes on the same input, so the controller hashes
 * while the bytes travel instead of before.
 *
 * <p>Used only where it can serve (an {@code ssh} program, a direct connection, key files); when
 * {@code ssh} itself fails (its exit status 255, before the script ran) the caller writes through
 * the run's connection instead.
 */
final class OpenSshUpload {
    private static final Path SSH = Path.of("/usr/bin/ssh");
    /** OpenSSH's exit status for its own failures (connection, authentication, host key). */
    private static final int SSH_FAILED = 255;
    private static final String ALIAS = "provision-host";
    /**
     * What feeds ssh: the file, then (only when it was read whole) the digest line this JVM writes on
     * its input. A file cut short is seen as such by the script, which counts the bytes.
     */
    private static final String FEED = "cat -- \"$1\" && exec cat";
    /**
     * OpenSSH's own ciphers, AES-GCM first where the controller has AES instructions (servers have had
     * them since 2010): 256 MiB in 0.72-0.78 s against chacha20-poly1305's 0.99-1.06 s
     * (bench/large-copy's node). Nothing is added to what OpenSSH allows by default, only the order.
     */
    private static final String CIPHERS_AES_FIRST =
            "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr";
    private static final boolean AES_INSTRUCTIONS = hasAesInstructions(Path.of("/proc/cpuinfo"));

    /** Where and how the run's connection reached the host. */
    record Target(String address, int port, String user, List<Path> keyFiles, PublicKey hostKey, Duration connectTimeout,
                  int keepAliveSeconds, int keepAliveCount) {
        Target {
            requireNonNull(address, "address cannot be null");
            requireNonNull(user, "user cannot be null");
            keyFiles = List.copyOf(keyFiles);
            requireNonNull(hostKey, "hostKey cannot be null");
            requireNonNull(connectTimeout, "connectTimeout cannot be null");
        }
    }

    private OpenSshUpload() {
    }

    /** Whether this machine has OpenSSH's client to carry uploads. */
    static boolean available() {
        return Files.isExecutable(SSH);
    }

    /**
     * Runs {@code script} on the host with the source's bytes, then its SHA-256 and a newline, on its
     * standard input.
     *
     * @return what the script said; empty when {@code ssh} failed before running it
     */
    static Optional<ExecResult> run(Target target, String script, Path source, CompletableFuture<String> sha256,
                                    Duration timeout) throws ConnectionException {
        Path dir = null;
        Process feeder = null;
        try {
            dir = Files.createTempDirectory("provision-ssh-", PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Path knownHosts = Files.writeString(dir.resolve("known_hosts"), ALIAS + " " + KnownHostsStore.openSshKey(target.hostKey()) + "\n");
            // the source's bytes reach ssh from a cat of the file, not through this JVM: one copy less,
            // in 128 KiB reads, on a controller whose cores the cipher and the digest already keep busy
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(
                    new ProcessBuilder("/bin/sh", "-c", FEED, "sh", source.toAbsolutePath().toString())
                            .redirectError(ProcessBuilder.Redirect.DISCARD),
                    new ProcessBuilder(command(target, knownHosts, script))));
            feeder = pipeline.getFirst();
            Process process = pipeline.getLast();
            CompletableFuture<byte[]> out = Pipes.drain(process.getInputStream()).exceptionally(e -> new byte[0]);
            CompletableFuture<byte[]> err = Pipes.drain(process.getErrorStream()).exceptionally(e -> new byte[0]);
            try (OutputStream in = feeder.getOutputStream()) {
                in.write((sha256.join() + "\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // the file could not be read, or the remote end closed its input: the script says which
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new ConnectionException("upload to " + target.address() + " timed out after " + Durations.human(timeout));
            }
            ExecResult result = new ExecResult(process.exitValue(), out.join(), err.join());
            return result.exitCode() == SSH_FAILED ? Optional.empty() : Optional.of(result);
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while uploading to " + target.address(), e);
        } finally {
            if (feeder != null) {
                feeder.destroyForcibly();
            }
            deleteQuietly(dir);
        }
    }

    /** The argument vector: every option that could widen trust or wait on a person is set off. */
    static List<String> command(Target target, Path knownHosts, String script) {
        List<String> argv = new ArrayList<>(List.of(SSH.toString(), "-F", "/dev/null", "-T", "-e", "none",
                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "HostKeyAlias=" + ALIAS, "-o", "CheckHostIP=no",
                "-o", "UpdateHostKeys=no", "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
                "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no", "-o", "GSSAPIAuthentication=no",
                "-o", "ControlMaster=no", "-o", "ControlPath=none", "-o", "ForwardAgent=no", "-o", "ForwardX11=no",
                "-o", "ClearAllForwardings=yes", "-o", "LogLevel=ERROR",
                "-o", "ConnectTimeout=" + Math.max(1, target.connectTimeout().toSeconds()),
                "-o", "ServerAliveInterval=" + target.keepAliveSeconds(), "-o", "ServerAliveCountMax=" + target.keepAliveCount()));
        if (AES_INSTRUCTIONS) {
            argv.addAll(List.of("-o", "Ciphers=" + CIPHERS_AES_FIRST));
        }
        for (Path key : target.keyFiles()) {
            argv.add("-i");
            argv.add(key.toString());
        }
        argv.addAll(List.of("-l", target.user(), "-p", Integer.toString(target.port()), "--", target.address(),
                "exec /bin/sh -c " + dev.provision.modules.text.ShellWords.quote(script)));
        return argv;
    }

    /** Whether the CPU that {@code cpuinfo} describes has AES instructions (x86's and Arm's flag: {@code aes}). */
    static boolean hasAesInstructions(Path cpuinfo) {
        try (var lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("flags") || l.startsWith("Features"))
                    .anyMatch(l -> List.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+")).contains("aes"));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (var entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a temp directory of a known-hosts line; nothing secret in it
        }
    }
}
