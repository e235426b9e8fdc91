package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A check task's table travels typed from the module's plan to the task's verdict, the fleet step
 * and what {@code register} keeps: the real {@code dataset} check on three fake hosts, one of which
 * holds a changed file (its own row fails it) and one another data set (the fleet step fails it).
 */
class CheckOutcomeTest {
    private static final String A = "ae9a6306a205417afddd14316cc1d0d5e04a98f1be10865dce643925ee070ce2\t6\t644\t1796218580\tc.bin";
    private static final String B = "5f8c1b1e2c6c0b7e6b9f4f0b1a3a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29\t6\t644\t1796218580\tsub/b.txt";
    private static final String C = "0b8c1b1e2c6c0b7e6b9f4f0b1a3a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29\t9\t644\t1796218580\tsub/c.txt";

    @TempDir
    Path tmp;

    private static String survey(List<String> held, List<String> verified) {
        StringBuilder out = new StringBuilder("space\t1000000\t1000\t2000\n");
        held.forEach(f -> out.append("file\t").append(f.substring(f.indexOf('\t') + 1)).append('\n'));
        verified.forEach(v -> out.append("verified\t").append(v).append('\n'));
        return out.toString();
    }

    @Test
    void aFailingRowFailsItsHostTheFleetStepAddsRowsAndRegisterShowsTheTable() throws Exception {
        Map<String, String> surveys = Map.of(
                "node01", survey(List.of(A, B), List.of(A, B)),
                "node02", survey(List.of(A.replace("\t6\t", "\t7\t"), B), List.of(A, B)),
                "node03", survey(List.of(A, B, C), List.of(A, B, C)));
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.factory.responder = (host, command) -> new ExecResult(0,
                (command.contains("/nvme/set") ? surveys.get(host) : "ok\n").getBytes(StandardCharsets.UTF_8), new byte[0]);
        harness.run("""
                - hosts: "node01:node02:node03"
                  gather_facts: false
                  tasks:
                    - dataset: {dest: /nvme/set}
                      register: staged
                      ignore_errors: true
                    - debug: {msg: "${staged.failed?c} ${staged.checks?size} ${staged.checks[0].verdict}"}
                """, """
                all:
                  hosts:
                    node[01:03]:
                """);
        Map<String, TaskResult> check = harness.results.stream().filter(r -> !r.checks().isEmpty())
                .collect(Collectors.toMap(TaskResult::host, Function.identity()));

        assertEquals(TaskStatus.OK, check.get("node01").status(), check.get("node01").toString());
        assertEquals(TaskStatus.IGNORED, check.get("node02").status());
        assertTrue(check.get("node02").message().startsWith("dataset.verified: 1 of 2 files changed or gone"),
                check.get("node02").message());
        assertEquals(TaskStatus.IGNORED, check.get("node03").status(), "the fleet step names the node with another set");
        assertTrue(check.get("node03").message().contains("dataset.same_root"), check.get("node03").message());
        assertEquals(List.of("dataset.verified", "dataset.same_root"),
                check.get("node03").checks().stream().map(CheckResult::check).toList());
        assertEquals(Verdict.PASS, check.get("node03").checks().get(0).verdict());
        assertEquals(Verdict.FAIL, check.get("node03").checks().get(1).verdict());

        Map<String, Object> reported = check.get("node02").reported();
        assertEquals(true, reported.get("failed"));
        assertEquals("fail", ((List<?>) reported.get(TaskResult.CHECKS_KEY)).stream().map(row -> ((Map<?, ?>) row).get("verdict"))
                .findFirst().orElseThrow());
        assertTrue(check.get("node01").output().keySet().stream().noneMatch(k -> k.equals("checks") || k.equals("failed")),
                "the module's values only: " + check.get("node01").output());

        Map<String, String> shown = harness.results.stream().filter(r -> r.checks().isEmpty())
                .collect(Collectors.toMap(TaskResult::host, TaskResult::message));
        assertEquals(Map.of("node01", "false 2 pass", "node02", "true 2 fail", "node03", "true 2 pass"), shown,
                "register keeps the table with the fleet step's rows");
    }
}
