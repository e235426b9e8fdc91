package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HumanOutputTest {
    private static final String SECRET = "hunter2-s3cr3t";
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private HumanOutput output(boolean color, boolean diff, int verbosity) {
        return new HumanOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8), color, diff, verbosity);
    }

    private String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static Change fileChange(String path, String before, String after) {
        return Change.withDiff("update " + path, new Diff(path, before, after),
                new Command.PutFile(path, after.getBytes(StandardCharsets.UTF_8), Command.Attributes.NONE));
    }

    private static TaskResult result(TaskStatus status, List<Change> changes, String message, boolean forecast, boolean hidden) {
        return new TaskResult("node1", status, changes, message, List.of(), "", forecast, false, hidden, Map.of(), Duration.ZERO, 0);
    }

    @Test
    void recapListsEveryCounterPerHostAlignedOnTheLongestName() {
        HostStats a = new HostStats();
        a.count(TaskStatus.CHANGED);
        a.count(TaskStatus.OK);
        a.count(TaskStatus.SKIPPED);
        HostStats b = new HostStats();
        b.count(TaskStatus.FAILED);
        b.count(TaskStatus.IGNORED);
        Map<String, HostStats> stats = new LinkedHashMap<>();
        stats.put("n1", a);
        stats.put("node-long", b);
        output(false, false, 0).recap(stats, "provision site.yml --limit node-long");
        String t = text();
        assertTrue(t.contains("PLAY RECAP ****"), t);
        assertTrue(t.contains("n1        : ok=2    changed=1    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\n"), t);
        assertTrue(t.contains("node-long : ok=0    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=1\n"), t);
        assertTrue(t.contains("To retry the failed and unreachable hosts only:\n    provision site.yml --limit node-long\n"), t);
    }

    @Test
    void recapWithoutFailuresPrintsNoRetryHint() {
        output(false, false, 0).recap(Map.of("n1", new HostStats()), "");
        assertFalse(text().contains("To retry"), text());
    }

    @Test
    void rescueMovesAFailureToRescued() {
        HostStats s = new HostStats();
        s.count(TaskStatus.FAILED);
        s.rescue();
        assertEquals(0, s.failed());
        assertEquals(1, s.rescued());
    }

    @Test
    void diffIsRenderedUnifiedOnlyUnderDiff() {
        TaskResult r = result(TaskStatus.CHANGED, List.of(fileChange("/etc/motd", "old\nkeep\n", "new\nkeep\n")), "", false, false);
        output(false, true, 0).hostResult(r);
        String t = text();
        assertTrue(t.startsWith("changed: [node1]\n    update /etc/motd\n"), t);
        assertTrue(t.contains("--- before: /etc/motd\n+++ after: /etc/motd\n"), t);
        assertTrue(t.contains("\n-old\n+new\n keep\n"), t);

        bytes.reset();
        output(false, false, 0).hostResult(r);
        assertFalse(text().contains("+++"), text());
    }

    @Test
    void forecastSaysWould() {
        output(false, false, 0).hostResult(result(TaskStatus.CHANGED, List.of(fileChange("/x", "", "a\n")), "", true, false));
        assertTrue(text().contains("    would update /x\n"), text());
    }

    @Test
    void noColourWhenNotAsked() {
        output(false, true, 0).hostResult(result(TaskStatus.CHANGED, List.of(fileChange("/x", "a\n", "b\n")), "", false, false));
        assertFalse(text().contains("\u001b["), text());
    }

    @Test
    void colourWhenAsked() {
        output(true, true, 0).hostResult(result(TaskStatus.FAILED, List.of(), "boom", false, false));
        assertTrue(text().contains("\u001b[0;31mfailed: [node1] => boom\u001b[0m"), text());
    }

    @Test
    void failureShowsItsMessageOkHidesTheReasonUnlessVerbose() {
        output(false, false, 0).hostResult(result(TaskStatus.FAILED, List.of(), "disk full", false, false));
        output(false, false, 0).hostResult(result(TaskStatus.OK, List.of(), "already there", false, false));
        assertEquals("failed: [node1] => disk full\nok: [node1]\n", text());
        bytes.reset();
        output(false, false, 1).hostResult(result(TaskStatus.OK, List.of(), "already there", false, false));
        assertEquals("ok: [node1] => already there\n", text());
    }

    @Test
    void noLogHidesMessageDiffAndChangeSummary() {
        Change secretCommand = Change.of("run: echo " + SECRET, new Command.Shell("echo " + SECRET));
        Change secretFile = fileChange("/etc/secret", "", "password=" + SECRET + "\n");
        output(false, true, 2).hostResult(result(TaskStatus.CHANGED, List.of(secretCommand, secretFile), "", false, true));
        output(false, true, 2).hostResult(result(TaskStatus.FAILED, List.of(secretCommand), "stderr: " + SECRET, false, true));
        String t = text();
        assertFalse(t.contains(SECRET), t);
        assertTrue(t.contains("changed: [node1]"), t);
        assertTrue(t.contains("(diff hidden: no_log)"), t);
        assertTrue(t.contains("failed: [node1] => the output has been hidden due to no_log: true"), t);
    }

    @Test
    void noLogHidesLoopItems() {
        TaskResult item = new TaskResult("node1", TaskStatus.CHANGED, List.of(Change.of("run: echo " + SECRET, new Command.Shell("echo " + SECRET))),
                "", List.of(), SECRET, false, false, true, Map.of(), Duration.ZERO, 0);
        TaskResult whole = new TaskResult("node1", TaskStatus.CHANGED, item.changes(), "", List.of(item), "", false, false, true, Map.of(), Duration.ZERO, 0);
        output(false, true, 1).hostResult(whole);
        assertFalse(text().contains(SECRET), text());
        assertTrue(text().contains("(item=hidden by no_log)"), text());
    }

    @Test
    void sensitiveChangeHidesOnlyItsDiff() {
        Change sensitive = fileChange("/etc/key", "", SECRET + "\n").asSensitive();
        output(false, true, 0).hostResult(result(TaskStatus.CHANGED, List.of(sensitive), "", false, false));
        assertFalse(text().contains(SECRET), text());
        assertTrue(text().contains("    update /etc/key\n    (diff hidden: sensitive content)\n"), text());
    }

    @Test
    void bannersAreEightyColumnsWide() {
        HumanOutput out = output(false, false, 0);
        out.playStarted("web", List.of("node1"), true);
        out.taskStarted("copy", "site.yml:3:7", false);
        out.taskStarted("restart", "site.yml:9:7", true);
        for (String line : text().split("\n")) {
            if (!line.isEmpty()) {
                assertTrue(line.endsWith("***"), line);
                assertTrue(line.length() >= 80, line);
            }
        }
        assertTrue(text().contains("PLAY [web] (check mode: nothing will be changed) "), text());
        assertTrue(text().contains("RUNNING HANDLER [restart] "), text());
    }
}
