package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A loop whose middle item fails: the run and the apply of its saved plan go on to the last item alike (as Ansible does). */
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
