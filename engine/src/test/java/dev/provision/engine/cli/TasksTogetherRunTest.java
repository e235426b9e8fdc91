package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consecutive tasks of file modules on a real host, planned together and applied in one exchange
 * ({@code exec.TasksTogether}): the files are those the same tasks give one by one, a failed task
 * stops the tasks after it as it would have, {@code ignore_errors} and {@code when:} keep their meaning.
 */
class TasksTogetherRunTest {
    @TempDir
    Path tmp;

    private final InProcessRun cli = new InProcessRun();

    /** The results of the one host, task by task, of a --json report. */
    private static List<JsonNode> results(Path json) throws Exception {
        List<JsonNode> results = new ArrayList<>();
        new ObjectMapper().readTree(json.toFile()).get("plays").get(0).get("tasks").forEach(t -> results.add(t.get("results").get(0)));
        return results;
    }

    private static List<String> statuses(List<JsonNode> results) {
        return results.stream().map(r -> r.get("status").asText()).toList();
    }

    private static int roundTrips(List<JsonNode> results) {
        return results.stream().mapToInt(r -> r.get("round_trips").asInt()).sum();
    }

    /** Every path below {@code root} with its type, mode and content. */
    private static TreeMap<String, String> tree(Path root) throws Exception {
        TreeMap<String, String> tree = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.toList()) {
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
                tree.put(root.relativize(p).toString(), Files.isDirectory(p) ? "dir " + mode : mode + " " + Files.readString(p));
            }
        }
        return tree;
    }

    /** Seven tasks of file modules (two loops) writing under {@code dir}; each registers its result where {@code alone}. */
    private static String tasks(String dir, boolean alone) {
        StringBuilder play = new StringBuilder("- hosts: all\n  gather_facts: false\n  tasks:\n");
        for (String task : List.of(
                "- file: {path: \"DIR/ssh\", state: directory, mode: \"0700\"}",
                "- copy: {content: \"private\\n\", dest: \"DIR/ssh/id\", mode: \"0600\"}",
                "- copy: {content: \"public\\n\", dest: \"DIR/ssh/id.pub\", mode: \"0644\"}",
                "- lineinfile: {path: \"DIR/ssh/config\", line: \"StrictHostKeyChecking yes\", create: true, mode: \"0644\"}",
                "- lineinfile: {path: \"DIR/ssh/config\", line: \"UserKnownHostsFile /etc/ssh/ssh_known_hosts\"}",
                "- limits: {domain: \"${item}\", items: {nofile: 65536}, dest: \"DIR/limits.conf\"}\n  loop: [root, \"*\"]",
                "- copy: {content: \"${item}\\n\", dest: \"DIR/ssh/key-${item}\", mode: \"0600\"}\n  loop: [a, b]")) {
            task.replace("DIR", dir).lines().forEach(line -> play.append("    ").append(line).append('\n'));
            if (alone) {
                play.append("      register: r\n");
            }
        }
        return play.toString();
    }

    @Test
    void consecutiveFileTasksGiveWhatTheyGiveOneByOneInOneExchange() throws Exception {
        Path inventory = InProcessRun.oneLocalHost(tmp);
        Path together = InProcessRun.write(tmp, "together.yml", tasks(tmp + "/together", false));
        // register: keeps each task to itself (what it did could be read by the next one)
        Path oneByOne = InProcessRun.write(tmp, "one-by-one.yml", tasks(tmp + "/one-by-one", true));

        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("together.json").toString(), together.toString()),
                cli::output);
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("one-by-one.json").toString(), oneByOne.toString()),
                cli::output);
        assertEquals(tree(tmp.resolve("one-by-one")), tree(tmp.resolve("together")));
        List<JsonNode> converge = results(tmp.resolve("together.json"));
        assertEquals(List.of("changed", "changed", "changed", "changed", "changed", "changed", "changed"), statuses(converge),
                cli::output);
        int alone = roundTrips(results(tmp.resolve("one-by-one.json")));
        // what the seven read (a path, then what it names: two levels), then all their changes in one
        assertTrue(roundTrips(converge) <= 3 && alone >= 5, "round trips together " + roundTrips(converge) + ", one by one " + alone);

        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("noop.json").toString(), together.toString()),
                cli::output);
        assertEquals(List.of("ok", "ok", "ok", "ok", "ok", "ok", "ok"), statuses(results(tmp.resolve("noop.json"))), cli::output);
    }

    @Test
    void aTaskWhoseWriteFailsStopsTheTasksAfterItAsItWouldHave() throws Exception {
        try (InProcessRun.Locked lock = InProcessRun.lockedDirectory(tmp, "locked")) {
            Path locked = lock.path();
            Path inventory = InProcessRun.oneLocalHost(tmp);
            String site = """
                    - hosts: all
                      gather_facts: false
                      tasks:
                        - copy: {content: "1\\n", dest: "%1$s/open/first"}
                        - copy: {content: "2\\n", dest: "%1$s/locked/second"}IGNORE
                        - copy: {content: "3\\n", dest: "%1$s/open/third"}
                    """.formatted(tmp);
            Files.createDirectories(tmp.resolve("open"));
            Path stops = InProcessRun.write(tmp, "stops.yml", site.replace("IGNORE", ""));
            assertEquals(2, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("stops.json").toString(), stops.toString()),
                    cli::output);
            List<JsonNode> results = results(tmp.resolve("stops.json"));
            assertEquals(List.of("changed", "failed"), statuses(results), cli::output);
            assertTrue(results.get(1).get("message").asText().contains("cannot write " + locked + "/second"), results.get(1).toString());
            assertEquals("1\n", Files.readString(tmp.resolve("open/first")));
            assertFalse(Files.exists(tmp.resolve("open/third")), "the task after the failed one was not applied");

            cli.reset();
            Path goesOn = InProcessRun.write(tmp, "goes-on.yml", site.replace("IGNORE", "\n      ignore_errors: true"));
            assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("goes-on.json").toString(), goesOn.toString()),
                    cli::output);
            assertEquals(List.of("ok", "ignored", "changed"), statuses(results(tmp.resolve("goes-on.json"))), cli::output);
            assertEquals("3\n", Files.readString(tmp.resolve("open/third")));
        }
    }

    @Test
    void aLoopItemThatFailsAmongThemLetsTheLoopGoOnAndStopsTheTasksAfterIt() throws Exception {
        Files.createDirectories(tmp.resolve("open"));
        try (InProcessRun.Locked lock = InProcessRun.lockedDirectory(tmp, "locked")) {
            Path locked = lock.path();
            Path inventory = InProcessRun.oneLocalHost(tmp);
            Path site = InProcessRun.write(tmp, "site.yml", """
                    - hosts: all
                      gather_facts: false
                      tasks:
                        - copy: {content: "1\\n", dest: "%1$s/open/first"}
                        - copy: {content: "${item}\\n", dest: "%1$s/${item}/file"}
                          loop: [open, locked, open2]
                        - copy: {content: "3\\n", dest: "%1$s/open/third"}
                    """.formatted(tmp));
            Files.createDirectories(tmp.resolve("open2"));
            assertEquals(2, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("run.json").toString(), site.toString()), cli::output);
            List<JsonNode> results = results(tmp.resolve("run.json"));
            assertEquals(List.of("changed", "failed"), statuses(results), cli::output);
            List<String> items = new ArrayList<>();
            results.get(1).get("items").forEach(i -> items.add(i.get("status").asText()));
            assertEquals(List.of("changed", "failed", "changed"), items, "the loop goes on after its failed item");
            assertEquals("open2\n", Files.readString(tmp.resolve("open2/file")));
            assertFalse(Files.exists(tmp.resolve("open/third")), "the task after the failed loop was not applied");
        }
    }

    @Test
    void aSkippedTaskAmongThemIsSkippedAndTheOthersApplied() throws Exception {
        Path inventory = InProcessRun.oneLocalHost(tmp);
        Path site = InProcessRun.write(tmp, "site.yml", """
                - hosts: all
                  gather_facts: false
                  vars: {wanted: false}
                  tasks:
                    - file: {path: "%1$s/d", state: directory}
                    - copy: {content: "never\\n", dest: "%1$s/d/skipped"}
                      when: wanted
                    - copy: {content: "kept\\n", dest: "%1$s/d/kept", mode: "0600"}
                """.formatted(tmp));
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("run.json").toString(), site.toString()), cli::output);
        assertEquals(List.of("changed", "skipped", "changed"), statuses(results(tmp.resolve("run.json"))), cli::output);
        assertFalse(Files.exists(tmp.resolve("d/skipped")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("d/kept"))));
    }
}
