package dev.provision.engine.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed playbooks, inventories, expressions and command lines, generated from a fixed seed, fed
 * to the real entry point in this JVM: none may crash, hang or lose its position ({@link Verdict}).
 *
 * <p>Seeded and bounded, so it runs in every build: {@value #DEFAULT_CASES} cases in well under a
 * minute. {@code -Dprovision.fuzz.seed=N} tries other inputs, {@code -Dprovision.fuzz.cases=N} more of
 * them, and {@code -Dprovision.fuzz.case=K} re-runs case K of the seed alone; the seed is printed, and
 * {@code -Dprovision.fuzz.verbose=true} prints every case's outcome.
 */
class MalformedInputFuzzTest {
    private static final long DEFAULT_SEED = 14;
    private static final int DEFAULT_CASES = 800;
    /** Far beyond any limit of the engine: a case that takes this long hangs. */
    private static final Duration CASE_TIMEOUT = Duration.ofSeconds(30);
    /** How long a template worker may go on after its case ended (one that ignored its interruption). */
    private static final Duration WORKER_GRACE = Duration.ofSeconds(10);
    private static final int REPORTED = 10;

    @TempDir
    Path workspace;

    @Test
    void noMalformedInputCrashesHangsOrLosesItsPosition() throws Exception {
        long seed = Long.getLong("provision.fuzz.seed", DEFAULT_SEED);
        int cases = Integer.getInteger("provision.fuzz.cases", DEFAULT_CASES);
        Integer only = Integer.getInteger("provision.fuzz.case");
        boolean verbose = Boolean.getBoolean("provision.fuzz.verbose");
        System.out.println("fuzz: seed " + seed + ", " + (only == null ? cases + " cases" : "case " + only));
        CaseGenerator generator = new CaseGenerator(seed);
        List<String> findings = new ArrayList<>();
        Map<String, Integer> exitCodes = new TreeMap<>();
        long started = System.nanoTime();
        long slowest = 0;
        int ran = 0;
        for (int i = only == null ? 0 : only; i < (only == null ? cases : only + 1); i++) {
            FuzzCase c = generator.generate(i);
            Path dir = Files.createDirectories(workspace.resolve("case-" + i));
            c.writeTo(dir);
            CliRun.Outcome outcome = CliRun.run(c.argsIn(dir), CASE_TIMEOUT);
            List<String> problems = new ArrayList<>(Verdict.problems(outcome, dir));
            if (!workersQuietWithin(WORKER_GRACE)) {
                problems.add("a template worker still ran " + WORKER_GRACE.toSeconds() + " s after the case ended");
            }
            if (!problems.isEmpty()) {
                findings.add(report(c, dir, outcome, problems));
            }
            exitCodes.merge(c.kind() + " -> " + outcome.exitCode(), 1, Integer::sum);
            if (verbose) {
                System.out.println("case " + i + " " + c.kind() + " exit " + outcome.exitCode() + " " + outcome.millis() + " ms: "
                        + outcome.all().lines().filter(l -> l.startsWith("ERROR") || l.startsWith("failed") || l.startsWith("provision:"))
                                .findFirst().orElse(""));
            }
            slowest = Math.max(slowest, outcome.millis());
            ran++;
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println("fuzz: " + ran + " cases in " + took + " ms (slowest " + slowest + " ms), "
                + findings.size() + " failed; outcomes " + exitCodes);
        assertTrue(findings.isEmpty(), findings.size() + " of " + ran + " cases failed (seed " + seed + "); the first "
                + Math.min(REPORTED, findings.size()) + ":\n\n" + String.join("\n\n", findings.subList(0, Math.min(REPORTED, findings.size()))));
    }

    private static String report(FuzzCase c, Path dir, CliRun.Outcome outcome, List<String> problems) {
        return "case " + c.index() + " (" + c.kind() + ": " + c.description() + "): " + String.join("; ", problems)
                + "\n  args: " + c.argsIn(dir)
                + "\n  exit " + outcome.exitCode() + " after " + outcome.millis() + " ms; output:\n"
                + indent(abbreviate(outcome.all(), 3000))
                + "\n  input:\n" + indent(abbreviate(c.changed(), 1500));
    }

    /** Whether no template worker is running (they idle in a queue between evaluations). */
    private static boolean workersQuietWithin(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            boolean busy = Thread.getAllStackTraces().keySet().stream().anyMatch(t ->
                    t.getName().startsWith("provision-template-") && t.getState() == Thread.State.RUNNABLE);
            if (!busy) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
    }

    private static String abbreviate(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "\n[... " + text.length() + " characters]";
    }

    private static String indent(String text) {
        return text.lines().map(l -> "    " + l).reduce((a, b) -> a + "\n" + b).orElse("    (nothing)");
    }
}
