package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import freemarker.template.Template;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

/** Runaway templates fail at their position, quickly, and the engine goes on serving others. */
class TemplateEngineLimitsTest {
    private static final SourcePosition WHERE = new SourcePosition("site.yml", 5, 9);
    private static final Limits SMALL = new Limits(Duration.ofMillis(300), 64L << 20, 4096, 1000);
    private static final Duration QUICKLY = Duration.ofSeconds(10);

    @TempDir
    Path workspace;

    private final TemplateEngine engine = new TemplateEngine(List.of(), SMALL);

    private String failure(String text) {
        return failure(() -> engine.interpolate(text, Map.of("n", 3), WHERE));
    }

    private static String failure(Executable evaluation) {
        return assertTimeoutPreemptively(QUICKLY, () -> assertThrows(TemplateException.class, evaluation)).getMessage();
    }

    @Test
    void macroThatCallsItselfIsARecursionError() {
        assertEquals("site.yml:5:9: \"<#macro m><@m/></#macro><@m/>\" recursion too deep "
                + "(a macro, function or ?eval that calls itself without end?)", failure("<#macro m><@m/></#macro><@m/>"));
    }

    @Test
    void functionAndEvalThatCallThemselvesToo() {
        assertTrue(failure("<#function f x><#return f(x)></#function>${f(1)}").contains("recursion too deep"));
        String eval = failure("<#assign e = \"e?eval\">${e?eval}");
        // whichever guard stops it first, by the load of the machine: depth, memory or CPU time
        assertTrue(eval.contains("recursion too deep") || eval.contains("allocates more than 64 MiB")
                || eval.contains("takes more than 300 ms of CPU time"), eval);
    }

    @Test
    void theMainNamespaceContainsItself() {
        assertEquals("site.yml:5:9: cannot use the value of \"${.main}\": it contains itself", failure("${.main}"));
    }

    @Test
    void hugePadWidthIsRefusedBeforeAnythingIsAllocated() {
        assertEquals("site.yml:5:9: ?left_pad(2000000000) would make more than 4096 characters of text "
                + "(in \"${\"\"?left_pad(2000000000)}\")", failure("${\"\"?left_pad(2000000000)}"));
    }

    @Test
    void endlessListStopsAtTheCpuOrMemoryLimit() {
        String message = failure("<#list 1.. as i></#list>");
        assertTrue(message.startsWith("site.yml:5:9: \"<#list 1.. as i></#list>\" "), message);
        assertTrue(message.contains("takes more than 300 ms of CPU time") || message.contains("allocates more than 64 MiB"), message);
    }

    @Test
    void endlessListInsideAttemptIsStoppedToo() {
        String message = failure("<#attempt><#list 1.. as i></#list><#recover>recovered</#attempt>");
        assertTrue(message.contains("of CPU time") || message.contains("of memory"), message);
    }

    @Test
    void stringThatDoublesInALoopStopsAtTheMemoryLimit() {
        String message = failure("<#assign s = \"x\"><#list 1..64 as i><#assign s = s + s></#list>${s?length}");
        assertTrue(message.contains("allocates more than 64 MiB of memory"), message);
    }

    @Test
    void aTemplateThatRanAwayOnceIsRefusedAtOnceAfterwards() {
        failure("<#list 1.. as i></#list>");
        long started = System.nanoTime();
        failure("<#list 1.. as i></#list>");
        assertTrue(Duration.ofNanos(System.nanoTime() - started).toMillis() < 200, "the second host does not wait again");
    }

    @Test
    void outputIsLimited() {
        assertEquals("site.yml:5:9: \"<#list 1..5000 as i>x</#list>\" produces more than 4096 characters of text",
                failure("<#list 1..5000 as i>x</#list>"));
    }

    @Test
    void valuesAreLimitedInItemsAndText() {
        assertEquals("site.yml:5:9: cannot use the value of \"${1..}\": it holds more than 1000 items", failure("${1..}"));
        assertEquals("site.yml:5:9: cannot use the value of \"${\"x\"?right_pad(n * 2000)}\": it holds more than 4096 "
                + "characters of text", failure("${\"x\"?right_pad(n * 2000)}"));
    }

    @Test
    void conditionsAreLimitedToo() {
        String message = failure(() -> engine.test("(1..)?filter(i -> i < 0)?size > 0", Map.of(), WHERE));
        assertTrue(message.startsWith("site.yml:5:9: "), message);
    }

    @Test
    void interpretIsRefusedInlineAndInFiles() throws Exception {
        assertTrue(failure("${\"<#list 1.. as i/>\"?interpret}").contains("?interpret is not available"));
        Files.writeString(workspace.resolve("loop.ftl"), "<@\"<#list 1.. as i/>\"?interpret/>");
        String message = failure(() -> new TemplateEngine(List.of(workspace), SMALL).render("loop.ftl", List.of(), Map.of()));
        assertEquals("template 'loop.ftl': ?interpret is not available: it runs text as a template, where a loop could not "
                + "be stopped; write the template directly", message);
    }

    @Test
    void endlessLoopInAnIncludedFileIsStopped() throws Exception {
        Files.writeString(workspace.resolve("main.ftl"), "a\n<#include \"loop.ftl\">\n");
        Files.writeString(workspace.resolve("loop.ftl"), "<#list 1.. as i></#list>");
        String message = failure(() -> new TemplateEngine(List.of(workspace), SMALL).render("main.ftl", List.of(), Map.of()));
        assertTrue(message.startsWith("template 'main.ftl' "), message);
        assertTrue(message.contains("of CPU time") || message.contains("of memory"), message);
    }

    @Test
    void deeplyNestedExpressionCannotBeRead() {
        String message = failure("${" + "(".repeat(50_000) + "1" + ")".repeat(50_000) + "}");
        assertTrue(message.endsWith("nests too deeply to read; simplify it"), message);
    }

    @Test
    void everydayExpressionsStillWork() throws Exception {
        assertEquals("a,b", engine.interpolate("${items?join(\",\")}", Map.of("items", List.of("a", "b")), WHERE));
        assertEquals("0 1 2 ", engine.interpolate("<#list 0..2 as i>${i} </#list>", Map.of(), WHERE));
        assertEquals(List.of(1, 2, 3), engine.evaluate("1..3", Map.of(), WHERE));
        assertTrue(engine.test("n > 2", Map.of("n", 3), WHERE));
    }

    @Test
    void workThatIgnoresItsInterruptionIsLeftBehind() throws Exception {
        EvaluationGuard guard = new EvaluationGuard(SMALL);
        Template template = new Template("t", "", SandboxedConfiguration.create(null, SMALL));
        AtomicBoolean spinning = new AtomicBoolean(true);
        try {
            LimitExceeded limit = assertTimeoutPreemptively(QUICKLY, () -> assertThrows(LimitExceeded.class,
                    () -> guard.run(template, false, () -> {
                        long spins = 0;
                        while (spinning.get()) { // like a built-in that loops without looking at its thread
                            spins++;
                        }
                        return spins;
                    })));
            assertTrue(limit.getMessage().startsWith("takes more than 300 ms of CPU time"), limit.getMessage());
        } finally {
            spinning.set(false);
        }
    }

    @Test
    void workerThatWaitsForAnotherHostGivesUpItsPlace() throws Exception {
        EvaluationGuard guard = new EvaluationGuard(SMALL, 1);
        Template template = new Template("t", "", SandboxedConfiguration.create(null, SMALL));
        CountDownLatch otherHostCaughtUp = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try {
                guard.run(template, false, () -> awaitQuietly(otherHostCaughtUp)); // like hostvars of a host behind
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        reader.start();
        Thread.sleep(100); // the reader holds the only place and waits
        assertTimeoutPreemptively(QUICKLY, () -> guard.run(template, false, () -> {
            otherHostCaughtUp.countDown(); // the host behind needs a place to catch up
            return "caught up";
        }));
        reader.join(QUICKLY.toMillis());
        assertFalse(reader.isAlive());
    }

    private static String awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "read";
    }

    @Test
    void straightLineTextStaysInTheCallersThread() {
        assertTrue(TemplateText.isStraightLine("${servers?join(\",\")}"));
        assertTrue(TemplateText.isStraightLine("facts.os_family == \"Debian\" && x?has_content"));
        assertFalse(TemplateText.isStraightLine("<#list servers as s>${s}</#list>"));
        assertFalse(TemplateText.isStraightLine("${(1..3)?join(\",\")}"));
        assertFalse(TemplateText.isStraightLine("${x?eval}"));
        assertFalse(TemplateText.isStraightLine("${x?left_pad(5)}"));
        assertFalse(TemplateText.isStraightLine("${x?matches(\"(a+)+$\")}"));
    }

    @Test
    void aTemplateFileThatOnlyFillsInValuesStaysInTheCallersThread() throws Exception {
        Files.writeString(workspace.resolve("node.conf.ftl"), "name = ${name}\nindex = ${hosts?seq_index_of(name)}\n");
        Files.writeString(workspace.resolve("loop.conf.ftl"), "<#list hosts as h>${h}\n</#list>");
        Files.writeString(workspace.resolve("include.conf.ftl"), "<#include \"node.conf.ftl\">");
        TemplateEngine files = new TemplateEngine(List.of(workspace), SMALL);
        assertSame(Thread.currentThread(), threadThatRenders(files, "node.conf.ftl"));
        assertNotSame(Thread.currentThread(), threadThatRenders(files, "loop.conf.ftl"));
        assertNotSame(Thread.currentThread(), threadThatRenders(files, "include.conf.ftl"));
    }

    /** The thread that read the variables while {@code template} rendered. */
    private static Thread threadThatRenders(TemplateEngine engine, String template) throws TemplateException {
        AtomicReference<Thread> reader = new AtomicReference<>();
        Map<String, Object> values = Map.of("name", "b", "hosts", List.of("a", "b"));
        Map<String, Object> vars = new AbstractMap<>() {
            @Override
            public Object get(Object key) {
                reader.set(Thread.currentThread());
                return values.get(key);
            }

            @Override
            public Set<Entry<String, Object>> entrySet() {
                return values.entrySet();
            }
        };
        assertTrue(engine.render(template, List.of(), vars).contains("b"));
        return reader.get();
    }
}
