package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The executor's promises, each shown by a small playbook run through the real launcher on this machine. */
class ExecutorIT {
    static final Path EXEC = Provision.REPO.resolve("engine/src/test/resources/e2e/exec");
    static final Path PRECEDENCE = Provision.REPO.resolve("engine/src/test/resources/e2e/precedence");
    static final String THREE_HOSTS = EXEC.resolve("three-hosts.yml").toString();

    @TempDir
    Path dir;

    private Provision.Result run(String playbook, String... more) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(more));
        args.add(EXEC.resolve(playbook).toString());
        args.add("-e");
        args.add("dir=" + dir);
        return Provision.run(args.toArray(String[]::new));
    }

    private List<String> lines(String file) throws Exception {
        Path p = dir.resolve(file);
        return Files.exists(p) ? Files.readAllLines(p) : List.of();
    }

    @Test
    void rescuedHostGoesOnAndAlwaysRunsForFailedHost() throws Exception {
        Provision.Result r = run("block.yml");
        assertEquals(2, r.exitCode(), r.output());
        assertEquals(List.of("rescue", "always", "after-rescue", "always-after-failure"), lines("log"), r.output());
        assertEquals(1, r.recap("localhost", "rescued"), r.output());
        assertEquals(1, r.recap("localhost", "failed"), "only the unrescued failure counts:\n" + r.output());
    }

    @Test
    void handlersRunOnceThroughListenOnlyWhenANotifierChanged() throws Exception {
        Provision.Result first = run("handlers.yml");
        assertEquals(0, first.exitCode(), first.output());
        assertEquals(List.of("restarted", "reloaded"), lines("handler.log"), first.output());
        assertTrue(first.output().contains("RUNNING HANDLER [restart app]"), first.output());

        Provision.Result second = run("handlers.yml");
        assertEquals(0, second.exitCode(), second.output());
        assertFalse(second.output().contains("RUNNING HANDLER"), second.output());
        assertEquals(List.of("restarted", "reloaded"), lines("handler.log"), "no handler may run when nothing changed");
    }

    @Test
    void loopUsesLoopVarLabelAndNativeTypes() throws Exception {
        Provision.Result r = run("loop.yml");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("changed: [localhost] => (item=alice)"), r.output());
        assertTrue(r.output().contains("changed: [localhost] => (item=bob)"), r.output());
        assertFalse(r.output().contains("uid=1001"), "the label replaces the whole item:\n" + r.output());
        assertEquals(List.of("uid=2001"), lines("alice"), "numbers stay numbers inside ${}");
        assertEquals(List.of("uid=2002"), lines("bob"));
        assertTrue(r.output().contains("ok: [localhost] => (item=8443) => All assertions passed"), r.output());
        assertEquals(List.of("one", "two"), lines("literal"));
    }

    @Test
    void registeredValuesDriveWhenChangedWhenFailedWhenUntilAndIgnoreErrors() throws Exception {
        Provision.Result r = run("register.yml");
        assertEquals(0, r.exitCode(), "ignore_errors keeps the exit code at 0:\n" + r.output());
        assertEquals(List.of("ready"), lines("when-true"));
        assertFalse(Files.exists(dir.resolve("when-false")), r.output());
        assertTrue(Pattern.compile("TASK \\[Probe\\][^\\n]*\\nok: \\[localhost\\]").matcher(r.output()).find(),
                "changed_when: false reports ok:\n" + r.output());
        assertTrue(Pattern.compile("TASK \\[Exit 3 is fine here\\][^\\n]*\\nchanged: ").matcher(r.output()).find(),
                "failed_when accepts exit 3:\n" + r.output());
        assertEquals(List.of("3"), lines("count"), "until retried until the third attempt");
        assertEquals(List.of("1 true"), lines("ignored"), "the ignored failure is registered as failed with its rc");
        assertEquals(1, r.recap("localhost", "ignored"), r.output());
        assertEquals(1, r.recap("localhost", "skipped"), r.output());
        assertEquals(0, r.recap("localhost", "failed"), r.output());
    }

    @Test
    void untilGivesUpAfterRetriesAndFails() throws Exception {
        Provision.Result r = run("until-gives-up.yml");
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(r.output().contains("until condition still false after 3 attempts"), r.output());
    }

    @Test
    void tagsSkipTagsAndAlways() throws Exception {
        assertEquals(0, run("tags.yml", "--tags", "config").exitCode());
        assertEquals(List.of("second", "third"), lines("log"), "--tags runs the tagged task and 'always'");
        Files.delete(dir.resolve("log"));
        assertEquals(0, run("tags.yml", "--skip-tags", "setup,config").exitCode());
        assertEquals(List.of("third", "fourth"), lines("log"));
        Files.delete(dir.resolve("log"));
        assertEquals(0, run("tags.yml", "--tags", "setup", "--skip-tags", "always").exitCode());
        assertEquals(List.of("first"), lines("log"), "--skip-tags always skips even 'always'");
    }

    @Test
    void startAtTaskSkipsEverythingBeforeIt() throws Exception {
        Provision.Result r = run("tags.yml", "--start-at-task", "second");
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("second", "third", "fourth"), lines("log"));
    }

    @Test
    void startAtAnUnknownTaskIsInvalidInput() throws Exception {
        Provision.Result r = run("tags.yml", "--start-at-task", "no such task");
        assertEquals(4, r.exitCode(), r.output());
        assertTrue(r.output().contains("no task named 'no such task'"), r.output());
        assertEquals(List.of(), lines("log"), "nothing may run");
    }

    @Test
    void serialRunsEachBatchToTheEndBeforeTheNext() throws Exception {
        Provision.Result r = run("multi.yml", "-i", THREE_HOSTS);
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("h1-one", "h1-two", "h2-one", "h2-two", "h3-one", "h3-two"), lines("order"));
        for (String h : List.of("h1", "h2", "h3")) {
            assertEquals(2, r.recap(h, "changed"), r.output());
        }
    }

    @Test
    void maxFailPercentageStopsThePlayWhenExceeded() throws Exception {
        Provision.Result r = run("max-fail-30.yml", "-i", THREE_HOSTS);
        assertEquals(2, r.exitCode(), r.output());
        assertEquals(List.of(), lines("after"), "1 of 3 failed is more than 30%: nothing runs afterwards");
    }

    @Test
    void maxFailPercentageLetsTheOthersGoOnBelowTheLimit() throws Exception {
        Provision.Result r = run("max-fail-50.yml", "-i", THREE_HOSTS);
        assertEquals(2, r.exitCode(), r.output());
        assertEquals(List.of("h2", "h3"), lines("after").stream().sorted().toList(), r.output());
        assertEquals(1, r.recap("h1", "failed"), r.output());
    }

    @Test
    void anyErrorsFatalEndsThePlayForEveryHost() throws Exception {
        Provision.Result r = run("fatal.yml", "-i", THREE_HOSTS);
        assertEquals(2, r.exitCode(), r.output());
        assertEquals(List.of(), lines("after"), r.output());
        assertEquals(1, r.recap("h2", "failed"), r.output());
    }

    @Test
    void runOnceRunsOnOneHostAndShareItsRegisteredValue() throws Exception {
        Provision.Result r = run("run-once.yml", "-i", THREE_HOSTS);
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("h1"), lines("once"));
        assertEquals(List.of("h1=from-h1", "h2=from-h1", "h3=from-h1"), lines("seen").stream().sorted().toList());
        assertEquals(List.of("delegated-for-h1", "delegated-for-h2", "delegated-for-h3"),
                lines("delegated").stream().sorted().toList(), "delegate_to runs the task for every host");
        assertEquals(3, r.recap("h1", "changed"), r.output());
        assertEquals(2, r.recap("h2", "changed"), r.output());
    }

    @Test
    void noLogHidesTheSecretFromOutputDiffsAndJsonReport() throws Exception {
        Path report = dir.resolve("report.json");
        Provision.Result r = run("no-log.yml", "--diff", "-v", "--json", report.toString());
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("password=hunter2-s3cr3t"), lines("credentials"), "the task itself did its work");
        assertFalse(r.output().contains("hunter2"), r.output());
        String json = Files.readString(report);
        assertFalse(json.contains("hunter2"), json);
        assertTrue(r.output().contains("+nothing to hide"), "diffs of other tasks still show:\n" + r.output());
        assertTrue(r.output().contains("(diff hidden: no_log)"), r.output());
    }

    @Test
    void jsonReportHasPlaysTasksResultsAndStats() throws Exception {
        Path report = dir.resolve("out/report.json");
        Provision.Result r = run("handlers.yml", "--json", report.toString());
        assertEquals(0, r.exitCode(), r.output());
        JsonNode doc = r.report();
        JsonNode play = doc.path("plays").path(0);
        assertEquals("localhost", play.path("hosts").path(0).asText());
        JsonNode tasks = play.path("tasks");
        assertEquals(5, tasks.size(), "three tasks and two handlers:\n" + doc.toPrettyString());
        JsonNode write = tasks.path(0);
        assertEquals("Write the config", write.path("name").asText());
        assertTrue(write.path("position").asText().endsWith("handlers.yml:5:7"), write.toPrettyString());
        JsonNode result = write.path("results").path(0);
        assertEquals("localhost", result.path("host").asText());
        assertEquals("changed", result.path("status").asText());
        assertTrue(result.path("duration_ms").isIntegralNumber(), result.toPrettyString());
        JsonNode diff = result.path("changes").path(0).path("diffs").path(0);
        assertEquals("", diff.path("before").asText());
        assertEquals("port=8080\n", diff.path("after").asText());
        assertEquals("ok", tasks.path(1).path("results").path(0).path("status").asText());
        assertTrue(tasks.path(3).path("handler").asBoolean(), tasks.path(3).toPrettyString());
        JsonNode stats = doc.path("stats").path("localhost");
        assertEquals(3, stats.path("changed").asInt(), doc.toPrettyString());
        assertEquals(5, stats.path("ok").asInt(), doc.toPrettyString());
        assertEquals(0, stats.path("failed").asInt());
    }

    @Test
    void variablePrecedenceFollowsTheDocumentedOrder() throws Exception {
        Provision.Result r = Provision.run("-i", PRECEDENCE.resolve("inventory.yml").toString(),
                PRECEDENCE.resolve("site.yml").toString(), "-e", "dir=" + dir, "-e", "g=extra");
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("a=defaults b=group c=host d=play e=task f=fact g=extra"), lines("levels"), r.output());
    }

    @Test
    void undefinedVariableFailsTheTaskNamingItAndWhereItIsUsed() throws Exception {
        Provision.Result r = run("undefined.yml");
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(r.output().contains("undefined.yml:6:9: undefined variable 'no_such_variable'"), r.output());
        assertNoStackTrace(r.output());
    }

    @Test
    void moduleErrorNamesTheTaskPosition() throws Exception {
        Provision.Result r = run("module-error.yml");
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(r.output().contains("module-error.yml:4:7: template 'no-such-template.ftl' not found"), r.output());
        assertNoStackTrace(r.output());
    }

    static void assertNoStackTrace(String output) {
        assertFalse(output.contains("at dev.provision"), output);
        assertFalse(output.contains("Exception"), output);
    }
}
