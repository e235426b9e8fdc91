package dev.provision.modules.checks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.modules.spi.ModuleException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Each node's figures at acceptance, read from the {@code --json} report of that run: the
 * {@code gpu_acceptance} result of every host, per GPU index and figure ({@code gemm_tflops},
 * {@code hbm_gbps}, ...). A later run compares each GPU with its own earlier self: the slow decay
 * no fleet median catches when every node ages alike. The last acceptance result of a host counts.
 */
record AcceptanceBaseline(Path file, Map<String, Map<Long, Map<String, Double>>> figuresByHost) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static AcceptanceBaseline read(Path file) throws ModuleException {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new ModuleException("baseline " + file + " is not a provision --json report: " + e.getMessage(), e);
        }
        Map<String, Map<Long, Map<String, Double>>> byHost = new HashMap<>();
        for (JsonNode play : root.path("plays")) {
            for (JsonNode task : play.path("tasks")) {
                for (JsonNode result : task.path("results")) {
                    JsonNode gpus = result.path("output").path("gpus");
                    if (!gpus.isArray() || !isAcceptance(result.path("output"))) {
                        continue;
                    }
                    Map<Long, Map<String, Double>> perGpu = new HashMap<>();
                    for (JsonNode gpu : gpus) {
                        Map<String, Double> figures = new HashMap<>();
                        gpu.fields().forEachRemaining(e -> {
                            if (!e.getKey().equals("gpu") && e.getValue().isNumber()) {
                                figures.put(e.getKey(), e.getValue().asDouble());
                            }
                        });
                        perGpu.put(gpu.path("gpu").asLong(), figures);
                    }
                    byHost.put(result.path("host").asText(), perGpu);
                }
            }
        }
        if (byHost.isEmpty()) {
            throw new ModuleException("baseline " + file + " holds no gpu_acceptance figures: give the --json report of a run"
                    + " of preflight.yml that made the GPUs work");
        }
        return new AcceptanceBaseline(file, byHost);
    }

    private static boolean isAcceptance(JsonNode output) {
        for (JsonNode row : output.path("checks")) {
            if (row.path("check").asText().startsWith("gpu_acceptance.")) {
                return true;
            }
        }
        return false;
    }

    /** The figure GPU {@code gpu} of {@code host} had at acceptance; empty when the baseline has none. */
    Optional<Double> figure(String host, long gpu, String key) {
        return Optional.ofNullable(figuresByHost.getOrDefault(host, Map.of()).getOrDefault(gpu, Map.of()).get(key));
    }

    boolean knows(String host) {
        return figuresByHost.containsKey(host);
    }
}
