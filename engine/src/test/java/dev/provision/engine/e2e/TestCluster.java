package dev.provision.engine.e2e;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The namespace test cluster ({@code testcluster/provision-testcluster}), and the site services on its
 * bridge ({@code testcluster/services}) when asked for, held by one test class. Test classes do not
 * start it themselves: {@link ClusterTest} on the class starts it before the first test and stops it
 * after the last ({@link TestClusterExtension}).
 *
 * <p>{@link #start} skips the class (JUnit assumption) when the cluster cannot run here, waits for the
 * machine-wide lock {@link #LOCK} that every user of the cluster on this machine takes, starts the nodes
 * and the services; {@link #close} stops them, lets go of the lock and deletes {@link #tmp}. The lock is
 * held by a {@code flock(1)} child process, not a Java {@code FileChannel} lock: Java locks are POSIX
 * record locks ({@code fcntl}), which on Linux do not exclude {@code flock(2)} locks, and the other users
 * of the cluster (scripts, other helpers) use {@code flock}. If this JVM dies, the child's stdin closes
 * and the lock goes with it.
 */
public final class TestCluster implements AutoCloseable {
    public static final Path SCRIPT = Provision.REPO.resolve("testcluster/provision-testcluster");
    public static final Path SERVICES = Provision.REPO.resolve("testcluster/services");
    public static final Path STATE_DIR = Path.of("/var/lib/provision-testcluster");
    /** The inventory the script writes: groups {@code cluster} and {@code gpu}, every node as root with the client key. */
    public static final Path INVENTORY = STATE_DIR.resolve("inventory.yml");
    /** Shared by every user of the cluster on this machine; see testcluster/README.md. */
    public static final Path LOCK = Path.of("/run/provision-testcluster.use.lock");
    private static final long LOCK_WAIT_SECONDS = 30 * 60;
    /** What the nodes need on this machine, whatever the test. */
    private static final List<String> NODE_TOOLS = List.of("/usr/sbin/sshd", "unshare", "nsenter", "flock", "ip", "ssh-keygen");
    /** What the site services need on top (testcluster/services). */
    private static final List<String> SERVICE_TOOLS = List.of("chronyd", "chronyc", "sshfs", "podman", "skopeo", "docker-registry",
            "busybox", "dpkg-scanpackages", "python3");
    /** RSA keys would triple the start-up time and no test needs them. */
    private static final Map<String, String> HOST_KEY_TYPES = Map.of("PVTC_HOST_KEY_TYPES", "ed25519 ecdsa");

    /** Exit status and output (stdout and stderr together) of a command run for a test. */
    public record Result(int exitCode, String output) {
        public Result expectSuccess(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " exited " + exitCode + ":\n" + output);
            }
            return this;
        }
    }

    private final int nodes;
    private final boolean withServices;
    private final Path tmp;
    private final Process lockHolder;

    private TestCluster(int nodes, boolean withServices, Path tmp, Process lockHolder) {
        this.nodes = nodes;
        this.withServices = withServices;
        this.tmp = requireNonNull(tmp, "tmp cannot be null");
        this.lockHolder = requireNonNull(lockHolder, "lockHolder cannot be null");
    }

    /**
     * Skips the calling test class when the cluster (or one of {@code needs}) cannot run here, else waits
     * for the lock and starts {@code nodes} nodes with ed25519 and ECDSA host keys, and the site services
     * when {@code withServices}.
     */
    public static TestCluster start(int nodes, boolean withServices, List<String> needs) throws IOException, InterruptedException {
        assumeClusterCanRun(withServices, needs);
        TestCluster cluster = new TestCluster(nodes, withServices, Files.createTempDirectory("provision-testcluster-"), acquireLock());
        try {
            cluster.script(HOST_KEY_TYPES, Duration.ofMinutes(5), "start", Integer.toString(nodes));
            if (withServices) {
                cluster.services("start").expectSuccess("testcluster/services start");
            }
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private static void assumeClusterCanRun(boolean withServices, List<String> needs) throws IOException, InterruptedException {
        Assumptions.assumeTrue(Files.isExecutable(SCRIPT), "no test cluster script at " + SCRIPT);
        Assumptions.assumeTrue("0".equals(command(List.of("id", "-u"), Map.of(), Duration.ofSeconds(10)).output().strip()),
                "the test cluster needs root (network and mount namespaces); run the tests as root, as .ci/run does");
        List<String> tools = new ArrayList<>(NODE_TOOLS);
        if (withServices) {
            tools.addAll(SERVICE_TOOLS);
        }
        tools.addAll(needs);
        List<String> missing = tools.stream().filter(t -> !onPath(t)).toList();
        Assumptions.assumeTrue(missing.isEmpty(), "the test cluster needs " + missing
                + " (Debian: testcluster/provision-testcluster --install-deps, .ci/install-deps install everything)");
    }

    /** Whether {@code tool} (a name on PATH or an absolute path) is there to run. */
    public static boolean onPath(String tool) {
        if (tool.startsWith("/")) {
            return Files.isExecutable(Path.of(tool));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    private static Process acquireLock() throws IOException {
        // flock runs "echo; cat" once it holds the lock: the line says "locked", and cat keeps the lock
        // until we close its stdin.
        Process holder = new ProcessBuilder("flock", "-w", Long.toString(LOCK_WAIT_SECONDS), LOCK.toString(),
                "sh", "-c", "echo locked; exec cat >/dev/null")
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

    public int size() {
        return nodes;
    }

    /** The test cluster's name for node {@code k}: {@code node03} for 3. */
    public static String node(int k) {
        return String.format("node%02d", k);
    }

    /** Node K's address, {@code 10.213.0.(10+K)}. */
    public String address(int k) {
        return "10.213.0." + (10 + k);
    }

    public List<String> nodeNames() {
        List<String> names = new ArrayList<>();
        for (int k = 1; k <= nodes; k++) {
            names.add(node(k));
        }
        return List.copyOf(names);
    }

    /** A directory of this class's own, deleted when the cluster stops. */
    public Path tmp() {
        return tmp;
    }

    /** The inventory the script writes ({@link #INVENTORY}). */
    public Path inventory() {
        return INVENTORY;
    }

    /** The private key the nodes accept for root. */
    public Path clientKey() {
        return STATE_DIR.resolve("id_ed25519");
    }

    /**
     * The bring-up inventory, under {@link #tmp}: the test cluster's hosts, and group_vars/gpu.yml with
     * the test values ({@code /e2e/bringup/gpu.yml}) plus the services' addresses and keys.
     */
    public Path bringUpInventory() throws IOException, InterruptedException {
        Path dir = tmp.resolve("inventory");
        Files.createDirectories(dir.resolve("group_vars"));
        Path file = dir.resolve("inventory.yml");
        Files.copy(INVENTORY, file);
        String testVars;
        try (java.io.InputStream in = TestCluster.class.getResourceAsStream("/e2e/bringup/gpu.yml")) {
            testVars = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String serviceVars = services("vars").expectSuccess("testcluster/services vars").output();
        Files.writeString(dir.resolve("group_vars/gpu.yml"), testVars + "\n# from testcluster/services vars\n" + serviceVars
                + "cluster_key_dir: " + tmp.resolve("cluster-key") + "\n");
        return file;
    }

    /** Destroys node K and recreates it fresh: new files, new host keys, same name and address. */
    public void replace(int k) throws IOException, InterruptedException {
        script(HOST_KEY_TYPES, Duration.ofMinutes(2), "replace", Integer.toString(k));
    }

    public void sshdStop(int k) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "sshd-stop", Integer.toString(k));
    }

    public void sshdStart(int k) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "sshd-start", Integer.toString(k));
    }

    /** Throttles writes under {@code path} on node K to {@code bytesPerSecond} (a loop device behind the blkio controller). */
    public void slowDisk(int k, String path, long bytesPerSecond) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(5), "slow-disk", Integer.toString(k), path, Long.toString(bytesPerSecond));
    }

    /** Throttles what reaches node K (its link, host side) to {@code rate} (tc's units: {@code 100mbit}). */
    public void slowLink(int k, String rate) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "slow-link", Integer.toString(k), rate);
    }

    /** Throttles only what node {@code peer} sends node K: one pair's path. */
    public void slowPath(int k, String rate, int peer) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "slow-link", Integer.toString(k), rate, Integer.toString(peer));
    }

    /** Starves TCP to and from ports {@code port}..{@code port}+7 on node K's link (a firewall). */
    public void blockPorts(int k, int port) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "block-port", Integer.toString(k), Integer.toString(port));
    }

    /** Takes node K's link down, as a pulled cable: the node runs on, nothing reaches it ({@link #healLink} brings it back). */
    public void cutLink(int k) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "cut-link", Integer.toString(k));
    }

    /** Removes node K's link faults (and brings a cut link back up). */
    public void healLink(int k) throws IOException, InterruptedException {
        script(Map.of(), Duration.ofMinutes(1), "heal-link", Integer.toString(k));
    }

    /** Runs {@code command} inside node K without SSH; fails the test when it exits non-zero; its stdout. */
    public String exec(int k, String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("exec", Integer.toString(k)));
        args.addAll(List.of(command));
        return script(Map.of(), Duration.ofMinutes(2), args.toArray(String[]::new));
    }

    /** {@code script} run by bash inside node K's namespaces (no SSH involved), whatever its exit status. */
    public Result inNode(int k, String script) throws IOException, InterruptedException {
        return command(List.of(SCRIPT.toString(), "exec", String.valueOf(k), "bash", "-c", script), Map.of(), Duration.ofMinutes(5));
    }

    /** {@code testcluster/services} with {@code args}, whatever its exit status. */
    public Result services(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(SERVICES.toString()));
        command.addAll(List.of(args));
        return command(command, Map.of(), Duration.ofMinutes(5));
    }

    /**
     * Path, type, mode, owner and SHA-256 of everything under {@code dirs} on node K (those that
     * exist), to prove that a run changed nothing there.
     */
    public String treeDigest(int k, String... dirs) throws IOException, InterruptedException {
        String quoted = String.join(" ", List.of(dirs).stream().map(d -> "'" + d + "'").toList());
        String script = "for d in " + quoted + "; do [ -e \"$d\" ] || echo \"absent $d\"; done; "
                + "find " + quoted + " -xdev -print0 2>/dev/null | sort -z | xargs -0 -r stat -c '%n %F %a %U:%G'; "
                + "find " + quoted + " -xdev -type f -print0 2>/dev/null | sort -z | xargs -0 -r sha256sum";
        return exec(k, "sh", "-c", script);
    }

    /** How many logins node K's sshd has accepted since it started (its log, {@code Accepted publickey}). */
    public int acceptedLogins(int k) throws IOException, InterruptedException {
        String log = exec(k, "cat", "/var/log/sshd.log");
        return (int) log.lines().filter(l -> l.contains("Accepted publickey for root")).count();
    }

    /** Node K's public host key of {@code type} ({@code ed25519}), as {@code ssh-ed25519 AAAA...}. */
    public String hostKey(int k, String type) throws IOException, InterruptedException {
        String[] fields = exec(k, "cat", "/etc/ssh/ssh_host_" + type + "_key.pub").strip().split("\\s+");
        return fields[0] + " " + fields[1];
    }

    /** Node K's host key fingerprint of {@code type}, {@code SHA256:...}, as {@code ssh-keygen -l} prints it. */
    public String fingerprint(int k, String type) throws IOException, InterruptedException {
        return exec(k, "ssh-keygen", "-l", "-f", "/etc/ssh/ssh_host_" + type + "_key.pub").strip().split("\\s+")[1];
    }

    /**
     * Stops the services and the nodes, lets go of the lock and deletes {@link #tmp}; never throws, so
     * that the lock is always released.
     */
    @Override
    public void close() {
        try {
            if (withServices) {
                services("stop");
            }
            script(Map.of(), Duration.ofMinutes(2), "stop");
        } catch (IOException | RuntimeException | Error e) {
            System.err.println("test cluster: stop failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            releaseLock();
            deleteTmp();
        }
    }

    private void releaseLock() {
        try {
            lockHolder.getOutputStream().close();
            if (!lockHolder.waitFor(30, TimeUnit.SECONDS)) {
                lockHolder.destroyForcibly();
            }
        } catch (IOException e) {
            lockHolder.destroyForcibly();
        } catch (InterruptedException e) {
            lockHolder.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void deleteTmp() {
        try (var paths = Files.walk(tmp)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("test cluster: could not delete " + tmp + ": " + e.getMessage());
        }
    }

    /** {@code provision-testcluster args}; fails the test when it exits non-zero; its stdout. */
    private String script(Map<String, String> env, Duration limit, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Provision.REPO.toFile());
        builder.environment().putAll(env);
        Launched.Output out = Launched.run(builder, limit);
        if (out.exitCode() != 0) {
            throw new AssertionError("provision-testcluster " + String.join(" ", args) + " exited " + out.exitCode()
                    + ":\n" + out.stdout() + out.stderr());
        }
        return out.stdout();
    }

    /**
     * Runs {@code command} from the repository root without colour, stdout and stderr together, bounded
     * by {@code limit}; for the tools a test needs beside the cluster ({@code skopeo}, {@code ssh-keygen}).
     */
    public static Result command(List<String> command, Map<String, String> env, Duration limit) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(Provision.REPO.toFile()).redirectErrorStream(true);
        builder.environment().put("NO_COLOR", "1");
        builder.environment().putAll(env);
        Launched.Output out = Launched.run(builder, limit);
        return new Result(out.exitCode(), out.stdout());
    }
}
