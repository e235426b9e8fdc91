package dev.provision.modules.checks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Parses the {@code nvidia-smi -q} report (also {@code -q -d ECC}), the fallback when the CSV query
 * is refused (an older driver that lacks a field). The report is an indented tree, four spaces a
 * level: section lines ({@code ECC Errors}), leaf lines ({@code Current : Enabled}) and one block
 * per GPU introduced by {@code GPU 00000000:00:06.0}. Leaves are read by path
 * ({@code ECC Mode/Current}). Uncorrectable counters are summed over every leaf under
 * {@code ECC Errors/Volatile} (or {@code Aggregate}) whose name says uncorrectable: the names
 * changed across drivers ({@code Double Bit/Total} up to R450, {@code DRAM Uncorrectable} and
 * {@code SRAM Uncorrectable} after, split into {@code Parity}/{@code SEC-DED} on R570+).
 */
final class NvidiaSmiQuery {
    static final List<String> COMMAND = List.of("nvidia-smi", "-q");

    private NvidiaSmiQuery() {
    }

    /** One GPU's block of the report: its bus id and its leaves by path. */
    record Block(String busId, Map<String, String> leaves) {
        Block {
            leaves = Map.copyOf(leaves);
        }

        /** The leaf's value normalised by {@link GpuInfo#value}; {@link GpuInfo#UNAVAILABLE} when absent. */
        String value(String path) {
            return GpuInfo.value(leaves.getOrDefault(path, ""));
        }
    }

    static List<GpuInfo> parse(String output) {
        String driver = driverVersion(output);
        List<GpuInfo> gpus = new ArrayList<>();
        for (Block b : blocks(output)) {
            gpus.add(gpu(gpus.size(), b.busId(), driver, b.leaves()));
        }
        return gpus;
    }

    /** The report's header {@code Driver Version}, {@link GpuInfo#UNAVAILABLE} when absent. */
    static String driverVersion(String output) {
        for (String line : output.lines().toList()) {
            String text = line.strip();
            if (text.startsWith("GPU ")) {
                break;
            }
            int colon = text.indexOf(" : ");
            if (colon >= 0 && text.substring(0, colon).strip().equals("Driver Version")) {
                return text.substring(colon + 3).strip();
            }
        }
        return GpuInfo.UNAVAILABLE;
    }

    /** The per-GPU blocks in report order, leaves keyed by path ({@code PCI/GPU Link Info/Link Width/Max}). */
    static List<Block> blocks(String output) {
        List<Block> blocks = new ArrayList<>();
        String busId = null;
        Map<String, String> leaves = new LinkedHashMap<>();
        List<String> path = new ArrayList<>();
        for (String line : output.lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            int indent = line.length() - line.stripLeading().length();
            String text = line.strip();
            if (indent == 0 && text.startsWith("GPU ") && !text.contains(":  ") && !text.contains(" : ")) {
                if (busId != null) {
                    blocks.add(new Block(busId, leaves));
                }
                busId = text.substring(4).strip();
                leaves = new LinkedHashMap<>();
                path.clear();
                continue;
            }
            if (busId == null) {
                continue;
            }
            int colon = text.indexOf(" : ");
            String key = (colon >= 0 ? text.substring(0, colon) : text.endsWith(":") ? text.substring(0, text.length() - 1) : text).strip();
            String value = colon >= 0 ? text.substring(colon + 3).strip() : null;
            int level = Math.max(0, indent / 4 - 1);
            while (path.size() > level) {
                path.remove(path.size() - 1);
            }
            if (value == null) {
                path.add(key);
            } else {
                leaves.put(String.join("/", path.isEmpty() ? List.of(key) : append(path, key)), value);
            }
        }
        if (busId != null) {
            blocks.add(new Block(busId, leaves));
        }
        return blocks;
    }

    private static List<String> append(List<String> path, String key) {
        List<String> full = new ArrayList<>(path);
        full.add(key);
        return full;
    }

    private static GpuInfo gpu(int index, String busId, String driver, Map<String, String> leaves) {
        String minor = leaves.getOrDefault("Minor Number", String.valueOf(index));
        return new GpuInfo(GpuInfo.value(minor.matches("\\d+") ? minor : String.valueOf(index)),
                GpuInfo.value(leaves.getOrDefault("Product Name", "")),
                GpuInfo.value(leaves.getOrDefault("GPU UUID", "")),
                GpuInfo.value(driver),
                busId,
                GpuInfo.value(leaves.getOrDefault("ECC Mode/Current", "")),
                uncorrectable(leaves, "ECC Errors/Volatile/"),
                uncorrectable(leaves, "ECC Errors/Aggregate/"),
                retiredPending(leaves),
                GpuInfo.value(leaves.getOrDefault("Remapped Rows/Pending", "")));
    }

    /** Sums the uncorrectable counters under a prefix; N/A when none of them is a number. */
    private static String uncorrectable(Map<String, String> leaves, String prefix) {
        long total = 0;
        boolean any = false;
        for (Map.Entry<String, String> e : leaves.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(prefix)) {
                continue;
            }
            String rest = key.substring(prefix.length()).toLowerCase(Locale.ROOT);
            boolean counts = rest.startsWith("double bit/") ? rest.equals("double bit/total")
                    : rest.contains("uncorrectable") && !rest.contains("threshold");
            Optional<Long> n = GpuInfo.count(GpuInfo.value(e.getValue()));
            if (counts && n.isPresent()) {
                total += n.get();
                any = true;
            }
        }
        return any ? String.valueOf(total) : GpuInfo.UNAVAILABLE;
    }

    private static String retiredPending(Map<String, String> leaves) {
        for (String key : List.of("Retired Pages/Pending Page Blacklist", "Retired Pages/Pending Page Retirement",
                "Retired Pages/Pending")) {
            String v = GpuInfo.value(leaves.getOrDefault(key, ""));
            if (GpuInfo.available(v)) {
                return v;
            }
        }
        return GpuInfo.UNAVAILABLE;
    }
}
