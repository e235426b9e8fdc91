package dev.provision.engine.inventory;

import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Inventory files: which format one is in, judged by its content (Ansible users name INI files
 * {@code hosts}, {@code hosts.ini}, even {@code hosts.yml}); which files of a directory source are
 * inventories is {@link InventoryDirectory}'s to say.
 *
 * <p>A file is INI when its first line that is neither blank nor a comment is an INI section header
 * ({@code [gpu]}, {@code [gpu:vars]}) or a host line ({@code node01 ansible_host=10.0.0.1}); it is YAML
 * when that line starts a YAML document, list or flow collection, or is a {@code key:} line. A file
 * with no such line holds no hosts either way.
 */
final class InventoryFiles {
    /** The two formats an inventory file may be written in. */
    enum Format { YAML, INI }

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
}
