package dev.provision.engine.inventory;

import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Inventory files: which format one is in, judged by its content (Ansible users name INI files
 * {@code hosts}, {@code hosts.ini}, even {@code hosts.yml}), and which files of a directory source are
 * inventories.
 *
 * <p>A file is INI when its first line that is neither blank nor a comment is an INI section header
 * ({@code [gpu]}, {@code [gpu:vars]}) or a host line ({@code node01 ansible_host=10.0.0.1}); it is YAML
 * when that line starts a YAML document, list or flow collection, or is a {@code key:} line. A file
 * with no such line holds no hosts either way.
 */
final class InventoryFiles {
    /** The two formats an inventory file may be written in. */
    enum Format { YAML, INI }

    /**
     * What Ansible skips in a directory source (its {@code INVENTORY_IGNORE_EXTS} default, which does
     * include {@code .ini}, and the names it always skips), with the reason we tell.
     */
    private static final List<String> IGNORED_EXTENSIONS = List.of(".pyc", ".pyo", ".swp", ".bak", "~", ".rpm",
            ".md", ".txt", ".rst", ".orig", ".ini", ".cfg", ".retry");
    private static final Set<String> IGNORED_NAMES = Set.of("group_vars", "host_vars", "vars_plugins");

    private static final Pattern INI_SECTION = Pattern.compile("\\[[^:\\]\\s]+(?::\\w+)?\\]\\s*(?:#.*)?");
    /** An ungrouped host line that starts with an IPv6 address and its port: {@code [fe80::1]:2222 x=1}. */
    private static final Pattern BRACKETED_HOST = Pattern.compile("\\[[^\\]\\s]+\\]:\\d+(?:\\s.*)?");
    private static final Pattern YAML_KEY = Pattern.compile("(?:\"[^\"]*\"|'[^']*'|[^\\s=#'\"][^=#]*?)\\s*:(?:\\s.*)?");

    private InventoryFiles() {
    }

    /** The format of an inventory file's text. */
    static Format format(String text) {
        for (String raw : text.lines().toList()) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (INI_SECTION.matcher(line).matches() || BRACKETED_HOST.matcher(line).matches()
                    || line.startsWith("[") && line.endsWith("]") && !line.contains(",")) {
                return Format.INI; // a malformed header still reads best as INI: its error then says why
            }
            boolean yaml = line.startsWith("---") || line.startsWith("%") || line.startsWith("{") || line.startsWith("[")
                    || line.equals("-") || line.startsWith("- ") || YAML_KEY.matcher(line).matches();
            return yaml ? Format.YAML : Format.INI;
        }
        return Format.YAML;
    }

    /** Reads one inventory file, whichever its format, into the builder. */
    static void read(Path file, InventoryBuilder builder) throws InvalidInputException {
        String text = text(file);
        if (text.startsWith("#!")) {
            throw new InvalidInputException(new SourcePosition(file.toString(), 1, 1), "this file starts with '#!':"
                    + " it is an inventory script, which Ansible would run; provision reads only YAML and INI inventory"
                    + " files");
        }
        switch (format(text)) {
            case YAML -> YamlInventory.read(YamlDocument.parse(file, text), builder);
            case INI -> IniInventory.read(file, text, builder);
        }
    }

    /** Bounded in size, strict UTF-8 with the line, column and byte offset of a bad byte (one reader for every file). */
    private static String text(Path file) throws InvalidInputException {
        return dev.provision.engine.source.TextFiles.read(file, "inventory");
    }

    /**
     * The inventory files of a directory source, as Ansible finds them: every file in it and in its
     * subdirectories, in name order, but for hidden ones, {@code group_vars/}, {@code host_vars/} and
     * the extensions Ansible ignores.
     *
     * @param skipped receives one line per file left out: its path and why
     */
    static List<Path> inDirectory(Path dir, List<String> skipped) throws InvalidInputException {
        List<Path> files = new ArrayList<>();
        collect(dir, files, skipped, new HashSet<>());
        return files;
    }

    private static void collect(Path dir, List<Path> files, List<String> skipped, Set<Path> seen)
            throws InvalidInputException {
        try {
            if (!seen.add(dir.toRealPath())) {
                return; // a symbolic link back up the tree
            }
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "cannot read inventory directory: " + e.getMessage());
        }
        List<Path> entries;
        try (Stream<Path> list = Files.list(dir)) {
            entries = list.sorted().toList();
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "cannot list inventory directory: " + e.getMessage());
        }
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            String reason = ignored(name);
            if (reason != null) {
                if (!name.startsWith(".") && !IGNORED_NAMES.contains(name)) {
                    skipped.add(entry + " (" + reason + ")");
                }
            } else if (Files.isDirectory(entry)) {
                collect(entry, files, skipped, seen);
            } else if (Files.isRegularFile(entry)) {
                files.add(entry);
            }
        }
    }

    /** Why Ansible leaves out a directory entry of this name, or {@code null} when it reads it. */
    private static String ignored(String name) {
        if (name.startsWith(".")) {
            return "hidden";
        }
        if (IGNORED_NAMES.contains(name)) {
            return "variables, not hosts";
        }
        for (String extension : IGNORED_EXTENSIONS) {
            if (name.endsWith(extension)) {
                return "Ansible ignores '" + extension + "' files in an inventory directory; give the file itself"
                        + " with -i to read it";
            }
        }
        return null;
    }
}
