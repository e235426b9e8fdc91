package dev.provision.engine.inventory;

import dev.provision.engine.inventory.InventoryBuilder.GroupDraft;
import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.modules.spi.Suggestions;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads Ansible's YAML inventory: a mapping of top-level groups (usually just {@code all}), each with
 * {@code hosts} (names or ranges, optionally {@code :PORT}, each with its vars), {@code vars} and
 * {@code children} (groups, nested the same way).
 */
final class YamlInventory {
    private static final List<String> GROUP_KEYS = List.of("hosts", "vars", "children");

    private final YamlDocument doc;
    private final InventoryBuilder builder;

    private YamlInventory(YamlDocument doc, InventoryBuilder builder) {
        this.doc = doc;
        this.builder = builder;
    }

    /** Reads one file into the builder. */
    static void read(YamlDocument doc, InventoryBuilder builder) throws InvalidInputException {
        if (doc.root().isEmpty()) {
            return; // an empty inventory file holds no hosts, as in Ansible
        }
        Node root = doc.root().get();
        if (!(root instanceof MappingNode mapping)) {
            throw doc.error(root, "an inventory must be a mapping of groups ('all:' with 'hosts:'), not "
                    + YamlDocument.describe(root));
        }
        YamlInventory reader = new YamlInventory(doc, builder);
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            reader.readGroup(e, e.key().equals(InventoryBuilder.ALL) ? null : builder.groups.get(InventoryBuilder.ALL));
        }
    }

    /**
     * Converts a vars mapping, refusing an {@code ansible_host} or {@code ansible_user} that is not
     * safe for ssh, or a sudo password of two lines ({@link HostNames#checkVariable}), at its position.
     */
    static Map<String, Object> vars(YamlDocument doc, Node node, String what) throws InvalidInputException {
        Map<String, Object> vars = doc.mapping(node, what);
        if (node instanceof MappingNode mapping) {
            for (YamlDocument.Entry e : doc.entries(mapping)) {
                try {
                    HostNames.checkVariable(e.key(), vars.get(e.key()));
                } catch (IllegalArgumentException bad) {
                    throw doc.error(e.value(), bad.getMessage());
                }
            }
        }
        return vars;
    }

    private void readGroup(YamlDocument.Entry entry, GroupDraft parent) throws InvalidInputException {
        String name = entry.key();
        GroupDraft group = builder.group(name, doc.position(entry.keyNode()));
        if (parent != null) {
            builder.addChild(parent, group, doc.position(entry.keyNode()));
        }
        Node value = entry.value();
        if (YamlDocument.isNull(value)) {
            return;
        }
        if (!(value instanceof MappingNode mapping)) {
            throw doc.error(value, "group '" + name + "' must be a mapping with 'hosts', 'vars' or 'children', not "
                    + YamlDocument.describe(value));
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            switch (e.key()) {
                case "hosts" -> readHosts(group, e.value());
                case "vars" -> group.vars.putAll(vars(doc, e.value(), "the 'vars' of group '" + name + "'"));
                case "children" -> readChildren(group, e.value());
                default -> throw doc.error(e.keyNode(), "unknown key '" + e.key() + "' in group '" + name + "'"
                        + Suggestions.closest(e.key(), GROUP_KEYS).map(s -> " (did you mean '" + s + "'?)").orElse("")
                        + "; a group holds only hosts, vars and children");
            }
        }
    }

    private void readHosts(GroupDraft group, Node node) throws InvalidInputException {
        if (YamlDocument.isNull(node)) {
            return;
        }
        if (!(node instanceof MappingNode mapping)) {
            String hint = node instanceof SequenceNode ? " (write each host as 'node1:' on its own line)" : "";
            throw doc.error(node, "'hosts' of group '" + group.name + "' must be a mapping of host names, not "
                    + YamlDocument.describe(node) + hint);
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            HostPattern pattern;
            try {
                pattern = HostPattern.parse(e.key());
            } catch (IllegalArgumentException bad) {
                throw doc.error(e.keyNode(), "bad host range '" + e.key() + "': " + bad.getMessage());
            }
            Map<String, Object> vars = YamlDocument.isNull(e.value()) ? Map.of() : hostVars(e);
            for (String name : pattern.names()) {
                try {
                    HostNames.check(isNullKey(e.keyNode()) ? null : name);
                } catch (IllegalArgumentException bad) {
                    throw doc.error(e.keyNode(), bad.getMessage());
                }
                builder.addHost(group, name, doc.position(e.keyNode()), vars, pattern.port());
            }
        }
    }

    private static boolean isNullKey(Node key) {
        return key instanceof ScalarNode && YamlDocument.isNull(key);
    }

    private Map<String, Object> hostVars(YamlDocument.Entry e) throws InvalidInputException {
        if (!(e.value() instanceof MappingNode)) {
            throw doc.error(e.value(), "the vars of host '" + e.key() + "' must be a mapping, not "
                    + YamlDocument.describe(e.value()) + " (write '" + e.key() + ": {ansible_host: ...}')");
        }
        return vars(doc, e.value(), "host vars");
    }

    private void readChildren(GroupDraft group, Node node) throws InvalidInputException {
        if (YamlDocument.isNull(node)) {
            return;
        }
        if (!(node instanceof MappingNode mapping)) {
            throw doc.error(node, "'children' of group '" + group.name + "' must be a mapping of groups ('gpu:' on its "
                    + "own line), not " + YamlDocument.describe(node));
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            readGroup(e, group);
        }
    }
}
