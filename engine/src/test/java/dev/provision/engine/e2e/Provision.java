package dev.provision.engine.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the real launcher {@code ./provision} (the packaged jar) as a user would, from the repository
 * root, without colour, stdin closed, stdout and stderr together, and reads what it printed and the
 * {@code --json} report it wrote. Every run is bounded by {@link #LIMIT} through {@link Launched}: a
 * launcher that hangs with its output open fails the test instead of hanging the build.
 */
public final class Provision {
    public static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    /** The launcher as the tests invoke it, and so the first word of every command provision prints. */
    public static final String LAUNCHER = REPO.resolve("provision").toString();
    /** How long one run may take before it is killed and the test fails. */
    public static final Duration LIMIT = Duration.ofMinutes(10);
    private static final Pattern RECAP_LINE = Pattern.compile("(?m)^(\\S+)\\s+: ok=\\d+");
    private static final Pattern CHANGED = Pattern.compile("(?m)^(?:TASK|RUNNING HANDLER) \\[(.*)\\]|^changed: \\[(.*?)\\]");

    private Provision() {
    }

    /**
     * One finished run: the arguments after the launcher, the exit status and what it printed
     * (stdout and stderr together).
     */
    public record Result(List<String> args, int exitCode, String output) {
        public Result {
            args = List.copyOf(args);
        }

        public Result expectSuccess(String what) {
            if (exitCode != 0) {
                throw new AssertionError(what + " exited " + exitCode + ":\n" + output);
            }
            return this;
        }

        /** The PLAY RECAP counter {@code key} (ok, changed, unreachable, failed, ...) of {@code host}. */
        public int recap(String host, String key) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(host) + "\\s+:.*\\b" + key + "=(\\d+)").matcher(output);
            if (!m.find()) {
                throw new AssertionError("no recap line for " + host + " in:\n" + output);
            }
            return Integer.parseInt(m.group(1));
        }

        /** The hosts in the (last) PLAY RECAP, in order. */
        public Set<String> recapHosts() {
            Set<String> hosts = new LinkedHashSet<>();
            Matcher m = RECAP_LINE.matcher(output.substring(Math.max(0, output.lastIndexOf("PLAY RECAP"))));
            while (m.find()) {
                hosts.add(m.group(1));
            }
            return hosts;
        }

        /**
         * Host -> the names of the tasks (and handlers) the output reports "changed" on it;
         * {@code node01..nodeN} first, each present even when nothing changed there.
         */
        public Map<String, Set<String>> changedTasks(int nodes) {
            Map<String, Set<String>> byHost = new LinkedHashMap<>();
            for (int k = 1; k <= nodes; k++) {
                byHost.put(TestCluster.node(k), new TreeSet<>());
            }
            String task = "";
            Matcher m = CHANGED.matcher(output);
            while (m.find()) {
                if (m.group(1) != null) {
                    task = m.group(1);
                } else {
                    byHost.computeIfAbsent(m.group(2), h -> new TreeSet<>()).add(task);
                }
            }
            return byHost;
        }

        /** The lines of the output that start with {@code prefix}. */
        public List<String> linesStartingWith(String prefix) {
            return output.lines().filter(l -> l.startsWith(prefix)).toList();
        }

        /** The first line after the first line that contains {@code heading}, stripped. */
        public Optional<String> lineAfter(String heading) {
            List<String> lines = output.lines().toList();
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).contains(heading)) {
                    return Optional.of(lines.get(i + 1).strip());
                }
            }
            return Optional.empty();
        }

        /** The last line that is not blank, stripped. */
        public String lastLine() {
            List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
        }

        /** The report the run wrote to the file named by its {@code --json} argument. */
        public JsonNode report() throws IOException {
            int at = args.indexOf("--json");
            if (at < 0 || at + 1 >= args.size()) {
                throw new AssertionError("the run had no --json argument: " + args);
            }
            return new ObjectMapper().readTree(Path.of(args.get(at + 1)).toFile());
        }
    }

    public static Result run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), List.of(args));
    }

    public static Result run(List<String> args) throws IOException, InterruptedException {
        return run(Map.of(), args);
    }

    /** A run that records and checks host keys in {@code knownHosts} (PROVISION_KNOWN_HOSTS). */
    public static Result run(Path knownHosts, String... args) throws IOException, InterruptedException {
        return run(Map.of("PROVISION_KNOWN_HOSTS", knownHosts.toString()), List.of(args));
    }

    public static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(env, List.of(args));
    }

    /** Runs the launcher with {@code args} and {@code env} added to the environment, and waits at most {@link #LIMIT}. */
    public static Result run(Map<String, String> env, List<String> args) throws IOException, InterruptedException {
        Launched.Output out = Launched.run(builder(env, args, ProcessBuilder.Redirect.PIPE), LIMIT);
        Result run = new Result(args, out.exitCode(), out.stdout());
        // Keep the full output in the build log: what a sysadmin would have seen, for whoever reads a failure.
        System.out.println("$ provision " + ShellWords.join(args) + "\n" + run.output() + "[exit " + run.exitCode() + "]\n");
        return run;
    }

    /**
     * Runs a command line that provision printed for the user to copy ({@code /path/to/provision ...}),
     * word for word, through the same launcher.
     */
    public static Result printed(String commandLine) throws IOException, InterruptedException {
        return printed(Map.of(), commandLine);
    }

    public static Result printed(Map<String, String> env, String commandLine) throws IOException, InterruptedException {
        List<String> words = ShellWords.split(commandLine);
        if (words.isEmpty() || !words.get(0).equals(LAUNCHER)) {
            throw new AssertionError("not a provision command line: " + commandLine);
        }
        return run(env, words.subList(1, words.size()));
    }

    /**
     * Starts the launcher without waiting for it, its output (stdout and stderr) going to
     * {@code output}; for tests that kill or signal the controller mid-run, and so bound it themselves.
     */
    public static Process start(List<String> args, ProcessBuilder.Redirect output) throws IOException {
        return builder(Map.of(), args, output).start();
    }

    private static ProcessBuilder builder(Map<String, String> env, List<String> args, ProcessBuilder.Redirect output) {
        List<String> command = new ArrayList<>();
        // As from a terminal: a suite started in the background (a script's '&') inherits SIGINT
        // ignored (POSIX), and provision would rightly never see the Ctrl-C a test sends it.
        command.addAll(List.of("env", "--default-signal=INT"));
        command.add(LAUNCHER);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(output);
        builder.environment().put("NO_COLOR", "1");
        // A test names its own store (--known-hosts or env); never let the developer's environment pick another.
        builder.environment().remove("PROVISION_KNOWN_HOSTS");
        builder.environment().putAll(env);
        return builder;
    }

    /** A digest of every file under {@code dir}: path, mode and content, to prove "changed nothing". */
    public static String treeDigest(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return "<absent>";
        }
        StringBuilder sb = new StringBuilder();
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted().toList()) {
                sb.append(dir.relativize(p)).append(' ');
                sb.append(Files.isDirectory(p) ? "dir " : Files.isSymbolicLink(p) ? "link " + Files.readSymbolicLink(p) : "file ");
                sb.append(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)));
                if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    sb.append(' ').append(java.util.HexFormat.of().formatHex(sha256(Files.readAllBytes(p))));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static byte[] sha256(byte[] data) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
