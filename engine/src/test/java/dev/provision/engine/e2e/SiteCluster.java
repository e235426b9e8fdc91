package dev.provision.engine.e2e;

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

/**
 * The namespace test cluster, its host-side services and the real {@code ./provision} launcher, as the
 * bring-up and pre-flight tests drive them: every call is a process, output and exit status kept.
 */
public final class SiteCluster {
    public static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    public static final Path SCRIPT = REPO.resolve("testcluster/provision-testcluster");
    public static final Path SERVICES = REPO.resolve("testcluster/services");
    public static final Path INVENTORY = Path.of("/var/lib/provision-testcluster/inventory.yml");
    /** Shared by every helper on this machine; see testcluster/README.md. */
    public static final Path USE_LOCK = Path.of("/run/provision-testcluster.use.lock");

    public record Result(int exitCode, String output) {
        public Result expectSuccess(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " exited " + exitCode + ":\n" + output);
            }
            return this;
        }
    }

    private SiteCluster() {
    }

    public static Result run(Map<String, String> env, List<String> command, long timeoutMinutes) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true);
        pb.environment().put("NO_COLOR", "1");
        pb.environment().putAll(env);
        Launched.Output out = Launched.run(pb, java.time.Duration.ofMinutes(timeoutMinutes));
        return new Result(out.exitCode(), out.stdout());
    }

    public static Result cluster(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(SCRIPT.toString()));
        cmd.addAll(List.of(args));
        return run(Map.of("PVTC_HOST_KEY_TYPES", "ed25519 ecdsa"), cmd, 5);
    }

    public static Result services(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(SERVICES.toString()));
        cmd.addAll(List.of(args));
        return run(Map.of(), cmd, 5);
    }

    /** {@code script} run by bash inside node {@code k}'s namespaces (no SSH involved). */
    public static Result inNode(int k, String script) throws IOException, InterruptedException {
        return run(Map.of(), List.of(SCRIPT.toString(), "exec", String.valueOf(k), "bash", "-c", script), 5);
    }

    public static Result provision(Path knownHosts, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(REPO.resolve("provision").toString()));
        cmd.addAll(List.of(args));
        return run(Map.of("PROVISION_KNOWN_HOSTS", knownHosts.toString()), cmd, 10);
    }

    public static boolean onPath(String tool) {
        if (tool.startsWith("/")) {
            return Files.isExecutable(Path.of(tool));
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    /**
     * Holds the machine's cluster lock the way every other user of it does: flock(1) on
     * {@link #USE_LOCK} (flock(2) locks; a Java FileChannel lock is an fcntl lock, which flock(1)
     * holders would not see). The lock is held until {@link #close}.
     */
    public static final class Lock implements AutoCloseable {
        private final Process holder;

        public Lock() throws IOException {
            // flock runs "echo; cat" once it holds the lock: the line says "held", and cat keeps
            // the lock until we close its stdin.
            holder = new ProcessBuilder("flock", USE_LOCK.toString(), "sh", "-c", "echo held; exec cat >/dev/null")
                    .redirectErrorStream(true).start();
            BufferedReader reader = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line = reader.readLine();
            if (!"held".equals(line)) {
                holder.destroy();
                throw new IOException("could not take " + USE_LOCK + ": " + line);
            }
        }

        @Override
        public void close() throws IOException {
            holder.getOutputStream().close();
            try {
                if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                    holder.destroyForcibly();
                }
            } catch (InterruptedException e) {
                holder.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The test cluster's name for node {@code k}: node01, node02, ... */
    public static String node(int k) {
        return String.format("node%02d", k);
    }

    /** Host -> the names of the tasks (and handlers) provision's output reports "changed" on it; node01..nodeN first. */
    public static Map<String, java.util.Set<String>> changedTasks(String output, int nodes) {
        Map<String, java.util.Set<String>> byHost = new java.util.LinkedHashMap<>();
        for (int k = 1; k <= nodes; k++) {
            byHost.put(node(k), new java.util.TreeSet<>());
        }
        String task = "";
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^(?:TASK|RUNNING HANDLER) \\[(.*)\\]|^changed: \\[(.*?)\\]").matcher(output);
        while (m.find()) {
            if (m.group(1) != null) {
                task = m.group(1);
            } else {
                byHost.computeIfAbsent(m.group(2), h -> new java.util.TreeSet<>()).add(task);
            }
        }
        return byHost;
    }

    /**
     * The site cluster held by one test class: the lock, {@code nodes} nodes, the site services when
     * asked for, and a temporary directory; {@link #close} stops what was started, lets go of the
     * lock and deletes the directory. Every cluster test class sets up and tears down this way.
     */
    public static final class Session implements AutoCloseable {
        public final Path tmp;
        private final Lock lock;
        private final boolean withServices;

        private Session(Path tmp, Lock lock, boolean withServices) {
            this.tmp = tmp;
            this.lock = lock;
            this.withServices = withServices;
        }

        public static Session start(String name, int nodes, boolean withServices) throws IOException, InterruptedException {
            Session session = new Session(Files.createTempDirectory(name), new Lock(), withServices);
            try {
                cluster("start", String.valueOf(nodes)).expectSuccess("provision-testcluster start");
                if (withServices) {
                    services("start").expectSuccess("testcluster/services start");
                }
                return session;
            } catch (IOException | InterruptedException | RuntimeException | Error e) {
                session.close();
                throw e;
            }
        }

        /**
         * The bring-up inventory: the test cluster's hosts, and group_vars/gpu.yml with the test
         * values ({@code /e2e/bringup/gpu.yml}) plus the services' addresses and keys.
         */
        public Path bringUpInventory() throws IOException, InterruptedException {
            Path dir = tmp.resolve("inventory");
            Files.createDirectories(dir.resolve("group_vars"));
            Path file = dir.resolve("inventory.yml");
            Files.copy(INVENTORY, file);
            String testVars;
            try (java.io.InputStream in = SiteCluster.class.getResourceAsStream("/e2e/bringup/gpu.yml")) {
                testVars = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String serviceVars = services("vars").expectSuccess("testcluster/services vars").output();
            Files.writeString(dir.resolve("group_vars/gpu.yml"), testVars + "\n# from testcluster/services vars\n" + serviceVars
                    + "cluster_key_dir: " + tmp.resolve("cluster-key") + "\n");
            return file;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            try {
                if (withServices) {
                    services("stop");
                }
                cluster("stop");
            } finally {
                lock.close();
                try (var paths = Files.walk(tmp)) {
                    for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }
}
