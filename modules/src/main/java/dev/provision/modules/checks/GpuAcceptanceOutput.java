package dev.provision.modules.checks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parses what {@code gpu_acceptance.py} prints: one {@code key=value} line per GPU,
 * <pre>
 * gpu=0 name=NVIDIA_H200 gemm_tflops=658.2 hbm_gbps=4070.9 h2d_gbps=53.89 d2h_gbps=54.89 checksum=... cpu_checksum=... burn_runs=16042 burn_mismatches=0
 * gpu=1 error=CUDA error: ...
 * </pre>
 * Other lines (comments, warnings a library prints) are ignored.
 */
record GpuAcceptanceOutput(List<Gpu> gpus) {
    /** One GPU's figures, or why it gave none. */
    record Gpu(int index, String name, Map<String, Double> figures, Optional<String> error) {
        Gpu {
            figures = Map.copyOf(figures);
        }

        double figure(String key) {
            return figures.getOrDefault(key, Double.NaN);
        }

        /** Whether every answer it gave was right: the CPU's checksum, and the same one on every burn run. */
        boolean correct() {
            return figure("checksum") == figure("cpu_checksum") && figure("burn_mismatches") == 0;
        }
    }

    GpuAcceptanceOutput {
        gpus = List.copyOf(gpus);
    }

    static GpuAcceptanceOutput parse(String output) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : output.lines().map(String::strip).toList()) {
            if (!line.startsWith("gpu=")) {
                continue;
            }
            Map<String, String> fields = new LinkedHashMap<>();
            String error = null;
            int at = line.indexOf(" error=");
            if (at >= 0) {
                error = line.substring(at + " error=".length());
                line = line.substring(0, at);
            }
            for (String word : line.split("\\s+")) {
                int eq = word.indexOf('=');
                if (eq > 0) {
                    fields.put(word.substring(0, eq), word.substring(eq + 1));
                }
            }
            int index;
            try {
                index = Integer.parseInt(fields.get("gpu"));
            } catch (NumberFormatException e) {
                continue;
            }
            Map<String, Double> figures = new LinkedHashMap<>();
            fields.forEach((k, v) -> {
                if (!k.equals("gpu") && !k.equals("name")) {
                    try {
                        figures.put(k, Double.parseDouble(v));
                    } catch (NumberFormatException ignored) {
                        // a field this parser does not know the shape of: not a figure
                    }
                }
            });
            gpus.add(new Gpu(index, fields.getOrDefault("name", "").replace('_', ' '), figures, Optional.ofNullable(error)));
        }
        return new GpuAcceptanceOutput(gpus);
    }
}
