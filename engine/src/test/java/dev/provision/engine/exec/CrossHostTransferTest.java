package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's side of a {@code CrossHostTransfer} (the {@code stage} module over recording
 * connections): under {@code --check} no round runs; applied, the rounds run on the hosts the module
 * names, and a host whose part failed fails the task with the module's reason.
 */
class CrossHostTransferTest {
    private static final String PLAYBOOK = """
            - hosts: gpu
              gather_facts: false
              tasks:
                - name: stage
                  stage:
                    src: /shared/set
                    dest: /nvme/set
            """;
    private static final String INVENTORY = """
            gpu:
              hosts:
                node01: {ansible_host: 10.0.0.1}
                node02: {ansible_host: 10.0.0.2}
                node03: {ansible_host: 10.0.0.3}
            """;
    private static final String MANIFEST = "9834876dcfb05cb167a5c24953eba58c4ac89b1adf57f28f2f9d09af107ee8f0\t3\t644\t1700000000\ta.bin\n";

    @TempDir
    Path dir;

    private ExecutorHarness harness(boolean node03Fails) {
        ExecutorHarness harness = new ExecutorHarness(dir);
        harness.factory.responder = (host, command) -> {
            if (command.contains("The manifest of a source directory")) {
                return result(0, MANIFEST);
            }
            if (command.contains("What a node holds of a staged data set")) {
                return result(0, "space\t1000000\t0\t0\n");
            }
            if (command.contains("fetch what it lacks of the manifest")) {
                return host.equals("node03") && node03Fails ? result(5, "bad\ta.bin\n")
                        : result(0, "got\ta.bin\nverified\t1\t3\t83222fd36622f2ca969bbba71e6932ab8254501c53b32fd1bd15ba7ea1b06841\n");
            }
            // a stat answers "no such path" (nothing else exists on these hosts); writes succeed
            return command.contains("regular file") ? result(3, "") : result(0, "");
        };
        return harness;
    }

    private static ExecResult result(int code, String stdout) {
        return new ExecResult(code, stdout.getBytes(StandardCharsets.UTF_8), new byte[0]);
    }

    private static long pulls(ExecutorHarness harness) {
        return harness.factory.calls.stream().filter(c -> c.commandLine().contains("fetch what it lacks of the manifest")).count();
    }

    @Test
    void checkModePlansEveryHostAndRunsNoRound() throws Exception {
        ExecutorHarness harness = harness(false);

        harness.run(PLAYBOOK, INVENTORY, ExecutorHarness.options(true), new char[0]);

        assertEquals(0, pulls(harness), harness.humanOutput() + harness.factory.calls.stream().map(c -> c.host() + ": " + c.commandLine().substring(0, Math.min(80, c.commandLine().length()))).toList());
        assertEquals(List.of(TaskStatus.CHANGED, TaskStatus.CHANGED, TaskStatus.CHANGED), // plans
                harness.results.stream().map(TaskResult::status).toList(), harness.results.stream().map(TaskResult::message).toList()
                        + harness.humanOutput());
    }

    @Test
    void anAppliedRunFetchesOnEveryHostAndAHostWhosePartFailedFailsWithTheReason() throws Exception {
        ExecutorHarness harness = harness(true);

        harness.run(PLAYBOOK, INVENTORY);

        // node01 from the source, node02 from node01, then node03 three times (it keeps failing)
        assertEquals(5, pulls(harness), harness.humanOutput());
        TaskResult node03 = harness.results.stream().filter(r -> r.host().equals("node03")).findFirst().orElseThrow();
        assertEquals(TaskStatus.FAILED, node03.status());
        assertTrue(node03.message().startsWith("fetch from node0"), node03.message());
        assertTrue(node03.message().contains("bad a.bin"), node03.message());
        assertEquals(List.of(TaskStatus.CHANGED, TaskStatus.CHANGED), harness.results.stream()
                .filter(r -> !r.host().equals("node03")).map(TaskResult::status).toList(), harness.humanOutput());
    }
}
