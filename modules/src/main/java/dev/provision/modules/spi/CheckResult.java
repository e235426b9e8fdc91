package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of a check table: what was checked, what the host showed, what was expected, the verdict
 * and a one-line detail. Every text is non-null; {@code "-"} stands for "no expectation".
 *
 * @param check a dotted name such as {@code gpu.count} or {@code ib.mlx5_0/1}
 * @param measured the value found on the host, as shown to the user
 * @param expected the value or bound it was compared with
 * @param detail a short explanation, empty when the row speaks for itself
 */
public record CheckResult(String check, String measured, String expected, Verdict verdict, String detail) {
    public CheckResult {
        requireNonNull(check, "check cannot be null");
        requireNonNull(measured, "measured cannot be null");
        requireNonNull(expected, "expected cannot be null");
        requireNonNull(verdict, "verdict cannot be null");
        requireNonNull(detail, "detail cannot be null");
    }

    public static CheckResult pass(String check, String measured, String expected) {
        return new CheckResult(check, measured, expected, Verdict.PASS, "");
    }

    public static CheckResult fail(String check, String measured, String expected, String detail) {
        return new CheckResult(check, measured, expected, Verdict.FAIL, detail);
    }

    public static CheckResult warn(String check, String measured, String expected, String detail) {
        return new CheckResult(check, measured, expected, Verdict.WARN, detail);
    }

    /** The check does not apply here; {@code detail} says why. */
    public static CheckResult skip(String check, String detail) {
        return new CheckResult(check, "-", "-", Verdict.SKIP, detail);
    }

    /**
     * The check could not run or could not judge (a tool missing, permission denied, a timeout,
     * output that does not parse); {@code detail} says what stopped it and what an operator does next.
     */
    public static CheckResult unknown(String check, String detail) {
        return new CheckResult(check, "-", "-", Verdict.UNKNOWN, detail);
    }

    /** Pass when {@code ok}, otherwise fail with {@code detail}. */
    public static CheckResult of(boolean ok, String check, String measured, String expected, String detail) {
        return ok ? pass(check, measured, expected) : fail(check, measured, expected, detail);
    }

    /** The row as plain data: {@code {check, measured, expected, verdict, detail}} in that order. */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("check", check);
        map.put("measured", measured);
        map.put("expected", expected);
        map.put("verdict", verdict.word());
        map.put("detail", detail);
        return map;
    }

    /** Whether a row of {@code rows} failed: what fails a check task, its table's verdict. */
    public static boolean anyFailed(java.util.List<CheckResult> rows) {
        return rows.stream().anyMatch(r -> r.verdict() == Verdict.FAIL);
    }

    /** {@code rows} as plain data, as {@code register} and the JSON report show a check table. */
    public static java.util.List<Map<String, Object>> toMaps(java.util.List<CheckResult> rows) {
        return rows.stream().map(CheckResult::toMap).toList();
    }

    /**
     * Reads a row back from {@link #toMap()}'s shape (a saved report's table).
     *
     * @throws IllegalArgumentException when a key is missing or the verdict is unknown
     */
    public static CheckResult fromMap(Map<?, ?> map) {
        return new CheckResult(text(map, "check"), text(map, "measured"), text(map, "expected"),
                Verdict.of(text(map, "verdict")), text(map, "detail"));
    }

    private static String text(Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value == null) {
            throw new IllegalArgumentException("check row has no " + key + ": " + map);
        }
        return String.valueOf(value);
    }
}
