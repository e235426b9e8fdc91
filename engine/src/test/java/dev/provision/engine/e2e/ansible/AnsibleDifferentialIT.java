package dev.provision.engine.e2e.ansible;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.engine.cli.ProvisionCommand;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file modules against Ansible itself: every case of {@link AnsibleCases} runs through the real
 * {@code ansible-playbook -c local} (twice) and through provision in process ({@code --check}, then
 * twice), each tool on its own copy of the start files; the test compares, per case, the status
 * of each run (ok, changed, failed), the bytes, modes and link targets left on disk after each run,
 * and that provision's {@code --check} forecast the run and changed nothing. A case listed as an
 * intended difference must still differ (else the table is stale). All cases are batched into one
 * playbook per tool run: Ansible's cost is a Python process per task (~0.6 s of CPU), so the cases
 * are dealt to {@link #SHARDS} playbooks, each run by its own {@code ansible-playbook} side by side
 * (one controller each, and no task skipped on a host that does not own it), while provision's own
 * runs go on in this JVM. Ansible's outcomes are a function of the table and Ansible's version alone,
 * so they are kept in {@code target/ansible-differential-cache/} under a digest of both: a rerun with
 * the same table costs only provision's runs ({@code PROVISION_ANSIBLE_FRESH=1} asks Ansible again).
 * Skipped where Ansible is missing. Writes the whole comparison to {@code target/ansible-differential.txt}.
 * An IT, not a unit test, for its minutes of Ansible: failsafe runs it in one fork while the
 * cluster tests run in the other, and its {@code ansible-playbook}s run niced, on what those leave.
 */
class AnsibleDifferentialIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Ansible processes run side by side: one more than 2 cores, as each waits on its modules' processes. */
    private static final int SHARDS = 3;

    @TempDir
    Path tmp;

    /** What one tool's run left for one case. */
    record Outcome(String status, String message, String tree) {
    }

    @Test
    void fileModulesLeaveTheBytesAnsibleLeaves() throws Exception {
        assumeTrue(onPath("ansible-playbook"), "ansible-playbook is not installed (apt-get install ansible-core)");
        List<DiffCase> cases = AnsibleCases.all();
        assertTrue(cases.size() >= 150, "the table has " + cases.size() + " cases");
        long started = System.nanoTime();
        Path controller = Files.createDirectories(tmp.resolve("controller"));
        writeControllerFiles(controller, cases);

        long ansibleStarted = System.nanoTime();
        Path cached = Path.of("target", "ansible-differential-cache", digest(cases) + ".json");
        boolean fromCache = Files.exists(cached) && System.getenv("PROVISION_ANSIBLE_FRESH") == null;
        // Ansible's two runs in the background while provision's go on here: each tool on its own files.
        ExecutorService background = Executors.newSingleThreadExecutor();
        Future<List<Map<String, Outcome>>> ansibleRuns = background.submit(() -> {
            if (fromCache) {
                return JSON.readValue(cached.toFile(), new TypeReference<List<Map<String, Outcome>>>() { });
            }
            List<Map<String, Outcome>> runs = ansibleRuns(controller, cases);
            Files.createDirectories(cached.getParent());
            JSON.writeValue(cached.toFile(), runs);
            return runs;
        });
        background.shutdown();

        Path provisionRoot = tmp.resolve("provision");
        Map<String, String> startTrees;
        Map<String, Outcome> check;
        List<Map<String, Outcome>> provision = new ArrayList<>();
        try {
            setUp(provisionRoot, cases);
            startTrees = trees(cases, provisionRoot);
            Path provisionBook = write(controller.resolve("provision.yml"), playbook(cases, provisionRoot));
            check = outcomes(cases, provisionRoot, runProvision(controller, provisionBook, true));
            for (int run = 0; run < 2; run++) {
                provision.add(outcomes(cases, provisionRoot, runProvision(controller, provisionBook, false)));
            }
        } catch (Exception | Error e) {
            ansibleRuns.cancel(true); // ends the ansible-playbook processes (see run)
            throw e;
        }
        List<Map<String, Outcome>> ansible;
        try {
            ansible = ansibleRuns.get();
        } catch (ExecutionException e) {
            throw new AssertionError("Ansible's runs failed", e.getCause());
        }
        long ansibleSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - ansibleStarted);

        StringBuilder report = new StringBuilder();
        List<String> problems = new ArrayList<>();
        int agreeing = 0;
        int intended = 0;
        for (DiffCase c : cases) {
            List<String> differences = new ArrayList<>();
            for (int run = 0; run < 2; run++) {
                compare(differences, "run " + (run + 1), ansible.get(run).get(c.id()), provision.get(run).get(c.id()));
            }
            List<String> own = new ArrayList<>();
            Outcome forecast = check.get(c.id());
            // A validator runs only on the file written; --check (Ansible's too) forecasts the write.
            boolean refusedByValidator = c.args().containsKey("validate") && forecast.status().equals("changed")
                    && provision.get(0).get(c.id()).status().equals("failed");
            if (!forecast.status().equals(provision.get(0).get(c.id()).status()) && !refusedByValidator) {
                own.add("--check said " + forecast.status() + ", the run " + provision.get(0).get(c.id()).status()
                        + " (" + forecast.message() + ")");
            }
            if (!forecast.tree().equals(startTrees.get(c.id()))) {
                own.add("--check changed the files:\n" + forecast.tree());
            }
            String verdict;
            if (c.intended().isPresent()) {
                intended++;
                verdict = differences.isEmpty() ? "STALE" : "intended";
                if (differences.isEmpty()) {
                    problems.add(c.id() + ": listed as an intended difference (" + c.intended().get() + ") but agrees with Ansible");
                }
            } else {
                verdict = differences.isEmpty() ? "agrees" : "DIFFERS";
                if (differences.isEmpty()) {
                    agreeing++;
                } else {
                    problems.add(c.id() + ":\n  " + String.join("\n  ", differences));
                }
            }
            if (!own.isEmpty()) {
                problems.add(c.id() + " (provision alone):\n  " + String.join("\n  ", own));
            }
            report.append(String.format("%-8s %s%n", verdict, c.id()));
            c.intended().ifPresent(r -> report.append("         why: ").append(r).append('\n'));
            for (String d : differences) {
                report.append("         ").append(d.replace("\n", "\n         ")).append('\n');
            }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        String summary = cases.size() + " cases: " + agreeing + " agree with Ansible, " + intended
                + " intended differences, " + problems.size() + " problems; " + seconds + " s (Ansible's two runs "
                + (fromCache ? "from " + cached : ansibleSeconds + " s") + ")";
        report.append(summary).append('\n');
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "ansible-differential.txt"), report);
        System.out.println("ansible differential: " + summary);
        assertEquals(List.of(), problems, summary + "; full report in target/ansible-differential.txt");
    }

    /** What Ansible's outcomes depend on: its version, the table, the callback that reports them. */
    private String digest(List<DiffCase> cases) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(run(new ProcessBuilder("ansible-playbook", "--version").redirectErrorStream(true), 60).getBytes(StandardCharsets.UTF_8));
        sha.update(cases.toString().getBytes(StandardCharsets.UTF_8));
        sha.update(Integer.toString(SHARDS).getBytes(StandardCharsets.UTF_8));
        try (InputStream in = getClass().getResourceAsStream("/e2e/ansible/caselog.py")) {
            sha.update(in.readAllBytes());
        }
        return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    }

    private static void compare(List<String> differences, String run, Outcome ansible, Outcome provision) {
        if (!ansible.status().equals(provision.status())) {
            differences.add(run + ": Ansible " + ansible.status() + " (" + ansible.message() + "), provision "
                    + provision.status() + " (" + provision.message() + ")");
        }
        if (!ansible.tree().equals(provision.tree())) {
            differences.add(run + ": files differ\n  Ansible:\n    " + ansible.tree().strip().replace("\n", "\n    ")
                    + "\n  provision:\n    " + provision.tree().strip().replace("\n", "\n    "));
        }
    }

    // --- the start files ---------------------------------------------------------------------------

    private static void setUp(Path root, List<DiffCase> cases) throws IOException {
        for (DiffCase c : cases) {
            Path dir = Files.createDirectories(caseDir(root, cases, c));
            List<DiffCase.Start> directories = new ArrayList<>();
            for (DiffCase.Start s : c.start()) {
                Path p = dir.resolve(s.path());
                Files.createDirectories(p.getParent());
                switch (s.kind()) {
                    case FILE -> {
                        Files.write(p, s.content().getBytes(StandardCharsets.UTF_8));
                        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx(s.mode())));
                    }
                    case DIRECTORY -> {
                        Files.createDirectories(p);
                        directories.addFirst(s);
                    }
                    case LINK -> Files.createSymbolicLink(p, Path.of(s.content().replace("@/", dir + "/")));
                    case HARD_LINK -> Files.createLink(p, dir.resolve(s.content()));
                }
            }
            // Modes last, deepest first: a directory without write permission is filled before it closes.
            for (DiffCase.Start s : directories) {
                Files.setPosixFilePermissions(dir.resolve(s.path()), PosixFilePermissions.fromString(rwx(s.mode())));
            }
        }
    }

    private static void writeControllerFiles(Path controller, List<DiffCase> cases) throws IOException {
        for (DiffCase c : cases) {
            if (c.controllerFile().isEmpty()) {
                continue;
            }
            DiffCase.ControllerFile f = c.controllerFile().get();
            Path p = controller.resolve(c.module().equals("template") ? "templates" : "files").resolve(f.name());
            Files.createDirectories(p.getParent());
            Files.write(p, f.content().getBytes(StandardCharsets.UTF_8));
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx(f.mode())));
        }
    }

    private static Path caseDir(Path root, List<DiffCase> cases, DiffCase c) {
        return root.resolve(String.format("c%03d", cases.indexOf(c)));
    }

    private static String rwx(String octal) {
        int m = Integer.parseInt(octal, 8);
        StringBuilder sb = new StringBuilder();
        for (int shift = 6; shift >= 0; shift -= 3) {
            sb.append((m >> shift & 4) != 0 ? 'r' : '-').append((m >> shift & 2) != 0 ? 'w' : '-').append((m >> shift & 1) != 0 ? 'x' : '-');
        }
        return sb.toString();
    }

    // --- the playbooks (JSON is YAML to both tools) ------------------------------------------------

    /** Both of Ansible's runs over its own copy of the start files, each run's shards side by side. */
    private List<Map<String, Outcome>> ansibleRuns(Path controller, List<DiffCase> cases) throws Exception {
        Path ansibleRoot = tmp.resolve("ansible");
        setUp(ansibleRoot, cases);
        List<Path> books = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            int owner = shard;
            List<DiffCase> own = cases.stream().filter(c -> cases.indexOf(c) % SHARDS == owner).toList();
            books.add(write(controller.resolve("ansible-" + shard + ".yml"), playbook(own, cases, ansibleRoot)));
        }
        Path callbacks = Files.createDirectories(tmp.resolve("callbacks"));
        try (InputStream in = getClass().getResourceAsStream("/e2e/ansible/caselog.py")) {
            Files.copy(in, callbacks.resolve("caselog.py"), StandardCopyOption.REPLACE_EXISTING);
        }
        List<Map<String, Outcome>> runs = new ArrayList<>();
        try (ExecutorService shards = Executors.newFixedThreadPool(SHARDS)) {
            for (int run = 0; run < 2; run++) {
                List<Future<Map<String, JsonNode>>> verdicts = new ArrayList<>();
                for (Path book : books) {
                    verdicts.add(shards.submit(() -> runAnsible(controller, callbacks, book)));
                }
                Map<String, JsonNode> all = new LinkedHashMap<>();
                try {
                    for (Future<Map<String, JsonNode>> v : verdicts) {
                        all.putAll(v.get());
                    }
                } catch (InterruptedException e) {
                    shards.shutdownNow(); // each shard's thread ends its ansible-playbook (see run)
                    throw e;
                }
                runs.add(outcomes(cases, ansibleRoot, all));
            }
        }
        return runs;
    }

    private static String playbook(List<DiffCase> cases, Path root) throws IOException {
        return playbook(cases, cases, root);
    }

    /** A play of the tasks of {@code cases}, each on its own directory (numbered in {@code all}). */
    private static String playbook(List<DiffCase> cases, List<DiffCase> all, Path root) throws IOException {
        List<Map<String, Object>> tasks = new ArrayList<>();
        for (DiffCase c : cases) {
            Map<String, Object> task = new LinkedHashMap<>();
            task.put("name", c.id());
            task.put(c.module(), substitute(c.args(), caseDir(root, all, c)));
            task.put("ignore_errors", true);
            tasks.add(task);
        }
        Map<String, Object> play = new LinkedHashMap<>();
        play.put("hosts", "all");
        play.put("gather_facts", false);
        play.put("tasks", tasks);
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(List.of(play));
    }

    private static Map<String, Object> substitute(Map<String, Object> args, Path dir) {
        Map<String, Object> out = new LinkedHashMap<>();
        args.forEach((k, v) -> out.put(k, v instanceof String s && s.startsWith("@/") ? dir + s.substring(1) : v));
        return out;
    }

    // --- running the tools -------------------------------------------------------------------------

    /** Ansible's verdict per task name, from the {@code caselog} callback's JSON lines. */
    private Map<String, JsonNode> runAnsible(Path controller, Path callbacks, Path book) throws Exception {
        // nice: the cluster tests in the other fork are the suite's longest path; Ansible takes what they leave.
        ProcessBuilder pb = new ProcessBuilder("nice", "-n", "10", "ansible-playbook", "-c", "local", "-i", "localhost,",
                "-e", "ansible_python_interpreter=/usr/bin/python3", book.toString())
                .directory(controller.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("ANSIBLE_CONFIG", tmp.resolve("no-ansible.cfg").toString());
        env.put("ANSIBLE_CALLBACK_PLUGINS", callbacks.toString());
        env.put("ANSIBLE_STDOUT_CALLBACK", "caselog");
        env.put("ANSIBLE_PIPELINING", "true");
        env.put("ANSIBLE_LOCAL_TEMP", tmp.resolve("ansible-local").toString());
        env.put("ANSIBLE_REMOTE_TEMP", tmp.resolve("ansible-remote").toString());
        env.put("ANSIBLE_RETRY_FILES_ENABLED", "false");
        env.put("ANSIBLE_NOCOLOR", "1");
        String output = run(pb, 1800); // a bound for a hang only: niced on a busy machine, a shard may take minutes
        Map<String, JsonNode> verdicts = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            if (line.startsWith("{\"task\"")) {
                JsonNode n = JSON.readTree(line);
                verdicts.put(n.get("task").asText(), n);
            }
        }
        return verdicts;
    }

    /** provision's verdict per task name, from its {@code --json} report. */
    private Map<String, JsonNode> runProvision(Path controller, Path book, boolean check) throws Exception {
        Path report = tmp.resolve("report.json");
        List<String> args = new ArrayList<>(List.of("-i", "localhost,", "--json", report.toString()));
        if (check) {
            args.add("--check");
        }
        args.add(book.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = ProvisionCommand.execute(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        assertTrue(code == 0 || code == 2, "provision exited " + code + ":\n" + out.toString(StandardCharsets.UTF_8));
        Map<String, JsonNode> verdicts = new LinkedHashMap<>();
        for (JsonNode task : JSON.readTree(report.toFile()).get("plays").get(0).get("tasks")) {
            JsonNode result = task.get("results").get(0);
            String status = result.get("status").asText();
            String message = result.get("message").asText();
            if (message.isEmpty() && result.has("output")) {
                message = result.get("output").asText();
            }
            Map<String, Object> v = Map.of("status", status.equals("ignored") ? "failed" : status, "msg", message);
            verdicts.put(task.get("name").asText(), JSON.valueToTree(v));
        }
        return verdicts;
    }

    private static Map<String, Outcome> outcomes(List<DiffCase> cases, Path root, Map<String, JsonNode> verdicts) throws IOException {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        for (DiffCase c : cases) {
            JsonNode v = verdicts.get(c.id());
            String status = v == null ? "missing" : v.get("status").asText();
            String message = v == null ? "no result" : v.get("msg").asText();
            outcomes.put(c.id(), new Outcome(status, message, TreeSnapshot.of(caseDir(root, cases, c))));
        }
        return outcomes;
    }

    private static Map<String, String> trees(List<DiffCase> cases, Path root) throws IOException {
        Map<String, String> trees = new LinkedHashMap<>();
        for (DiffCase c : cases) {
            trees.put(c.id(), TreeSnapshot.of(caseDir(root, cases, c)));
        }
        return trees;
    }

    private static String run(ProcessBuilder pb, int timeoutSeconds) throws Exception {
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException e) {
                // the process died; what it wrote is what we have
            }
        });
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", pb.command()) + " did not finish in " + timeoutSeconds + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            throw e;
        }
        reader.join();
        return out.toString(StandardCharsets.UTF_8);
    }

    private static Path write(Path file, String text) throws IOException {
        return Files.writeString(file, text);
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
