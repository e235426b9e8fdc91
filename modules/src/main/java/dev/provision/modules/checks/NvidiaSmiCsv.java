package dev.provision.modules.checks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses {@code nvidia-smi --query-gpu=... --format=csv}: a header of field names (with units in
 * brackets, {@code memory.total [MiB]}; nvidia-smi prints canonical names, so a queried alias such
 * as {@code clocks.sm} comes back as {@code clocks.current.sm}) and one row per GPU, fields joined
 * by {@code ", "}. Fields are found by header name, so any superset or order of {@link #FIELDS}
 * parses; fields not queried are {@link GpuInfo#UNAVAILABLE}. Lines that are not rows (an
 * "Unable to determine the device handle" line for a lost GPU) are ignored here and diagnosed by
 * {@link NvidiaSmiProblem#diagnose}.
 */
final class NvidiaSmiCsv {
    static final List<String> FIELDS = List.of("index", "name", "uuid", "driver_version", "pci.bus_id",
            "ecc.mode.current", "ecc.errors.uncorrected.volatile.total", "ecc.errors.uncorrected.aggregate.total",
            "retired_pages.pending", "remapped_rows.pending");

    /** The probe the {@code gpu} check runs. */
    static final List<String> COMMAND = List.of("nvidia-smi", "--query-gpu=" + String.join(",", FIELDS), "--format=csv");

    private NvidiaSmiCsv() {
    }

    /**
     * @throws IllegalArgumentException when there is no header line naming {@code index} or {@code name}
     */
    static List<GpuInfo> parse(String output) {
        List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        int headerAt = -1;
        for (int i = 0; i < lines.size(); i++) {
            List<String> names = split(lines.get(i)).stream().map(NvidiaSmiCsv::fieldName).toList();
            if (names.contains("index") || names.contains("name")) {
                headerAt = i;
                break;
            }
        }
        if (headerAt < 0) {
            throw new IllegalArgumentException("no CSV header in nvidia-smi output");
        }
        List<String> header = split(lines.get(headerAt)).stream().map(NvidiaSmiCsv::fieldName).toList();
        List<GpuInfo> gpus = new ArrayList<>();
        for (String line : lines.subList(headerAt + 1, lines.size())) {
            List<String> cells = split(line);
            if (cells.size() != header.size()) {
                continue;
            }
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.size(); i++) {
                row.put(header.get(i), GpuInfo.value(cells.get(i)));
            }
            gpus.add(new GpuInfo(get(row, "index"), get(row, "name"), get(row, "uuid"), get(row, "driver_version"),
                    get(row, "pci.bus_id"), get(row, "ecc.mode.current"), get(row, "ecc.errors.uncorrected.volatile.total"),
                    get(row, "ecc.errors.uncorrected.aggregate.total"), get(row, "retired_pages.pending"),
                    get(row, "remapped_rows.pending")));
        }
        return gpus;
    }

    private static String get(Map<String, String> row, String field) {
        return row.getOrDefault(field, GpuInfo.UNAVAILABLE);
    }

    private static List<String> split(String line) {
        return List.of(line.split(",\\s*", -1));
    }

    /** {@code memory.total [MiB]} -> {@code memory.total}. */
    private static String fieldName(String cell) {
        int bracket = cell.indexOf(" [");
        return (bracket >= 0 ? cell.substring(0, bracket) : cell).strip();
    }
}
