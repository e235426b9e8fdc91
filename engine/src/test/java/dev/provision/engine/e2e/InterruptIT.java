package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C during a run of the real launcher (SIGINT to provision, as a terminal sends it): the running
 * task finishes, no later task starts, the recap and the --json report are written, exit 130.
 */
class InterruptIT {
    @TempDir
    Path tmp;

    @Test
    void sigintFinishesTheRunningTaskStartsNoOtherAndWritesTheRecapAndTheReport() throws Exception {
        Path marker = tmp.resolve("second-ran");
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - name: the running task
                      command: sleep 3
                    - name: the next task
                      command: touch %s
                """.formatted(marker));
        Path json = tmp.resolve("report.json");
        Path log = tmp.resolve("output.txt");
        List<String> args = List.of("-i", "localhost,", "--json", json.toString(), playbook.toString());
        Process run = Provision.start(args, ProcessBuilder.Redirect.to(log.toFile()));
        for (int i = 0; i < 300 && !Files.readString(log).contains("TASK [the running task]"); i++) {
            Thread.sleep(100);
        }
        Thread.sleep(500);
        new ProcessBuilder("kill", "-INT", Long.toString(run.pid())).start().waitFor();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "provision ends after the running task");
        String output = Files.readString(log);
        System.out.println(output);

        assertEquals(130, run.exitValue(), output);
        assertTrue(output.contains("provision: interrupted (SIGINT)"), output);
        assertTrue(output.contains("changed: [localhost]"), "the running task finished:\n" + output);
        assertFalse(output.contains("TASK [the next task]"), output);
        assertFalse(Files.exists(marker), "no task starts after the interrupt");
        assertTrue(output.contains("PLAY RECAP"), output);
        assertFalse(output.contains("Exception") || output.contains("\tat "), output);
        JsonNode report = new Provision.Result(args, run.exitValue(), output).report();
        assertEquals(1, report.at("/stats/localhost/changed").asInt(), "the report has the recap's counts:\n" + report.toPrettyString());
    }
}
