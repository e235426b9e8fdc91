package dev.provision.engine.inventory;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Collects groups and hosts as the inventory sources declare them ({@link YamlInventory},
 * {@link IniInventory}, comma lists), before {@link Inventory} merges them into hosts.
 */
final class InventoryBuilder {
    static final String ALL = "all";
    static final String UNGROUPED = "ungrouped";
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
    private int hostMentions;

    InventoryBuilder() {
        groups.put(ALL, new GroupDraft(ALL, SourcePosition.UNKNOWN));
        groups.put(UNGROUPED, new GroupDraft(UNGROUPED, SourcePosition.UNKNOWN));
        link(groups.get(ALL), groups.get(UNGROUPED));
    }

    /**
     * An independent copy of what was read so far, for {@link #restore}: a file that turns out not to
     * be an inventory leaves the builder as it was.
     */
    InventoryBuilder copy() {
        InventoryBuilder copy = new InventoryBuilder();
        copy.groups.clear();
        groups.forEach((name, g) -> {
            GroupDraft d = new GroupDraft(g.name, g.position);
            d.hosts.addAll(g.hosts);
            d.children.addAll(g.children);
            d.parents.addAll(g.parents);
            d.vars.putAll(g.vars);
            copy.groups.put(name, d);
        });
        hosts.forEach((name, h) -> {
            HostDraft d = new HostDraft(h.name, h.position);
            d.vars.putAll(h.vars);
            copy.hosts.put(name, d);
        });
        copy.hostMentions = hostMentions;
        return copy;
    }

    /** Back to what {@code snapshot} (a {@link #copy} of this builder) holds; the snapshot is not to be used again. */
    void restore(InventoryBuilder snapshot) {
        groups.clear();
        groups.putAll(snapshot.groups);
        hosts.clear();
        hosts.putAll(snapshot.hosts);
        hostMentions = snapshot.hostMentions;
    }

    /** The group of this name, declared here when it is new. */
    GroupDraft group(String name, SourcePosition position) {
        return groups.computeIfAbsent(name, n -> new GroupDraft(n, position));
    }

    /**
     * Puts a host into a group; a host already known keeps its first position and merges the vars
     * (later wins).
     *
     * @param port the port written after the name: as in Ansible, it sets {@code ansible_port} only
     *     where the host is first named, and vars given with it win
     */
    void addHost(GroupDraft group, String name, SourcePosition position, Map<String, Object> vars, Optional<Integer> port) {
        HostDraft host = hosts.get(name);
        if (host == null) {
            host = new HostDraft(name, position);
            hosts.put(name, host);
            if (port.isPresent()) {
                host.vars.put("ansible_port", port.get());
            }
        }
        host.vars.putAll(vars);
        group.hosts.add(name);
        hostMentions++;
    }

    /** How many times a source named a host so far: a directory that adds none is a mistake. */
    int hostMentions() {
        return hostMentions;
    }

    /** Makes {@code child} a child group of {@code parent}. */
    void addChild(GroupDraft parent, GroupDraft child, SourcePosition where) throws InvalidInputException {
        if (child.name.equals(ALL)) {
            throw new InvalidInputException(where, "'all' cannot be a child group; every group is already in 'all'");
        }
        if (child.name.equals(UNGROUPED) && !parent.name.equals(ALL)) {
            // Ansible accepts it, then drops those hosts from every group: they are no longer ungrouped
            throw new InvalidInputException(where, "'ungrouped' cannot be a child of '" + parent.name + "': it holds"
                    + " the hosts of no other group; put those hosts in a group of their own");
        }
        link(parent, child);
    }

    /** Adds the hosts of a comma list ({@code node1,node2:2222,}); each lands in {@code ungrouped}. */
    void addCommaList(String list) throws InvalidInputException {
        for (String item : list.split(",")) {
            String written = item.trim();
            if (written.isEmpty()) {
                continue;
            }
            Matcher withPort = HOST_WITH_PORT.matcher(written);
            boolean hasPort = withPort.matches();
            String name = hasPort ? withPort.group(1) : written;
            try {
                HostNames.check(name);
            } catch (IllegalArgumentException bad) {
                throw new InvalidInputException(SourcePosition.UNKNOWN, bad.getMessage() + " (in the inventory list '"
                        + list + "'; separate names with commas only)");
            }
            addHost(groups.get(ALL), name, SourcePosition.UNKNOWN, Map.of(),
                    hasPort ? Optional.of(Integer.parseInt(withPort.group(2))) : Optional.empty());
        }
    }

    private static void link(GroupDraft parent, GroupDraft child) {
        parent.children.add(child.name);
        child.parents.add(parent.name);
    }

    /**
     * Checks what can only be checked once every source is read, then puts every group that has no
     * parent under {@code all} (an INI file never names {@code all} as a parent).
     */
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
        GroupDraft all = groups.get(ALL);
        for (GroupDraft group : groups.values()) {
            if (group != all && group.parents.isEmpty()) {
                link(all, group);
            }
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
