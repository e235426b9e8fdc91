package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code register:} stores: Ansible's keys, always present, so that conditions never hit an undefined key. */
class RegisterValueTest {
    private static TaskResult result(TaskStatus status, Map<String, Object> output, boolean forecast) {
        return new TaskResult("n1", status, List.of(Change.of("run: x", new Command.Shell("x"))), "why", List.of(), "",
                forecast, false, false, output, Duration.ZERO, 0);
    }

    @Test
    void changedCommandKeepsItsOutput() {
        Map<String, Object> v = ItemOutcome.registerValue(result(TaskStatus.CHANGED, Map.of("rc", 3, "stdout", "hi"), false));
        assertEquals(3, v.get("rc"));
        assertEquals("hi", v.get("stdout"));
        assertEquals(true, v.get("changed"));
        assertEquals(false, v.get("failed"));
        assertEquals(false, v.get("skipped"));
        assertEquals(List.of("run: x"), v.get("changes"));
        assertEquals("why", v.get("msg"));
    }

    @Test
    void skippedTaskStillHasEveryKey() {
        Map<String, Object> v = ItemOutcome.registerValue(TaskResult.simple("n1", TaskStatus.SKIPPED, "condition false"));
        assertEquals(0, v.get("rc"));
        assertEquals("", v.get("stdout"));
        assertEquals(List.of(), v.get("stdout_lines"));
        assertEquals(true, v.get("skipped"));
        assertEquals(false, v.get("changed"));
    }

    @Test
    void ignoredFailureIsRegisteredAsFailed() {
        assertEquals(true, ItemOutcome.registerValue(TaskResult.simple("n1", TaskStatus.IGNORED, "boom")).get("failed"));
    }

    @Test
    void forecastIsVisibleAsCheckMode() {
        assertEquals(true, ItemOutcome.registerValue(result(TaskStatus.CHANGED, Map.of(), true)).get("check_mode"));
    }
}
