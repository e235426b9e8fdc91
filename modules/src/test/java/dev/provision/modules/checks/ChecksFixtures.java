package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Loads the captured outputs under {@code fixtures/} and reads check tables back from plans. */
final class ChecksFixtures {
    private ChecksFixtures() {
    }

    /** A capture: the command line, what it printed, its exit status. */
    record Capture(String command, String output, int exitCode) {
        ProbeResult probe() {
            return new ProbeResult(exitCode, output, "");
        }
    }

    static Capture load(String name) {
        try (InputStream in = ChecksFixtures.class.getResourceAsStream("/fixtures/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<String> lines = text.lines().toList();
            String first = lines.get(0);
            String last = lines.get(lines.size() - 1);
            if (!first.startsWith("$ ") || !last.startsWith("# exit=")) {
                throw new IllegalArgumentException(name + " is not a capture ($ command ... # exit=N)");
            }
            String output = String.join("\n", lines.subList(1, lines.size() - 1)) + "\n";
            return new Capture(first.substring(2), output, Integer.parseInt(last.substring("# exit=".length()).strip()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String output(String name) {
        return load(name).output();
    }

    /** The plan's rows keyed by check name, each as {@link dev.provision.modules.spi.CheckResult#toMap}. */
    static Map<String, Map<String, Object>> rows(Plan plan) {
        assertTrue(!plan.checks().isEmpty(), () -> "plan has no check rows: " + plan);
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        for (dev.provision.modules.spi.CheckResult row : plan.checks()) {
            rows.put(row.check(), row.toMap());
        }
        return rows;
    }

    static Map<String, Object> row(Plan plan, String check) {
        Map<String, Map<String, Object>> rows = rows(plan);
        assertTrue(rows.containsKey(check), "no row " + check + " in " + rows.keySet());
        return rows.get(check);
    }

    static void assertVerdict(Plan plan, String check, Verdict verdict) {
        assertEquals(verdict.word(), row(plan, check).get("verdict"), () -> "row " + row(plan, check));
    }

    /**
     * A WARN or FAIL row's detail: the diagnosis, then the action an operator takes next (the result
     * contract: every such row says what to do).
     */
    static void assertDetail(String diagnosis, Object detail) {
        String text = String.valueOf(detail);
        assertTrue(text.startsWith(diagnosis + ": ") && text.length() > diagnosis.length() + 2,
                () -> "expected '" + diagnosis + ": <what to do>', got '" + text + "'");
    }

    static boolean failed(Plan plan) {
        return plan.checks().stream().anyMatch(row -> row.verdict() == Verdict.FAIL);
    }
}
