package dev.provision.engine.inventory;

import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads a {@code group_vars/} or {@code host_vars/} directory: for each name, {@code NAME.yml},
 * {@code NAME.yaml}, {@code NAME.json} or {@code NAME} (all YAML), or a directory {@code NAME/} whose
 * files are merged in name order. Hidden files and editor backups ({@code ~}) are skipped.
 */
final class VarsDirectory {
    private static final List<String> EXTENSIONS = List.of(".yml", ".yaml", ".json");

    private VarsDirectory() {
    }

    /** Name → merged vars; empty when the directory does not exist. */
    static Map<String, Map<String, Object>> read(Path dir) throws InvalidInputException {
        Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
        if (!Files.isDirectory(dir)) {
            return byName;
        }
        for (Path entry : list(dir)) {
            String fileName = entry.getFileName().toString();
            if (Files.isDirectory(entry)) {
                Map<String, Object> merged = byName.computeIfAbsent(fileName, k -> new LinkedHashMap<>());
                for (Path inner : list(entry)) {
                    if (Files.isRegularFile(inner) && usable(inner.getFileName().toString())) {
                        merged.putAll(readFile(inner));
                    }
                }
            } else if (Files.isRegularFile(entry) && usable(fileName)) {
                byName.computeIfAbsent(stripExtension(fileName), k -> new LinkedHashMap<>()).putAll(readFile(entry));
            }
        }
        return byName;
    }

    private static boolean usable(String fileName) {
        return !fileName.startsWith(".") && !fileName.endsWith("~");
    }

    private static String stripExtension(String fileName) {
        for (String extension : EXTENSIONS) {
            if (fileName.endsWith(extension) && fileName.length() > extension.length()) {
                return fileName.substring(0, fileName.length() - extension.length());
            }
        }
        return fileName; // host_vars/node1.example.com: the dots belong to the name
    }

    private static Map<String, Object> readFile(Path file) throws InvalidInputException {
        YamlDocument doc = YamlDocument.read(file, "vars");
        return doc.root().isPresent() ? YamlInventory.vars(doc, doc.root().get(), "a vars file") : new LinkedHashMap<>();
    }

    private static List<Path> list(Path dir) throws InvalidInputException {
        try (Stream<Path> entries = Files.list(dir)) {
            return new ArrayList<>(entries.sorted().toList());
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "cannot list directory: " + e.getMessage());
        }
    }
}
