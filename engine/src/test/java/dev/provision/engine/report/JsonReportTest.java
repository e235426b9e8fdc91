package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonReportTest {
    private static final String SECRET = "hunter2-s3cr3t";

    @TempDir
    Path tmp;

    private static Change fileChange(String path, String after) {
        return Change.withDiff("create " + path, new Diff(path, "", after),
                new Command.PutFile(path, after.getBytes(StandardCharsets.UTF_8), Command.Attributes.NONE));
    }

    private JsonNode write(TaskResult... results) throws Exception {
        Path file = tmp.resolve("sub/report.json");
        JsonReport report = new JsonReport(file);
        report.playStarted("web", List.of("node1"), false);
        report.taskStarted("a task", "site.yml:4:7", false);
        for (TaskResult r : results) {
            report.hostResult(r);
        }
        HostStats stats = new HostStats();
        stats.count(TaskStatus.CHANGED);
        report.recap(Map.of("node1", stats), "");
        assertTrue(report.failure().isEmpty(), () -> report.failure().get().toString());
        String text = Files.readString(file);
        assertFalse(text.contains(SECRET), text);
        return new ObjectMapper().readTree(text);
    }

    @Test
    void writesPlaysTasksResultsWithChangesDiffsDurationAndStats() throws Exception {
        TaskResult r = new TaskResult("node1", TaskStatus.CHANGED, List.of(fileChange("/etc/motd", "hi\n")), "", List.of(), "",
                false, false, false, Map.of("rc", 0), Duration.ofMillis(42), 0);
        JsonNode doc = write(r);
        JsonNode task = doc.path("plays").path(0).path("tasks").path(0);
        assertEquals("a task", task.path("name").asText());
        assertEquals("site.yml:4:7", task.path("position").asText());
        JsonNode result = task.path("results").path(0);
        assertEquals("changed", result.path("status").asText());
        assertEquals(42, result.path("duration_ms").asInt());
        assertEquals("create /etc/motd", result.path("changes").path(0).path("summary").asText());
        assertEquals("hi\n", result.path("changes").path(0).path("diffs").path(0).path("after").asText());
        assertEquals(0, result.path("output").path("rc").asInt());
        assertEquals(1, doc.path("stats").path("node1").path("changed").asInt());
        assertEquals(1, doc.path("stats").path("node1").path("ok").asInt());
    }

    @Test
    void noLogRedactsMessageSummaryDiffsOutputAndItems() throws Exception {
        Change command = Change.of("run: echo " + SECRET, new Command.Shell("echo " + SECRET));
        TaskResult item = new TaskResult("node1", TaskStatus.CHANGED, List.of(command), "", List.of(), SECRET,
                false, false, true, Map.of("stdout", SECRET), Duration.ZERO, 0);
        TaskResult r = new TaskResult("node1", TaskStatus.FAILED, List.of(command, fileChange("/etc/pw", SECRET)), "stderr: " + SECRET,
                List.of(item), "", false, false, true, Map.of("stdout", SECRET), Duration.ZERO, 0);
        JsonNode result = write(r).path("plays").path(0).path("tasks").path(0).path("results").path(0);
        assertEquals("failed", result.path("status").asText(), "the status stays visible");
        assertEquals(2, result.path("changes").size(), "the number of changes stays visible");
    }

    @Test
    void sensitiveDiffIsRedactedEvenWithoutNoLog() throws Exception {
        TaskResult r = new TaskResult("node1", TaskStatus.CHANGED, List.of(fileChange("/etc/key", SECRET).asSensitive()), "", List.of(), "",
                false, false, false, Map.of(), Duration.ZERO, 0);
        JsonNode diff = write(r).path("plays").path(0).path("tasks").path(0).path("results").path(0).path("changes").path(0).path("diffs").path(0);
        assertEquals("/etc/key", diff.path("label").asText());
    }

    /** A result is on disk (in the temp file beside the report) once it is reported, not held until the end. */
    @Test
    void streamsEachResultToDiskAsItArrives() throws Exception {
        Path file = tmp.resolve("streamed/report.json");
        JsonReport report = new JsonReport(file);
        report.playStarted("web", List.of("node1"), false);
        report.taskStarted("a task", "site.yml:4:7", false);
        String big = "10.0.0.1 node1\n".repeat(20_000);
        report.hostResult(new TaskResult("node1", TaskStatus.CHANGED, List.of(fileChange("/etc/hosts", big)), "", List.of(), "",
                false, false, false, Map.of(), Duration.ZERO, 0));
        long onDisk;
        try (var files = Files.list(file.getParent())) {
            onDisk = files.mapToLong(p -> p.toFile().length()).sum();
        }
        assertTrue(onDisk > big.length() / 2, "only " + onDisk + " bytes written before the end");
        assertFalse(Files.exists(file), "the report itself appears only when it is whole");
        report.recap(Map.of("node1", new HostStats()), "");
        assertEquals(big, new ObjectMapper().readTree(file.toFile()).path("plays").path(0).path("tasks").path(0)
                .path("results").path(0).path("changes").path(0).path("diffs").path(0).path("after").asText());
        try (var files = Files.list(file.getParent())) {
            assertEquals(List.of(file), files.toList(), "no temp file left");
        }
    }
}
