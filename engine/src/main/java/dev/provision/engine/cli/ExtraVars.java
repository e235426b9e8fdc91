package dev.provision.engine.cli;

import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.text.ShellWords;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code -e}: {@code key=value ...}, inline YAML/JSON ({@code {"a": 1}}), or {@code @file.yml}. YAML
 * is read like every other file of the user's ({@link YamlDocument}: YAML 1.1 scalars, the same
 * bounds on size, nesting and aliases, positions in messages).
 */
final class ExtraVars {
    /** Where inline YAML comes from, in messages ({@code -e:1:7: ...}). */
    private static final Path INLINE = Path.of("-e");

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
            return yamlMapping(fileNamed(v.substring(1)));
        }
        if (v.startsWith("{")) {
            return yamlMapping(malformed(() -> YamlDocument.parse(INLINE, v)));
        }
        List<String> pairs;
        try {
            pairs = ShellWords.split(v);
        } catch (IllegalArgumentException e) {
            String problem = e.getMessage().replaceFirst("(?s) in: .*", ""); // the -e value is quoted already
            throw new InvalidInputException(SourcePosition.UNKNOWN, "-e '" + v + "': " + problem
                    + "; quote the value whole, or put the variables in a file and give -e @FILE");
        }
        Map<String, Object> vars = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new InvalidInputException(SourcePosition.UNKNOWN, "-e '" + pair + "': expected key=value, inline YAML/JSON, or @file");
            }
            vars.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return vars;
    }

    private static YamlDocument fileNamed(String name) throws InvalidInputException {
        Path file;
        try {
            file = Path.of(name);
        } catch (InvalidPathException e) {
            throw new InvalidInputException(SourcePosition.UNKNOWN, "-e @" + name + ": not a valid file name");
        }
        return malformed(() -> YamlDocument.read(file, "extra-vars"));
    }

    private static Map<String, Object> yamlMapping(YamlDocument doc) throws InvalidInputException {
        if (doc.root().isEmpty()) {
            return Map.of();
        }
        return malformed(() -> doc.mapping(doc.root().get(), "extra vars"));
    }

    private interface Reading<T> {
        T read() throws InvalidInputException;
    }

    /** Problems inside the YAML say that they are about extra vars, at the same position. */
    private static <T> T malformed(Reading<T> reading) throws InvalidInputException {
        try {
            return reading.read();
        } catch (InvalidInputException e) {
            if (e.position().line() == 0) {
                throw e; // about the file as a whole (missing, too large): already says it is the extra-vars file
            }
            throw new InvalidInputException(e.position(), "malformed extra vars: " + e.problem(), e);
        }
    }
}
