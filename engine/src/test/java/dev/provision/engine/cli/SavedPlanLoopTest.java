package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run and the apply of its saved plan go alike: a loop whose middle item fails goes on to the
 * last item (as Ansible does); a failure under {@code any_errors_fatal} stops every host; a play
 * with {@code serial} changes its hosts batch by batch.
 */
class SavedPlanLoopTest {
    @TempDir
    Path tmp;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int provision(String... args) {
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return ProvisionCommand.execute(args, print, print);
    }

    private Path playbook(Path written) throws Exception {
        return Files.writeString(tmp.resolve("loop-" + written.getFileName() + ".yml"), """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - shell: '[ ${item} != b ] && echo ${item} >> %s'
                      loop: [a, b, c]
                """.formatted(written));
    }

    /** Two hosts on the controller's own connection; {@code a} fails where a task asks. */
    private Path inventory() throws Exception {
        return Files.writeString(tmp.resolve("inv.yml"), """
                all:
                  hosts:
                    a: {ansible_connection: local, fails: "yes"}
                    b: {ansible_connection: local, fails: "no"}
                """);
    }

    /** The run's file, then the file the apply of the same playbook's saved plan wrote; each with its exit code. */
    private List<String> runAndApply(String play) throws Exception {
        List<String> outcomes = new ArrayList<>();
        for (String way : List.of("run", "apply")) {
            Path written = tmp.resolve(way + ".txt");
            Files.writeString(written, "");
            Path book = Files.writeString(tmp.resolve(way + ".yml"), play.formatted(written));
            int code = way.equals("run") ? provision("-i", inventory().toString(), book.toString())
                    : saveThenApply(book);
            outcomes.add(code + "\n" + Files.readString(written));
        }
        return outcomes;
    }

    private int saveThenApply(Path book) throws Exception {
        Path plan = tmp.resolve("plan-" + book.getFileName() + ".json");
        assertEquals(0, provision("-i", inventory().toString(), "--save-plan", plan.toString(), book.toString()), out.toString());
        return provision("--apply-plan", plan.toString());
    }

    /** A threshold crossed when host a fails the first task (1 of 2 hosts: 50 %): the second runs nowhere. */
    @ParameterizedTest
    @ValueSource(strings = {"any_errors_fatal: true", "max_fail_percentage: 40"})
    void aFailureThresholdStopsEveryHostInTheRunAndInTheSavedPlan(String threshold) throws Exception {
        List<String> outcomes = runAndApply("""
                - hosts: all
                  gather_facts: false
                  %2$s
                  tasks:
                    - shell: '[ ${fails} = no ] && echo first-${inventory_hostname} >> %1$s'
                    - shell: 'echo second-${inventory_hostname} >> %1$s'
                """.replace("%2$s", threshold));
        assertEquals("2\nfirst-b\n", outcomes.get(0), "the run\n" + out);
        assertEquals(outcomes.get(0), outcomes.get(1), "the saved plan, applied\n" + out);
        String keyword = threshold.substring(0, threshold.indexOf(':'));
        assertTrue(out.toString().contains("stopped by " + keyword + "; no further tasks or plays run"), out.toString());
    }

    @Test
    void aSerialPlayChangesItsHostsBatchByBatchInTheRunAndInTheSavedPlan() throws Exception {
        List<String> outcomes = runAndApply("""
                - hosts: all
                  gather_facts: false
                  serial: 1
                  tasks:
                    - shell: 'echo one-${inventory_hostname} >> %1$s'
                    - shell: 'echo two-${inventory_hostname} >> %1$s'
                """);
        assertEquals("0\none-a\ntwo-a\none-b\ntwo-b\n", outcomes.get(0), "the run\n" + out);
        assertEquals(outcomes.get(0), outcomes.get(1), "the saved plan, applied\n" + out);
    }

    @Test
    void aTasksTimeLimitBoundsItInTheRunAndInTheSavedPlan() throws Exception {
        List<String> outcomes = runAndApply("""
                - hosts: all
                  gather_facts: false
                  tasks:
                    - shell: 'sleep 30 && echo slept-${inventory_hostname} >> %1$s'
                      timeout: 1
                """);
        assertEquals("2\n", outcomes.get(0), "the run\n" + out);
        assertEquals(outcomes.get(0), outcomes.get(1), "the saved plan, applied\n" + out);
        assertTrue(out.toString().split("--apply-plan")[1].contains("timeout: 1"), out.toString());
    }

    @Test
    void aPlanWhoseChangingTaskSetsEnvironmentIsNotSavedRatherThanAppliedWithoutIt() throws Exception {
        Path book = Files.writeString(tmp.resolve("env.yml"), """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - shell: 'echo "$GREETING" >> %s'
                      environment: {GREETING: hello}
                """.formatted(tmp.resolve("env.txt")));
        Path plan = tmp.resolve("env-plan.json");
        assertEquals(4, provision("-i", "localhost,", "--save-plan", plan.toString(), book.toString()), out.toString());
        assertTrue(out.toString().contains("sets environment:, which an applied plan does not carry yet"), out.toString());
        assertTrue(!Files.exists(plan), "no plan written");
    }

    @Test
    void aFailedItemDoesNotEndTheLoopInTheRunNorInTheSavedPlan() throws Exception {
        Path run = tmp.resolve("run.txt");
        assertEquals(2, provision("-i", "localhost,", playbook(run).toString()), out.toString());
        assertEquals("a\nc\n", Files.readString(run), "the run");

        Path applied = tmp.resolve("applied.txt");
        Path plan = tmp.resolve("plan.json");
        Path book = playbook(applied);
        assertEquals(0, provision("-i", "localhost,", "--save-plan", plan.toString(), book.toString()), out.toString());
        assertEquals(2, provision("-i", "localhost,", "--apply-plan", plan.toString(), book.toString()), out.toString());
        assertEquals("a\nc\n", Files.readString(applied), "the saved plan, applied\n" + out);
    }
}
