package dev.provision.modules.checks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which programs a node has, from one probe: {@link #SCRIPT} prints {@code NAME: PATH} for each
 * program found on PATH and {@code NAME: missing} otherwise (the format of the real capture
 * {@code tools.txt}).
 */
final class ToolPaths {
    /** Read-only: {@code $@} are the program names. */
    static final String SCRIPT = "for t in \"$@\"; do printf '%s: ' \"$t\"; command -v \"$t\" || echo missing; done";

    private ToolPaths() {
    }

    static List<String> command(List<String> tools) {
        List<String> argv = new java.util.ArrayList<>(List.of("sh", "-c", SCRIPT, "sh"));
        argv.addAll(tools);
        return argv;
    }

    /** Name to path; programs reported missing are absent. */
    static Map<String, String> parse(String output) {
        Map<String, String> found = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            int colon = line.indexOf(": ");
            if (colon <= 0) {
                continue;
            }
            String path = line.substring(colon + 2).strip();
            if (path.startsWith("/")) {
                found.put(line.substring(0, colon).strip(), path);
            }
        }
        return found;
    }

    static Optional<String> path(Map<String, String> found, String tool) {
        return Optional.ofNullable(found.get(tool));
    }
}
