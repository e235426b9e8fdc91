package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restart is awaited on the host that restarts, never through delegate_to (the run and a saved plan's apply share the check). */
class RestartThroughDelegateTest {
    @TempDir
    Path tmp;

    @Test
    void aDelegatedRestartFailsTheTaskInsteadOfAwaitingAnotherHost() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node1
                  gather_facts: false
                  tasks:
                    - reboot: {}
                      delegate_to: node2
                """, """
                all:
                  hosts:
                    node1: {}
                    node2: {}
                """);
        TaskResult result = harness.results.stream().filter(r -> r.host().equals("node1")).reduce((a, b) -> b).orElseThrow();
        assertEquals(TaskStatus.FAILED, result.status(), harness.results.toString());
        assertTrue(result.message().contains("a restart cannot be awaited through delegate_to"), result.message());
    }
}
