package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code dcgmi diag -r LEVEL -j} printed, as DCGM's own JSON says it (NVIDIA/DCGM
 * {@code dcgmi/Diag.cpp}, {@code nvvs/include/NvvsJsonStrings.h}; see docs/gpu-acceptance-sources.md
 * section 4): the tests by category, each with one result per GPU (or per entity) and its status.
 * Both shapes are read: DCGM 3.x under {@code "DCGM GPU Diagnostic"} (results keyed by
 * {@code gpu_id}/{@code gpu_ids}), DCGM 4.x under {@code "DCGM Diagnostic"} (results keyed by
 * {@code entity_group}/{@code entity_id}, a {@code test_summary} per test, the version under
 * {@code metadata}). A run that could not start is {@code {"DCGM Diagnostic": {"runtime_error": ...}}}.
 * Text before the document (a banner, a warning) is skipped. Pure: no I/O.
 */
record DcgmDiagOutput(String version, Optional<String> runtimeError, List<Test> tests) {
    /** DCGM 4.x's top-level key, then 3.x's. */
    static final List<String> ROOT_KEYS = List.of("DCGM Diagnostic", "DCGM GPU Diagnostic");

    DcgmDiagOutput {
        requireNonNull(version, "version cannot be null");
        requireNonNull(runtimeError, "runtimeError cannot be null");
        tests = List.copyOf(tests);
    }

    /** The status words of {@code Diag::HelperDisplayDiagResult}; anything else is {@link #OTHER}. */
    enum Status {
        PASS, WARN, FAIL, SKIP, NOT_RUN, OTHER;

        /** Case-insensitive ({@code Pass}, {@code PASS}, {@code pass}); an unknown word is never read as a pass. */
        static Status of(String word) {
            return switch (word.strip().toLowerCase(Locale.ROOT)) {
                case "pass" -> PASS;
                case "warn", "warning" -> WARN;
                case "fail" -> FAIL;
                case "skip", "skipped" -> SKIP;
                case "not run" -> NOT_RUN;
                default -> OTHER;
            };
        }
    }

    /** One entity's result: its name ({@code GPU 0}, {@code GPUs 0,1}), status, DCGM's warnings (text and error id). */
    record Result(String entity, Status status, String statusWord, List<String> warnings, List<Integer> errorIds) {
        Result {
            requireNonNull(entity, "entity cannot be null");
            requireNonNull(status, "status cannot be null");
            requireNonNull(statusWord, "statusWord cannot be null");
            warnings = List.copyOf(warnings);
            errorIds = List.copyOf(errorIds);
        }
    }

    /**
     * One test ({@code software}, {@code memory}, {@code PCIe}, {@code Targeted Stress}, ...) of a
     * category, its per-entity results and, in 4.x, its summary (status and warnings for all).
     */
    record Test(String category, String name, List<Result> results, Optional<Result> summary) {
        Test {
            requireNonNull(category, "category cannot be null");
            requireNonNull(name, "name cannot be null");
            results = List.copyOf(results);
            requireNonNull(summary, "summary cannot be null");
        }
    }

    /**
     * Reads the document.
     *
     * @throws IllegalArgumentException when the output holds no DCGM diagnostic document
     */
    static DcgmDiagOutput parse(String output) {
        int start = output.indexOf('{');
        int end = output.lastIndexOf('}');
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("no JSON document");
        }
        JsonNode doc;
        try {
            doc = new ObjectMapper().readTree(output.substring(start, end + 1));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
        }
        JsonNode root = ROOT_KEYS.stream().map(doc::path).filter(JsonNode::isObject).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no \"DCGM Diagnostic\" or \"DCGM GPU Diagnostic\" object"));
        String version = root.path("version").asText(doc.path("metadata").path("version").asText(""));
        Optional<String> runtimeError = text(root.path("runtime_error"));
        List<Test> tests = new ArrayList<>();
        for (JsonNode category : root.path("test_categories")) {
            String name = category.path("category").asText("");
            for (JsonNode test : category.path("tests")) {
                if (!test.isObject()) {
                    continue; // DCGM's own sample of real output has nulls between tests
                }
                List<Result> results = new ArrayList<>();
                for (JsonNode r : test.path("results")) {
                    if (r.isObject()) {
                        results.add(result(entity(r), r));
                    }
                }
                JsonNode summary = test.path("test_summary");
                tests.add(new Test(name, test.path("name").asText(""), results,
                        summary.isObject() && summary.has("status") ? Optional.of(result("all", summary)) : Optional.empty()));
            }
        }
        if (tests.isEmpty() && runtimeError.isEmpty()) {
            throw new IllegalArgumentException("a diagnostic document with no tests");
        }
        return new DcgmDiagOutput(version, runtimeError, tests);
    }

    private static Result result(String entity, JsonNode r) {
        String word = r.path("status").asText("");
        List<String> warnings = new ArrayList<>();
        List<Integer> ids = new ArrayList<>();
        JsonNode list = r.path("warnings");
        if (list.isTextual()) {
            warnings.add(oneLine(list.asText()));
        }
        for (JsonNode w : list) {
            if (w.isTextual()) {
                warnings.add(oneLine(w.asText()));
            } else if (w.isObject()) {
                text(w.path("warning")).map(DcgmDiagOutput::oneLine).ifPresent(warnings::add);
                if (w.path("error_id").isInt()) {
                    ids.add(w.path("error_id").asInt());
                }
            }
        }
        return new Result(entity, Status.of(word), word, warnings, ids);
    }

    /** {@code GPU 0} (4.x entity, 3.x {@code gpu_id}), {@code GPUs 0,1,2} (3.x {@code gpu_ids}), else {@code CPU 0}, ... */
    private static String entity(JsonNode r) {
        if (r.has("entity_id")) {
            String group = r.path("entity_group").asText("GPU");
            return group + " " + r.path("entity_id").asText();
        }
        JsonNode ids = r.has("gpu_id") ? r.path("gpu_id") : r.path("gpu_ids");
        String shown = ids.asText("").strip();
        if (shown.isEmpty()) {
            return "all";
        }
        return (shown.contains(",") ? "GPUs " : "GPU ") + shown;
    }

    private static Optional<String> text(JsonNode node) {
        return node.isValueNode() && !node.asText("").isBlank() ? Optional.of(node.asText()) : Optional.empty();
    }

    /** DCGM's messages may hold line breaks and tabs; a row's detail is one line. */
    static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }
}
