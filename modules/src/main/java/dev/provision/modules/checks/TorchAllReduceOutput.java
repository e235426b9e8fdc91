package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses what provision's PyTorch all-reduce benchmark ({@code allreduce_bench.py}) prints:
 * <pre>
 * # all_reduce bus bandwidth, world=8
 * size=1073741824 time_us=4790.2 algbw_GBps=224.15 busbw_GBps=392.27
 * busbw_gbps=392.27
 * </pre>
 * busbw = algbw * 2(n-1)/n (nccl-tests' definition for all-reduce), so it is 0 with one GPU. The
 * closing {@code busbw_gbps=} line is the figure to compare; without it (an older script or a
 * capture made by hand, as in the fixture) the largest size's busbw stands in.
 */
record TorchAllReduceOutput(int world, List<Row> rows, double busbwGbps) {
    private static final Pattern WORLD = Pattern.compile("world=(\\d+)");
    private static final Pattern ROW = Pattern.compile(
            "^size=(\\d+)\\s+time_us=([0-9.]+)\\s+algbw_GBps=([0-9.]+)\\s+busbw_GBps=([0-9.]+)");
    private static final Pattern SUMMARY = Pattern.compile("^busbw_gbps=([0-9.]+)");

    /** One message size. */
    record Row(long sizeBytes, double timeMicros, double algbwGbps, double busbwGbps) {
    }

    TorchAllReduceOutput {
        rows = List.copyOf(rows);
        requireNonNull(rows, "rows cannot be null");
    }

    /**
     * @throws IllegalArgumentException when there is neither a summary line nor a size row
     */
    static TorchAllReduceOutput parse(String output) {
        int world = 0;
        List<Row> rows = new ArrayList<>();
        Double summary = null;
        for (String line : output.lines().map(String::strip).toList()) {
            Matcher r = ROW.matcher(line);
            Matcher s = SUMMARY.matcher(line);
            Matcher w = WORLD.matcher(line);
            if (r.find()) {
                rows.add(new Row(Long.parseLong(r.group(1)), Double.parseDouble(r.group(2)),
                        Double.parseDouble(r.group(3)), Double.parseDouble(r.group(4))));
            } else if (s.find()) {
                summary = Double.parseDouble(s.group(1));
            } else if (line.startsWith("#") && w.find()) {
                world = Integer.parseInt(w.group(1));
            }
        }
        Optional<Row> largest = rows.stream().max(Comparator.comparingLong(Row::sizeBytes));
        if (summary == null && largest.isEmpty()) {
            throw new IllegalArgumentException("no busbw in the benchmark output");
        }
        return new TorchAllReduceOutput(world, rows, summary != null ? summary : largest.get().busbwGbps());
    }
}
