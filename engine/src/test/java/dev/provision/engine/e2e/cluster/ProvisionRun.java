package dev.provision.engine.e2e.cluster;

import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of the real launcher {@code ./provision} (the packaged jar), as a sysadmin types it, and what
 * it printed (stdout and stderr together, without colour).
 */
record ProvisionRun(List<String> args, int exitCode, String output) {
    /** The launcher as the tests invoke it, and so the first word of every command provision prints. */
    static final String LAUNCHER = TestCluster.REPO.resolve("provision").toString();
    private static final Pattern RECAP_LINE = Pattern.compile("(?m)^(\\S+)\\s+: ok=\\d+");

    static ProvisionRun of(String... args) throws IOException, InterruptedException {
        return of(List.of(args));
    }

    static ProvisionRun of(List<String> args) throws IOException, InterruptedException {
        dev.provision.engine.e2e.Launched.Output out = dev.provision.engine.e2e.Launched.run(builder(args, ProcessBuilder.Redirect.PIPE),
                java.time.Duration.ofMinutes(10));
        ProvisionRun run = new ProvisionRun(List.copyOf(args), out.exitCode(), out.stdout());
        // Keep the full output in the build log: what a sysadmin would have seen, for whoever reads a failure.
        System.out.println("$ provision " + ShellWords.join(args) + "\n" + run.output() + "[exit " + run.exitCode() + "]\n");
        return run;
    }

    /**
     * Starts the launcher without waiting for it, its output (stdout and stderr) going to
     * {@code output}; for tests that kill or signal the controller mid-run.
     */
    static Process start(List<String> args, ProcessBuilder.Redirect output) throws IOException {
        return builder(args, output).start();
    }

    private static ProcessBuilder builder(List<String> args, ProcessBuilder.Redirect output) {
        List<String> command = new ArrayList<>();
        command.add(LAUNCHER);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(TestCluster.REPO.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(output);
        builder.environment().put("NO_COLOR", "1");
        // The tests name their own store with --known-hosts; never let the environment pick another.
        builder.environment().remove("PROVISION_KNOWN_HOSTS");
        return builder;
    }

    /**
     * Runs a command line that provision printed for the user to copy ({@code /path/to/provision ...}), word
     * for word, through the same launcher.
     */
    static ProvisionRun printed(String commandLine) throws IOException, InterruptedException {
        List<String> words = ShellWords.split(commandLine);
        if (words.isEmpty() || !words.get(0).equals(LAUNCHER)) {
            throw new AssertionError("not a provision command line: " + commandLine);
        }
        return of(words.subList(1, words.size()));
    }

    /** The PLAY RECAP counter {@code key} (ok, changed, unreachable, failed, ...) of {@code host}. */
    int recap(String host, String key) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(host) + "\\s+:.*\\b" + key + "=(\\d+)").matcher(output);
        if (!m.find()) {
            throw new AssertionError("no recap line for " + host + " in:\n" + output);
        }
        return Integer.parseInt(m.group(1));
    }

    /** The hosts in the PLAY RECAP, in order. */
    Set<String> recapHosts() {
        Set<String> hosts = new LinkedHashSet<>();
        Matcher m = RECAP_LINE.matcher(output.substring(Math.max(0, output.lastIndexOf("PLAY RECAP"))));
        while (m.find()) {
            hosts.add(m.group(1));
        }
        return hosts;
    }

    /** The lines of the output that start with {@code prefix}. */
    List<String> linesStartingWith(String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).toList();
    }

    /** The first line after the first line that contains {@code heading}, stripped. */
    Optional<String> lineAfter(String heading) {
        List<String> lines = output.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).contains(heading)) {
                return Optional.of(lines.get(i + 1).strip());
            }
        }
        return Optional.empty();
    }

    /** The last line that is not blank, stripped. */
    String lastLine() {
        List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
    }
}
