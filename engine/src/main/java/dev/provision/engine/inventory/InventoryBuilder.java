package dev.provision.engine.inventory;

import dev.provision.engine.playbook.YamlDocument;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.spi.Suggestions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/** Collects groups and hosts from inventory files and comma lists before they are merged into hosts. */
final class InventoryBuilder {
    static final String ALL = "all";
    static final String UNGROUPED = "ungrouped";
    private static final List<String> GROUP_KEYS = List.of("hosts", "vars", "children");
    private static final Pattern HOST_WITH_PORT = Pattern.compile("([^:\\[\\]\\s]+):(\\d{1,5})");

    /** A group as written, possibly in several places. */
    static final class GroupDraft {
        final String name;
        final SourcePosition position;
        final Set<String> hosts = new LinkedHashSet<>();
        final Set<String> children = new LinkedHashSet<>();
        final Set<String> parents = new LinkedHashSet<>();
        final Map<String, Object> vars = new LinkedHashMap<>();

        GroupDraft(String name, SourcePosition position) {
            this.name = name;
            this.position = position;
        }
    }

    /** A host as written, possibly in several groups (its vars merge, later wins). */
    static final class HostDraft {
        final String name;
        final SourcePosition position;
        final Map<String, Object> vars = new LinkedHashMap<>();

        HostDraft(String name, SourcePosition position) {
            this.name = name;
            this.position = position;
        }
    }

    final Map<String, GroupDraft> groups = new LinkedHashMap<>();
    final Map<String, HostDraft> hosts = new LinkedHashMap<>();

    InventoryBuilder() {
        groups.put(ALL, new GroupDraft(ALL, SourcePosition.UNKNOWN));
        groups.put(UNGROUPED, new GroupDraft(UNGROUPED, SourcePosition.UNKNOWN));
        link(groups.get(ALL), groups.get(UNGROUPED));
    }

    /** Reads one YAML inventory file: a mapping of top-level groups (usually just {@code all}). */
    void addFile(YamlDocument doc) throws InvalidInputException {
        if (doc.root().isEmpty()) {
            return; // an empty inventory file holds no hosts, as in Ansible
        }
        Node root = doc.root().get();
        if (!(root instanceof MappingNode mapping)) {
            throw doc.error(root, "an inventory must be a mapping of groups ('all:' with 'hosts:'), not "
                    + YamlDocument.describe(root) + " (INI inventories are not supported; write YAML)");
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            readGroup(doc, e, e.key().equals(ALL) ? null : groups.get(ALL));
        }
    }

    private void readGroup(YamlDocument doc, YamlDocument.Entry entry, GroupDraft parent) throws InvalidInputException {
        String name = entry.key();
        GroupDraft group = groups.computeIfAbsent(name, n -> new GroupDraft(n, doc.position(entry.keyNode())));
        if (parent != null) {
            if (name.equals(ALL)) {
                throw doc.error(entry.keyNode(), "'all' cannot be a child group; every group is already in 'all'");
            }
            link(parent, group);
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
                case "hosts" -> readHosts(doc, group, e.value());
                case "vars" -> group.vars.putAll(doc.mapping(e.value(), "the 'vars' of group '" + name + "'"));
                case "children" -> readChildren(doc, group, e.value());
                default -> throw doc.error(e.keyNode(), "unknown key '" + e.key() + "' in group '" + name + "'"
                        + Suggestions.closest(e.key(), GROUP_KEYS).map(s -> " (did you mean '" + s + "'?)").orElse("")
                        + "; a group holds only hosts, vars and children");
            }
        }
    }

    private void readHosts(YamlDocument doc, GroupDraft group, Node node) throws InvalidInputException {
        if (YamlDocument.isNull(node)) {
            return;
        }
        if (!(node instanceof MappingNode mapping)) {
            String hint = node instanceof SequenceNode ? " (write each host as 'node1:' on its own line)" : "";
            throw doc.error(node, "'hosts' of group '" + group.name + "' must be a mapping of host names, not "
                    + YamlDocument.describe(node) + hint);
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            List<String> names;
            try {
                names = HostRanges.expand(e.key());
            } catch (IllegalArgumentException bad) {
                throw doc.error(e.keyNode(), "bad host range '" + e.key() + "': " + bad.getMessage());
            }
            Map<String, Object> vars = YamlDocument.isNull(e.value()) ? Map.of()
                    : hostVars(doc, e);
            for (String name : names) {
                HostDraft host = hosts.computeIfAbsent(name, n -> new HostDraft(n, doc.position(e.keyNode())));
                host.vars.putAll(vars);
                group.hosts.add(name);
            }
        }
    }

    private static Map<String, Object> hostVars(YamlDocument doc, YamlDocument.Entry e) throws InvalidInputException {
        if (!(e.value() instanceof MappingNode)) {
            throw doc.error(e.value(), "the vars of host '" + e.key() + "' must be a mapping, not "
                    + YamlDocument.describe(e.value()) + " (write '" + e.key() + ": {ansible_host: ...}')");
        }
        return doc.mapping(e.value(), "host vars");
    }

    private void readChildren(YamlDocument doc, GroupDraft group, Node node) throws InvalidInputException {
        if (YamlDocument.isNull(node)) {
            return;
        }
        if (!(node instanceof MappingNode mapping)) {
            throw doc.error(node, "'children' of group '" + group.name + "' must be a mapping of groups ('gpu:' on its "
                    + "own line), not " + YamlDocument.describe(node));
        }
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            readGroup(doc, e, group);
        }
    }

    /** Adds the hosts of a comma list ({@code node1,node2:2222,}); each lands in {@code ungrouped}. */
    void addCommaList(String list) throws InvalidInputException {
        SourcePosition where = SourcePosition.UNKNOWN;
        for (String item : list.split(",")) {
            String name = item.trim();
            if (name.isEmpty()) {
                continue;
            }
            HostDraft host;
            var withPort = HOST_WITH_PORT.matcher(name);
            if (withPort.matches()) {
                host = hosts.computeIfAbsent(withPort.group(1), n -> new HostDraft(n, where));
                host.vars.put("ansible_port", Integer.parseInt(withPort.group(2)));
            } else if (name.chars().anyMatch(Character::isWhitespace) || name.contains("[")) {
                throw new InvalidInputException(where, "bad host name '" + name + "' in inventory list '" + list
                        + "'; separate names with commas only");
            } else {
                host = hosts.computeIfAbsent(name, n -> new HostDraft(n, where));
            }
            groups.get(ALL).hosts.add(host.name);
        }
    }

    private static void link(GroupDraft parent, GroupDraft child) {
        parent.children.add(child.name);
        child.parents.add(parent.name);
    }

    /** Checks what can only be checked once every source is read. */
    void validate() throws InvalidInputException {
        for (HostDraft host : hosts.values()) {
            GroupDraft group = groups.get(host.name);
            if (group != null) {
                throw new InvalidInputException(host.position, "'" + host.name + "' is both a host and a group"
                        + (group.position.file().isEmpty() ? "" : " (group at " + group.position + ")")
                        + "; rename one of them");
            }
        }
        Set<String> acyclic = new java.util.HashSet<>();
        for (GroupDraft group : groups.values()) {
            checkNoCycle(group, new ArrayList<>(), acyclic);
        }
    }

    private void checkNoCycle(GroupDraft group, List<String> path, Set<String> acyclic) throws InvalidInputException {
        if (acyclic.contains(group.name)) {
            return;
        }
        if (path.contains(group.name)) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(group.name), path.size()));
            cycle.add(group.name);
            GroupDraft start = groups.get(cycle.getFirst());
            throw new InvalidInputException(start.position, "group '" + start.name + "' is its own child ("
                    + String.join(" -> ", cycle) + "); remove one of these 'children' entries");
        }
        path.add(group.name);
        for (String child : group.children) {
            checkNoCycle(groups.get(child), path, acyclic);
        }
        path.removeLast();
        acyclic.add(group.name);
    }
}
