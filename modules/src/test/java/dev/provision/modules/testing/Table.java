package dev.provision.modules.testing;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The rows of a module's table test: {@code @MethodSource("cases")} hands each test method a row's
 * columns, its name first (the display name) and its {@link Expect} last. A class writes its rows with
 * {@link #row} and derives the rows that plan something, the ones whose plan, once applied, must plan
 * nothing, with {@link #planned}; {@link Expect#check} and {@link Expect#checkIdempotent} test a row.
 */
public final class Table {
    private Table() {
    }

    /** A row: its name, then the columns the test methods take (facts, arguments, ...), the {@link Expect} last. */
    public static Arguments row(String name, Object... columns) {
        Object[] all = new Object[columns.length + 1];
        all[0] = name;
        System.arraycopy(columns, 0, all, 1, columns.length);
        if (!(all[all.length - 1] instanceof Expect)) {
            throw new IllegalArgumentException("row " + name + ": the last column must be an Expect");
        }
        return Arguments.of(all);
    }

    /** The rows that expect planned commands. */
    public static Stream<Arguments> planned(Stream<Arguments> rows) {
        return rows.filter(row -> expect(row) instanceof Expect.Planned);
    }

    /** The rows that expect planned commands, less the actions ({@code action: ...} rows), which plan every time. */
    public static Stream<Arguments> plannedStates(Stream<Arguments> rows) {
        return planned(rows).filter(row -> !name(row).startsWith("action:"));
    }

    /** A row's name, its first column. */
    public static String name(Arguments row) {
        return (String) row.get()[0];
    }

    /** What a row expects, its last column. */
    public static Expect expect(Arguments row) {
        Object[] columns = row.get();
        return (Expect) columns[columns.length - 1];
    }
}
