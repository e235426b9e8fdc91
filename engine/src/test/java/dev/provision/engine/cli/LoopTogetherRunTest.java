package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A loop whose module plans its items together ({@code TaskModule.plansTogether}: limits,
 * sysctl) on a real host: each item planned against what the items before it would have done, all
 * their writes in one exchange; the outcome is what the items give one by one, a failed item
 * included.
 */
class LoopTogetherRunTest {
    @TempDir
    Path tmp;

    private final InProcessRun cli = new InProcessRun();

    /** The first task's result on the one host of a --json report. */
    private static JsonNode firstResult(Path json) throws Exception {
        return new ObjectMapper().readTree(json.toFile()).get("plays").get(0).get("tasks").get(0).get("results").get(0);
    }

    private static List<String> itemStatuses(JsonNode result) {
        List<String> statuses = new ArrayList<>();
        result.get("items").forEach(i -> statuses.add(i.get("status").asText()));
        return statuses;
    }

    @Test
    void aLoopsItemsAreWrittenInOneExchangeAndGiveWhatTheyGiveOneByOne() throws Exception {
        Files.createDirectories(tmp.resolve("loop"));
        Files.createDirectories(tmp.resolve("one-by-one"));
        Path inventory = InProcessRun.oneLocalHost(tmp);
        Path loop = InProcessRun.write(tmp, "loop.yml", """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - limits: {domain: "${item}", items: {nofile: 65536, memlock: unlimited}, dest: "%s/loop/limits.conf"}
                      loop: [root, "@gpu", "*", trainer]
                """.formatted(tmp));
        StringBuilder tasks = new StringBuilder();
        for (String domain : List.of("root", "@gpu", "*", "trainer")) {
            tasks.append("    - limits: {domain: \"").append(domain).append("\", items: {nofile: 65536, memlock: unlimited}, dest: \"")
                    .append(tmp).append("/one-by-one/limits.conf\"}\n");
        }
        Path oneByOne = InProcessRun.write(tmp, "one-by-one.yml", "- hosts: all\n  gather_facts: false\n  tasks:\n" + tasks);

        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("loop.json").toString(), loop.toString()), cli::output);
        assertEquals(0, cli.provision("-i", inventory.toString(), oneByOne.toString()), cli::output);
        assertEquals(Files.readString(tmp.resolve("one-by-one/limits.conf")), Files.readString(tmp.resolve("loop/limits.conf")));
        JsonNode converge = firstResult(tmp.resolve("loop.json"));
        assertEquals(List.of("changed", "changed", "changed", "changed"), itemStatuses(converge), cli::output);
        // one read of the file, one exchange for the four writes (one by one: five)
        assertTrue(converge.get("round_trips").asInt() <= 2, "round trips: " + converge.get("round_trips"));

        for (String dir : List.of("loop", "one-by-one")) { // the same drift on both
            Files.writeString(tmp.resolve(dir + "/limits.conf"), Files.readString(tmp.resolve(dir + "/limits.conf"))
                    .replace("* hard nofile 65536\n", ""));
        }
        assertEquals(0, cli.provision("-i", inventory.toString(), oneByOne.toString()), cli::output);
        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("again.json").toString(), loop.toString()), cli::output);
        assertEquals(List.of("ok", "ok", "changed", "ok"), itemStatuses(firstResult(tmp.resolve("again.json"))), cli::output);
        assertEquals(Files.readString(tmp.resolve("one-by-one/limits.conf")), Files.readString(tmp.resolve("loop/limits.conf")));
        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("noop.json").toString(), loop.toString()), cli::output);
        assertEquals(List.of("ok", "ok", "ok", "ok"), itemStatuses(firstResult(tmp.resolve("noop.json"))), cli::output);
    }

    @Test
    void anItemWhoseWriteFailsFailsAloneAndTheItemsAfterItStillRun() throws Exception {
        Files.createDirectories(tmp.resolve("open"));
        try (InProcessRun.Locked lock = InProcessRun.lockedDirectory(tmp, "locked")) {
            Path locked = lock.path();
            Path inventory = InProcessRun.oneLocalHost(tmp);
            Path site = InProcessRun.write(tmp, "site.yml", """
                    - hosts: all
                      gather_facts: false
                      tasks:
                        - limits: {domain: "${item.domain}", items: {nofile: 1024}, dest: "%s/${item.dir}/limits.conf"}
                          loop:
                            - {domain: root, dir: open}
                            - {domain: gpu, dir: locked}
                            - {domain: trainer, dir: open}
                """.formatted(tmp));
            assertEquals(2, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("run.json").toString(), site.toString()), cli::output);
            JsonNode result = firstResult(tmp.resolve("run.json"));
            assertEquals(List.of("changed", "failed", "changed"), itemStatuses(result), cli::output);
            assertTrue(result.get("items").get(1).get("message").asText().contains("cannot write " + locked + "/limits.conf"),
                    result.get("items").get(1).toString());
            String written = Files.readString(tmp.resolve("open/limits.conf"));
            assertTrue(written.contains("root soft nofile 1024") && written.contains("trainer soft nofile 1024"), written);
            try (var left = Files.list(locked)) {
                assertEquals(0, left.count());
            }
        }
    }
}
