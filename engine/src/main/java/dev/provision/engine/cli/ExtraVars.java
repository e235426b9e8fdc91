package dev.provision.engine.cli;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/** {@code -e}: {@code key=value ...}, inline YAML/JSON ({@code {"a": 1}}), or {@code @file.yml}. */
final class ExtraVars {
    private ExtraVars() {
    }

    static Map<String, Object> parse(Iterable<String> values) throws InvalidInputException {
        Map<String, Object> vars = new LinkedHashMap<>();
        for (String v : values) {
            vars.putAll(parseOne(v));
        }
        return vars;
    }

    private static Map<String, Object> parseOne(String value) throws InvalidInputException {
        String v = value.strip();
        if (v.startsWith("@")) {
            Path file = Path.of(v.substring(1));
            try {
                return yamlMapping(Files.readString(file), file.toString());
            } catch (IOException e) {
                throw new InvalidInputException(new SourcePosition(file.toString(), 0, 0), "cannot read extra-vars file: " + e.getMessage());
            }
        }
        if (v.startsWith("{")) {
            return yamlMapping(v, "");
        }
        Map<String, Object> vars = new LinkedHashMap<>();
        for (String pair : dev.provision.modules.text.ShellWords.split(v)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new InvalidInputException(SourcePosition.UNKNOWN, "-e '" + pair + "': expected key=value, inline YAML/JSON, or @file");
            }
            vars.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return vars;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yamlMapping(String text, String file) throws InvalidInputException {
        try {
            Object doc = new Yaml(new LoaderOptions()).load(text);
            if (doc == null) {
                return Map.of();
            }
            if (!(doc instanceof Map<?, ?>)) {
                throw new InvalidInputException(new SourcePosition(file, 0, 0), "extra vars must be a mapping of names to values");
            }
            return (Map<String, Object>) doc;
        } catch (MarkedYAMLException e) {
            var m = e.getProblemMark();
            throw new InvalidInputException(new SourcePosition(file.isEmpty() ? "-e" : file, m.getLine() + 1, m.getColumn() + 1),
                    "malformed extra vars: " + e.getProblem());
        } catch (YAMLException e) {
            throw new InvalidInputException(new SourcePosition(file.isEmpty() ? "-e" : file, 0, 0), "malformed extra vars: " + e.getMessage());
        }
    }
}
