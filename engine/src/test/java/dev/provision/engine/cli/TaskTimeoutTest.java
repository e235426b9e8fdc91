package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code timeout:} and {@code --task-timeout} against this machine (local connection): a command past
 * the limit is killed with what it started, the task fails saying so, and the run goes on.
 */
class TaskTimeoutTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Path playbook, String... options) {
        String[] args = new String[options.length + 3];
        args[0] = "-i";
        args[1] = "localhost,";
        System.arraycopy(options, 0, args, 2, options.length);
        args[args.length - 1] = playbook.toString();
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    private Path playbook(String timeoutLine) throws Exception {
        Path pid = tmp.resolve("sleeper.pid");
        return Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - name: hangs
                      shell: "sleep 300 & echo $! > %s; wait"
                %s
                    - name: afterwards
                      debug: {msg: the run went on}
                """.formatted(pid, timeoutLine));
    }

    @Test
    void aTaskPastItsTimeoutIsKilledWithWhatItStartedAndFailsSayingSo() throws Exception {
        long started = System.nanoTime();
        int code = run(playbook("      timeout: 2\n      ignore_errors: true"));
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertEquals(0, code, output());
        assertTrue(output().contains("timed out after 2 s (timeout: 2); its command was killed"), output());
        assertTrue(output().contains("the run went on"), output());
        assertTrue(seconds < 20, "ended at the limit, not with the command: " + seconds + " s");
        String pid = Files.readString(tmp.resolve("sleeper.pid")).strip();
        Thread.sleep(500);
        assertFalse(alive(pid), "the background sleep " + pid + " was killed with its task");
    }

    /** A killed process whose parent is gone may linger as a zombie (state Z) until init reaps it. */
    private static boolean alive(String pid) throws Exception {
        Path stat = Path.of("/proc", pid, "stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String fields = Files.readString(stat);
        return !fields.substring(fields.lastIndexOf(')') + 2).startsWith("Z");
    }

    @Test
    void theRunWideLimitAppliesToTasksWithoutTheirOwn() throws Exception {
        int code = run(playbook(""), "--task-timeout", "2");
        assertEquals(ExitCode.HOST_FAILED.code(), code, output());
        assertTrue(output().contains("timed out after 2 s (--task-timeout 2); its command was killed"), output());
    }

    @Test
    void aTimeoutThatIsNotAPositiveWholeNumberIsInvalidInput() throws Exception {
        assertEquals(ExitCode.INVALID_INPUT.code(), run(playbook("      timeout: 0"), "--syntax-check"), output());
        assertTrue(output().contains("site.yml:6:16: 'timeout' is the task's time limit in seconds and must be at least 1"), output());
        out.reset();
        err.reset();
        assertEquals(ExitCode.INVALID_INPUT.code(), run(playbook("      timeout: soon"), "--syntax-check"), output());
        assertTrue(output().contains("'timeout' must be a whole number"), output());
    }

    @Test
    void aTaskTimeoutBelowOneSecondOnTheCommandLineIsAUsageError() throws Exception {
        assertEquals(ExitCode.USAGE.code(), run(playbook(""), "--task-timeout", "0"), output());
        assertTrue(output().contains("--task-timeout must be at least 1 second"), output());
    }
}
