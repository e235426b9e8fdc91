package dev.provision.engine.e2e.cluster;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The namespace test cluster ({@code testcluster/provision-testcluster}) for one test class, used
 * exclusively: {@link #start} takes the machine-wide lock {@value #LOCK} that every user of the
 * cluster on this machine takes, starts N nodes, and {@link #close} stops them and lets go of the lock.
 *
 * <p>The lock is held by a {@code flock(1)} child process, not a Java {@code FileChannel} lock: Java
 * locks are POSIX record locks ({@code fcntl}), which on Linux do not exclude {@code flock(2)} locks,
 * and the other users of the cluster (scripts, other helpers) use {@code flock}. If this JVM dies,
 * the child's stdin closes and the lock goes with it.
 */
final class TestCluster implements AutoCloseable {
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path SCRIPT = REPO.resolve("testcluster/provision-testcluster");
    static final Path LOCK = Path.of("/run/provision-testcluster.use.lock");
    static final Path STATE_DIR = Path.of("/var/lib/provision-testcluster");
    private static final long LOCK_WAIT_SECONDS = 30 * 60;

    private final int nodes;
    private final Process lockHolder;

    private TestCluster(int nodes, Process lockHolder) {
        this.nodes = nodes;
        this.lockHolder = requireNonNull(lockHolder, "lockHolder cannot be null");
    }

    /**
     * Skips the calling test class (JUnit assumption) when the cluster cannot run here, else waits for
     * the lock and starts {@code nodes} nodes with ed25519 and ECDSA host keys (RSA keys would triple the
     * start-up time and no test needs them).
     */
    static TestCluster start(int nodes) throws IOException, InterruptedException {
        assumeClusterCanRun();
        Process holder = acquireLock();
        TestCluster cluster = new TestCluster(nodes, holder);
        try {
            cluster.script(Map.of("PVTC_HOST_KEY_TYPES", "ed25519 ecdsa"), 300, "start", Integer.toString(nodes));
        } catch (IOException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private static void assumeClusterCanRun() throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isExecutable(SCRIPT), "no test cluster script at " + SCRIPT);
        Assumptions.assumeTrue("0".equals(run(List.of("id", "-u"), Map.of(), 10).stdout().strip()),
                "the test cluster needs root (network and mount namespaces); run the tests as root, as .ci/run does");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/sshd")),
                "the test cluster needs /usr/sbin/sshd (Debian: apt-get install openssh-server)");
        for (String tool : List.of("unshare", "nsenter", "flock", "ip", "ssh-keygen")) {
            Assumptions.assumeTrue(onPath(tool), "the test cluster needs " + tool
                    + " (Debian: testcluster/provision-testcluster --install-deps installs everything)");
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    private static Process acquireLock() throws IOException {
        Process holder = new ProcessBuilder("flock", "-w", Long.toString(LOCK_WAIT_SECONDS), LOCK.toString(),
                "sh", "-c", "echo locked; exec cat")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader reader = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String line = reader.readLine();
        if (!"locked".equals(line)) {
            holder.destroy();
            throw new IllegalStateException("could not lock " + LOCK + " within " + LOCK_WAIT_SECONDS
                    + " s: another user of the test cluster holds it");
        }
        return holder;
    }

    int size() {
        return nodes;
    }

    /** {@code node03} for 3. */
    String node(int k) {
        return String.format("node%02d", k);
    }

    /** Node K's address, {@code 10.213.0.(10+K)}. */
    String address(int k) {
        return "10.213.0." + (10 + k);
    }

    List<String> nodeNames() {
        List<String> names = new ArrayList<>();
        for (int k = 1; k <= nodes; k++) {
            names.add(node(k));
        }
        return List.copyOf(names);
    }

    /** The inventory the script writes: groups {@code cluster} and {@code gpu}, every node as root with the client key. */
    Path inventory() {
        return STATE_DIR.resolve("inventory.yml");
    }

    /** The private key the nodes accept for root. */
    Path clientKey() {
        return STATE_DIR.resolve("id_ed25519");
    }

    /** Destroys node K and recreates it fresh: new files, new host keys, same name and address. */
    void replace(int k) throws IOException, InterruptedException {
        script(Map.of("PVTC_HOST_KEY_TYPES", "ed25519 ecdsa"), 120, "replace", Integer.toString(k));
    }

    void sshdStop(int k) throws IOException, InterruptedException {
        script(Map.of(), 60, "sshd-stop", Integer.toString(k));
    }

    void sshdStart(int k) throws IOException, InterruptedException {
        script(Map.of(), 60, "sshd-start", Integer.toString(k));
    }

    /** Runs {@code command} inside node K without SSH; fails the test when it exits non-zero. */
    String exec(int k, String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("exec", Integer.toString(k)));
        args.addAll(List.of(command));
        return script(Map.of(), 120, args.toArray(String[]::new)).stdout();
    }

    /**
     * Path, type, mode, owner and SHA-256 of everything under {@code dirs} on node K (those that
     * exist), to prove that a run changed nothing there.
     */
    String treeDigest(int k, String... dirs) throws IOException, InterruptedException {
        String quoted = String.join(" ", List.of(dirs).stream().map(d -> "'" + d + "'").toList());
        String script = "for d in " + quoted + "; do [ -e \"$d\" ] || echo \"absent $d\"; done; "
                + "find " + quoted + " -xdev -print0 2>/dev/null | sort -z | xargs -0 -r stat -c '%n %F %a %U:%G'; "
                + "find " + quoted + " -xdev -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum";
        return exec(k, "sh", "-c", script);
    }

    /** How many logins node K's sshd has accepted since it started (its log, {@code Accepted publickey}). */
    int acceptedLogins(int k) throws IOException, InterruptedException {
        String log = exec(k, "cat", "/var/log/sshd.log");
        return (int) log.lines().filter(l -> l.contains("Accepted publickey for root")).count();
    }

    /** Node K's public host key of {@code type} ({@code ed25519}), as {@code ssh-ed25519 AAAA...}. */
    String hostKey(int k, String type) throws IOException, InterruptedException {
        String[] fields = exec(k, "cat", "/etc/ssh/ssh_host_" + type + "_key.pub").strip().split("\\s+");
        return fields[0] + " " + fields[1];
    }

    /** Node K's host key fingerprint of {@code type}, {@code SHA256:...}, as {@code ssh-keygen -l} prints it. */
    String fingerprint(int k, String type) throws IOException, InterruptedException {
        return exec(k, "ssh-keygen", "-l", "-f", "/etc/ssh/ssh_host_" + type + "_key.pub").strip().split("\\s+")[1];
    }

    /** Stops every node and lets go of the lock; never throws, so that the lock is always released. */
    @Override
    public void close() {
        try {
            script(Map.of(), 120, "stop");
        } catch (IOException | RuntimeException | Error e) {
            System.err.println("test cluster: stop failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                lockHolder.getOutputStream().close();
                if (!lockHolder.waitFor(10, TimeUnit.SECONDS)) {
                    lockHolder.destroy();
                }
            } catch (IOException e) {
                lockHolder.destroy();
            } catch (InterruptedException e) {
                lockHolder.destroy();
                Thread.currentThread().interrupt();
            }
        }
    }

    record Output(int exitCode, String stdout, String stderr) {
    }

    private Output script(Map<String, String> env, long timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        Output output = run(command, env, timeoutSeconds);
        if (output.exitCode() != 0) {
            throw new AssertionError("provision-testcluster " + String.join(" ", args) + " exited " + output.exitCode()
                    + ":\n" + output.stdout() + output.stderr());
        }
        return output;
    }

    private static Output run(List<String> command, Map<String, String> env, long timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(env);
        // Both pipes drained while waiting: neither a full pipe nor a child holding one open hangs the test.
        dev.provision.engine.e2e.Launched.Output out = dev.provision.engine.e2e.Launched.run(builder, java.time.Duration.ofSeconds(timeoutSeconds));
        return new Output(out.exitCode(), out.stdout(), out.stderr());
    }

}
