package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the output of nccl-tests' {@code all_reduce_perf}. The column header names the columns,
 * and its layout changed over the project's history (see {@code print_header} in its
 * {@code src/common.cu}):
 * <pre>
 * #       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error
 * #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
 * </pre>
 * so columns are found by name: the first {@code busbw} is out-of-place, the second in-place. A data
 * row has as many fields as the header. {@code # Avg bus bandwidth    : 123.45} closes the run and
 * {@code # Out of bounds values : 0 OK} (or {@code FAILED}) says whether results were correct.
 */
final class NcclTestsOutput {
    private static final Pattern AVERAGE = Pattern.compile("#\\s*Avg bus bandwidth\\s*:\\s*([0-9.eE+-]+)");
    private static final Pattern OUT_OF_BOUNDS = Pattern.compile("#\\s*Out of bounds values\\s*:\\s*(\\d+)\\s*(\\S*)");

    /** One message size: bytes and bus bandwidth in GB/s, out-of-place and in-place. */
    record Row(long sizeBytes, double outOfPlaceBusbw, double inPlaceBusbw, String outOfPlaceWrong) {
        Row {
            requireNonNull(outOfPlaceWrong, "outOfPlaceWrong cannot be null");
        }
    }

    private final List<Row> rows;
    private final Double average;
    private final long outOfBounds;

    private NcclTestsOutput(List<Row> rows, Double average, long outOfBounds) {
        this.rows = List.copyOf(rows);
        this.average = average;
        this.outOfBounds = outOfBounds;
    }

    List<Row> rows() {
        return rows;
    }

    /** The row of the largest message size, whose busbw is the figure to compare. */
    Optional<Row> largest() {
        return rows.stream().max(Comparator.comparingLong(Row::sizeBytes));
    }

    /** The {@code # Avg bus bandwidth} line; empty when the run did not finish. */
    OptionalDouble averageBusbw() {
        return average == null ? OptionalDouble.empty() : OptionalDouble.of(average);
    }

    /** Values out of bounds (wrong results); 0 when the line is absent. */
    long outOfBounds() {
        return outOfBounds;
    }

    /**
     * @throws IllegalArgumentException when no column header with {@code busbw} is found
     */
    static NcclTestsOutput parse(String output) {
        List<String> header = null;
        List<Row> rows = new ArrayList<>();
        Double average = null;
        long outOfBounds = 0;
        for (String line : output.lines().toList()) {
            String text = line.strip();
            Matcher avg = AVERAGE.matcher(text);
            Matcher oob = OUT_OF_BOUNDS.matcher(text);
            if (avg.find()) {
                average = Double.parseDouble(avg.group(1));
            } else if (oob.find()) {
                outOfBounds = Long.parseLong(oob.group(1));
            } else if (text.startsWith("#")) {
                List<String> words = List.of(text.substring(1).strip().split("\\s+"));
                if (words.contains("busbw") && (words.contains("size") || words.contains("bytes"))) {
                    header = words;
                }
            } else if (header != null) {
                row(header, text).ifPresent(rows::add);
            }
        }
        if (header == null) {
            throw new IllegalArgumentException("no all_reduce_perf column header (size ... busbw) in the output");
        }
        return new NcclTestsOutput(rows, average, outOfBounds);
    }

    private static Optional<Row> row(List<String> header, String text) {
        String[] f = text.split("\\s+");
        if (f.length != header.size() || !f[0].matches("\\d+")) {
            return Optional.empty();
        }
        int sizeAt = header.contains("size") ? header.indexOf("size") : header.indexOf("bytes");
        int out = header.indexOf("busbw");
        int in = header.lastIndexOf("busbw");
        int wrong = header.indexOf("#wrong") >= 0 ? header.indexOf("#wrong") : header.indexOf("error");
        try {
            return Optional.of(new Row(Long.parseLong(f[sizeAt]), Double.parseDouble(f[out]),
                    in != out ? Double.parseDouble(f[in]) : Double.NaN, wrong >= 0 ? f[wrong] : "-"));
        } catch (NumberFormatException e) {
            return Optional.empty(); // a "N/A" in a bandwidth column: not a measurement
        }
    }
}
