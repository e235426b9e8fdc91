package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.modules.text.ShellWords;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;

/**
 * A variables file, named by a play's {@code vars_files} or read by {@code include_vars}: one YAML (or
 * JSON) mapping. Its name may be any path ({@code include_vars: /etc/shadow}), so an error about it says
 * where (file:line:column) and what was expected, never what the file holds
 * ({@link YamlDocument#readWithoutQuoting}).
 */
public final class VarsFile {
    /** Which keys the file may set. */
    public enum Keys {
        /** Any key, as {@code vars_files} takes them in Ansible. */
        ANY,
        /** Variable names (letters, digits and {@code _}, not starting with a digit): {@code include_vars} sets facts. */
        VARIABLE_NAMES
    }

    private VarsFile() {
    }

    /** The file's variables in written order; none for an empty file. */
    public static Map<String, Object> read(Path file, Keys keys) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(keys, "keys cannot be null");
        YamlDocument doc = YamlDocument.readWithoutQuoting(file, "vars");
        if (doc.root().isEmpty()) {
            return new LinkedHashMap<>();
        }
        Node root = doc.root().get();
        Map<String, Object> vars = doc.mapping(root, "a vars file");
        if (keys == Keys.VARIABLE_NAMES && root instanceof MappingNode mapping) {
            for (YamlDocument.Entry e : doc.entries(mapping)) {
                if (!ShellWords.isName(e.key())) {
                    throw doc.error(e.keyNode(), "this key is not a variable name (letters, digits and '_', not starting"
                            + " with a digit); a vars file for include_vars sets variables");
                }
            }
        }
        return vars;
    }
}
