package dev.provision.modules.checks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NUMA layout: the nodes {@code numactl --hardware} lists ({@code available: 2 nodes (0-1)}) and
 * each GPU's {@code NUMA Affinity} column of {@code nvidia-smi topo -m}: a tab-separated matrix
 * whose header names the columns (GPUs, NICs, {@code CPU Affinity}, {@code NUMA Affinity},
 * {@code GPU NUMA ID}; wrapped in ANSI underline codes) and whose rows start with the device name.
 * Rows can carry an empty cell more than the header (the real H200 capture does), so the columns
 * are matched by position from the left.
 */
final class NumaTopology {
    static final List<String> NUMACTL = List.of("numactl", "--hardware");
    static final List<String> TOPO = List.of("nvidia-smi", "topo", "-m");

    private static final Pattern AVAILABLE = Pattern.compile("^available: (\\d+) nodes? \\(([^)]*)\\)");
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

    private NumaTopology() {
    }

    /** The node numbers of {@code numactl --hardware}; empty when the line is missing. */
    static List<Integer> nodes(String numactl) {
        for (String line : numactl.lines().map(String::strip).toList()) {
            Matcher m = AVAILABLE.matcher(line);
            if (m.find()) {
                return ranges(m.group(2));
            }
        }
        return List.of();
    }

    /** {@code 0-1,3} -> [0, 1, 3]. */
    static List<Integer> ranges(String text) {
        List<Integer> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.strip();
            if (p.matches("\\d+-\\d+")) {
                String[] ends = p.split("-");
                for (int i = Integer.parseInt(ends[0]); i <= Integer.parseInt(ends[1]); i++) {
                    out.add(i);
                }
            } else if (p.matches("\\d+")) {
                out.add(Integer.parseInt(p));
            }
        }
        return out;
    }

    /** GPU name ({@code GPU0}) to its NUMA Affinity cell ({@code 0}, {@code 0-1}, {@code N/A}). */
    static Map<String, String> gpuAffinity(String topo) {
        Map<String, String> affinity = new LinkedHashMap<>();
        int column = -1;
        for (String raw : topo.lines().toList()) {
            String line = ANSI.matcher(raw).replaceAll("");
            List<String> cells = List.of(line.split("\t", -1));
            if (column < 0) {
                column = cells.stream().map(String::strip).toList().indexOf("NUMA Affinity");
                continue;
            }
            String name = cells.get(0).strip();
            if (name.matches("GPU\\d+") && cells.size() > column) {
                affinity.put(name, cells.get(column).strip());
            }
        }
        return affinity;
    }
}
