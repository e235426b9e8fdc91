package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading ahead (the engine's {@code ReadAhead}) on real hosts: two local ones, each converging its
 * own directory. A host that runs through consecutive tasks reads what they need in one exchange;
 * a task that changes the host drops what was read, so the next task plans against the change, and
 * reads what it needs first in the exchange of that change.
 */
class ReadAheadRunTest {
    @TempDir
    Path tmp;

    private final InProcessRun cli = new InProcessRun();

    private Path inventory() throws Exception {
        return Files.writeString(tmp.resolve("hosts"), """
                a ansible_connection=local
                b ansible_connection=local
                """);
    }

    /** Six host-local tasks, each planned against what the ones before it wrote. */
    private Path playbook() throws Exception {
        return Files.writeString(tmp.resolve("site.yml"), """
                - hosts: all
                  gather_facts: false
                  vars:
                    dir: "%s/${inventory_hostname}"
                  tasks:
                    - file: {path: "${dir}", state: directory, mode: "0755"}
                    - copy: {dest: "${dir}/conf", content: "one\\n", mode: "0644", force: false}
                    - lineinfile: {path: "${dir}/conf", line: two}
                    - blockinfile: {path: "${dir}/conf", block: three}
                    - copy: {dest: "${dir}/other", content: "other\\n", mode: "0640"}
                    - file: {src: other, dest: "${dir}/link", state: link}
                """.formatted(tmp));
    }

    /** Round trips per host over the whole run, from its --json report; and how many tasks changed it. */
    private static Map<String, int[]> perHost(Path json) throws Exception {
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        Map<String, int[]> hosts = new HashMap<>();
        for (JsonNode play : report.get("plays")) {
            for (JsonNode task : play.get("tasks")) {
                for (JsonNode r : task.get("results")) {
                    int[] sums = hosts.computeIfAbsent(r.get("host").asText(), h -> new int[2]);
                    sums[0] += r.path("round_trips").asInt();
                    sums[1] += "changed".equals(r.get("status").asText()) ? 1 : 0;
                }
            }
        }
        return hosts;
    }

    @Test
    void aConvergedHostReadsItsTasksInOneExchangeAndAChangeIsSeenByTheNextTask() throws Exception {
        Path inventory = inventory();
        Path site = playbook();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("converge.json").toString(), site.toString()), cli::output);
        for (String host : new String[] {"a", "b"}) {
            // each task planned against what the one before it wrote
            String conf = Files.readString(tmp.resolve(host).resolve("conf"));
            assertTrue(conf.startsWith("one\ntwo\n# BEGIN ANSIBLE MANAGED BLOCK\nthree\n"), conf);
            assertEquals("other\n", Files.readString(tmp.resolve(host).resolve("link")));
            assertEquals(6, perHost(tmp.resolve("converge.json")).get(host)[1], cli::output);
            // six writes, each also reading what the next task reads first: the first task reads alone,
            // the link's second read (its source) too; read alone, then written, they take twelve
            int converge = perHost(tmp.resolve("converge.json")).get(host)[0];
            assertTrue(converge <= 8, "round trips of " + host + " converging: " + converge);
        }

        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("noop.json").toString(), site.toString()), cli::output);
        Map<String, int[]> noop = perHost(tmp.resolve("noop.json"));
        for (String host : new String[] {"a", "b"}) {
            assertEquals(0, noop.get(host)[1], cli::output);
            // six tasks, each of which reads one path at least: read alone, six exchanges
            assertTrue(noop.get(host)[0] <= 2, "round trips of " + host + ": " + noop.get(host)[0]);
        }

        // drift on one host: the dry run and the run see it, and only it
        Files.writeString(tmp.resolve("a").resolve("conf"), "one\n");
        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--check", "--json", tmp.resolve("check.json").toString(), site.toString()), cli::output);
        Map<String, int[]> check = perHost(tmp.resolve("check.json"));
        assertEquals(2, check.get("a")[1], cli::output); // lineinfile and blockinfile
        assertEquals(0, check.get("b")[1], cli::output);
        assertEquals("one\n", Files.readString(tmp.resolve("a").resolve("conf")));
        cli.reset();
        assertEquals(0, cli.provision("-i", inventory.toString(), "--json", tmp.resolve("fix.json").toString(), site.toString()), cli::output);
        assertEquals(2, perHost(tmp.resolve("fix.json")).get("a")[1], cli::output);
        assertEquals(Files.readString(tmp.resolve("b").resolve("conf")), Files.readString(tmp.resolve("a").resolve("conf")));
    }
}
