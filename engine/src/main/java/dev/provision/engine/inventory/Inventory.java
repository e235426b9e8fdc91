package dev.provision.engine.inventory;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The hosts and groups a run may target, loaded from Ansible inventories (YAML or INI), with every
 * host's variables already merged.
 *
 * <h2>Sources</h2>
 * Each source given to {@link #load} is one of: an inventory file, YAML or INI (told apart by its
 * content, not its name; see {@link YamlInventory} and {@link IniInventory}); a directory, whose
 * files, in its subdirectories too, are inventory files, in name order, except what Ansible skips
 * there (hidden files, {@code group_vars/}, {@code host_vars/}, the extensions {@code .ini},
 * {@code .cfg}, {@code .orig}, {@code .retry}, {@code .md}, {@code .txt}, {@code .rst}, {@code .bak},
 * {@code .swp}, {@code .pyc}, {@code .pyo}, {@code .rpm}, {@code ~}) and what is plainly no inventory
 * (keys, files that do not parse): see {@link InventoryDirectory} and {@link #skippedFiles()}; or a
 * comma list of host names ({@code node1,node2} or {@code node1,}; {@code host:port} sets
 * {@code ansible_port}), recognised as a string that holds a comma and is not an existing path. No
 * source at all means an inventory of just {@code localhost}. A directory that names no host is an
 * error (Ansible only warns).
 *
 * <h2>Host names</h2>
 * A host name is a DNS name, an IP address, or an alias (letters, digits, {@code . _ - @ +}) that has
 * {@code ansible_host}; never one that starts with {@code -} or holds blanks or shell
 * metacharacters. {@code ansible_host} must be a DNS name or an IP address, {@code ansible_user} a
 * plain login name. Anything else is refused at its file:line:column before any host is contacted.
 *
 * <h2>Variable precedence ({@link Host#vars()}), lowest first, as in Ansible</h2>
 * <ol>
 *   <li>the group vars written in the inventory files: {@code all}'s, then every other group of the
 *       host, parents before children: ordered by depth (a group's depth is one more than its deepest
 *       parent's; top-level groups and {@code ungrouped} have depth 1), groups of equal depth by
 *       {@code ansible_group_priority} (default 1, higher wins), then by name;</li>
 *   <li>{@code group_vars/all} beside the inventory sources (in source order), then beside the
 *       playbook;</li>
 *   <li>{@code group_vars/GROUP} for the host's other groups, in the same order, beside the inventory
 *       sources, then beside the playbook;</li>
 *   <li>the host's own vars in the inventory files, then {@code host_vars/} beside the inventory
 *       sources, then beside the playbook.</li>
 * </ol>
 * So a {@code group_vars/} file wins over every group var written in an inventory file. Merging
 * replaces whole top-level values (no deep merge of mappings). Then the loader adds {@code inventory_hostname},
 * {@code inventory_hostname_short}, {@code group_names} (sorted, without {@code all}) and, for a host
 * named {@code localhost} that sets no {@code ansible_connection}, {@code ansible_connection: local}.
 *
 * <h2>Implicit localhost</h2>
 * As in Ansible, when {@code localhost} is not in the inventory it can still be named (in a pattern,
 * in {@code delegate_to}): {@link #host} and {@link #select} then give a host with the {@code all}
 * vars, its {@code host_vars/localhost} and {@code ansible_connection: local}, member of no group
 * (so {@code all} does not include it).
 *
 * <p>Immutable and thread-safe.
 */
public final class Inventory {
    private static final String LOCALHOST = "localhost";
    private static final String PRIORITY = "ansible_group_priority";

    private final List<Host> hosts;
    private final Map<String, Host> byName;
    private final Map<String, List<String>> groups;
    private final Optional<Host> implicitLocalhost;
    private final List<String> skippedFiles;

    private Inventory(List<Host> hosts, Map<String, List<String>> groups, Optional<Host> implicitLocalhost,
                      List<String> skippedFiles) {
        this.hosts = List.copyOf(hosts);
        Map<String, Host> index = new LinkedHashMap<>();
        hosts.forEach(h -> index.put(h.name(), h));
        this.byName = java.util.Collections.unmodifiableMap(index);
        Map<String, List<String>> copy = new LinkedHashMap<>();
        groups.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.groups = java.util.Collections.unmodifiableMap(copy);
        this.implicitLocalhost = implicitLocalhost;
        this.skippedFiles = List.copyOf(skippedFiles);
    }

    /**
     * Loads and merges the given sources.
     *
     * @param sources inventory files, directories or comma lists, as the user gave them
     * @param playbookDirectory where the playbook lives: its {@code group_vars/} and {@code host_vars/}
     *     apply too (and win)
     * @throws InvalidInputException a malformed file (at its file:line:column), a missing source, a
     *     directory without hosts, a bad host range, an invalid host name, {@code ansible_host} or
     *     {@code ansible_user}, a name used for both a host and a group, a group that contains itself
     */
    public static Inventory load(List<String> sources, Path playbookDirectory) throws InvalidInputException {
        requireNonNull(sources, "sources cannot be null");
        requireNonNull(playbookDirectory, "playbookDirectory cannot be null");
        InventoryBuilder builder = new InventoryBuilder();
        Set<Path> varsDirs = new LinkedHashSet<>();
        List<String> skipped = new ArrayList<>();
        if (sources.isEmpty()) {
            builder.addCommaList(LOCALHOST);
        }
        for (String source : sources) {
            Path path = Path.of(source);
            if (Files.isDirectory(path)) {
                skipped.addAll(InventoryDirectory.read(path, builder));
                varsDirs.add(path);
            } else if (Files.isRegularFile(path)) {
                InventoryFiles.read(path, builder);
                Path parent = path.getParent();
                varsDirs.add(parent == null ? Path.of("") : parent);
            } else if (source.contains(",")) {
                builder.addCommaList(source);
            } else {
                throw new InvalidInputException(SourcePosition.UNKNOWN, "inventory '" + source
                        + "' not found; give a YAML or INI file, a directory or a comma list of hosts ('node1,node2')");
            }
        }
        builder.validate();
        VarsLayers inventoryLayer = VarsLayers.read(varsDirs);
        VarsLayers playbookLayer = VarsLayers.read(List.of(playbookDirectory));
        return build(builder, List.of(inventoryLayer, playbookLayer), skipped);
    }

    /** {@code group_vars/} and {@code host_vars/} of one layer (several directories, later wins). */
    private record VarsLayers(Map<String, Map<String, Object>> groupVars, Map<String, Map<String, Object>> hostVars) {
        static VarsLayers read(Iterable<Path> dirs) throws InvalidInputException {
            Map<String, Map<String, Object>> groupVars = new HashMap<>();
            Map<String, Map<String, Object>> hostVars = new HashMap<>();
            for (Path dir : dirs) {
                VarsDirectory.read(dir.resolve("group_vars"))
                        .forEach((k, v) -> groupVars.computeIfAbsent(k, x -> new LinkedHashMap<>()).putAll(v));
                VarsDirectory.read(dir.resolve("host_vars"))
                        .forEach((k, v) -> hostVars.computeIfAbsent(k, x -> new LinkedHashMap<>()).putAll(v));
            }
            return new VarsLayers(groupVars, hostVars);
        }
    }

    private static Inventory build(InventoryBuilder builder, List<VarsLayers> layers, List<String> skipped)
            throws InvalidInputException {
        Map<String, InventoryBuilder.GroupDraft> groups = builder.groups;
        // 'ungrouped' holds exactly the hosts in no other group but 'all', as in Ansible (an INI file's
        // first hosts go there before the file puts them in a group too)
        Set<String> grouped = new LinkedHashSet<>();
        groups.values().stream().filter(g -> !g.name.equals(InventoryBuilder.ALL) && !g.name.equals(InventoryBuilder.UNGROUPED))
                .forEach(g -> grouped.addAll(g.hosts));
        groups.get(InventoryBuilder.UNGROUPED).hosts.removeAll(grouped);
        for (String host : builder.hosts.keySet()) {
            if (!grouped.contains(host)) {
                groups.get(InventoryBuilder.UNGROUPED).hosts.add(host);
            }
        }
        Map<String, Integer> depth = new HashMap<>();
        groups.keySet().forEach(g -> depthOf(g, groups, depth));
        Map<String, Integer> priority = priorities(groups);
        Comparator<String> parentsFirst = Comparator.<String>comparingInt(depth::get).thenComparingInt(priority::get)
                .thenComparing(Comparator.naturalOrder());

        Map<String, Set<String>> groupsOfHost = new LinkedHashMap<>();
        builder.hosts.keySet().forEach(h -> groupsOfHost.put(h, new java.util.TreeSet<>(parentsFirst)));
        for (InventoryBuilder.GroupDraft group : groups.values()) {
            for (String host : group.hosts) {
                addWithAncestors(groupsOfHost.get(host), group.name, groups);
            }
        }
        List<Host> hosts = new ArrayList<>();
        for (InventoryBuilder.HostDraft draft : builder.hosts.values()) {
            List<String> memberOf = new ArrayList<>(groupsOfHost.get(draft.name));
            Host host = host(draft.name, memberOf, groups, draft.vars, layers);
            checkReachable(host, draft.position);
            hosts.add(host);
        }
        Map<String, List<String>> members = new LinkedHashMap<>();
        for (String group : groups.keySet()) {
            members.put(group, new ArrayList<>());
        }
        for (Host host : hosts) {
            host.groups().forEach(g -> members.get(g).add(host.name()));
        }
        Optional<Host> implicit = builder.hosts.containsKey(LOCALHOST) ? Optional.empty()
                : Optional.of(host(LOCALHOST, List.of(), groups, Map.of(), layers));
        return new Inventory(hosts, members, implicit, skipped);
    }

    /** An alias says nothing about where its host is: {@code ansible_host} must (unless it is local). */
    private static void checkReachable(Host host, SourcePosition position) throws InvalidInputException {
        if (HostNames.check(host.name()) != HostNames.Kind.ALIAS || host.vars().get("ansible_host") != null
                || "local".equals(String.valueOf(host.vars().get("ansible_connection")).toLowerCase(Locale.ROOT))) {
            return;
        }
        throw new InvalidInputException(position, "host '" + host.name() + "' is neither a DNS name nor an IP address,"
                + " so it is an alias, and no ansible_host says where it is; set ansible_host for it (or rename it)");
    }

    private static Host host(String name, List<String> memberOf, Map<String, InventoryBuilder.GroupDraft> groups,
                             Map<String, Object> ownVars, List<VarsLayers> layers) {
        Map<String, Object> vars = new LinkedHashMap<>();
        List<String> varGroups = new ArrayList<>(memberOf);
        varGroups.remove(InventoryBuilder.ALL);
        varGroups.addFirst(InventoryBuilder.ALL); // the implicit localhost is in no group, yet gets all's vars
        // Ansible's order: the inventory files' group vars, then group_vars/all, then group_vars/<group>
        for (String group : varGroups) {
            vars.putAll(groups.get(group).vars);
        }
        layers.forEach(l -> vars.putAll(l.groupVars().getOrDefault(InventoryBuilder.ALL, Map.of())));
        for (VarsLayers layer : layers) {
            for (String group : varGroups.subList(1, varGroups.size())) {
                vars.putAll(layer.groupVars().getOrDefault(group, Map.of()));
            }
        }
        vars.putAll(ownVars);
        layers.forEach(l -> vars.putAll(l.hostVars().getOrDefault(name, Map.of())));
        if (name.equals(LOCALHOST)) {
            vars.putIfAbsent("ansible_connection", "local");
        }
        vars.put("inventory_hostname", name);
        vars.put("inventory_hostname_short", name.contains(".") ? name.substring(0, name.indexOf('.')) : name);
        vars.put("group_names", memberOf.stream().filter(g -> !g.equals(InventoryBuilder.ALL)).sorted().toList());
        return new Host(name, vars, memberOf);
    }

    private static void addWithAncestors(Set<String> into, String group, Map<String, InventoryBuilder.GroupDraft> groups) {
        if (into.add(group)) {
            for (String parent : groups.get(group).parents) {
                addWithAncestors(into, parent, groups);
            }
        }
    }

    /**
     * Each group's {@code ansible_group_priority} (default 1), which orders groups of equal depth
     * before their names do; like Ansible, it is taken out of the group's vars.
     */
    private static Map<String, Integer> priorities(Map<String, InventoryBuilder.GroupDraft> groups)
            throws InvalidInputException {
        Map<String, Integer> priority = new HashMap<>();
        for (InventoryBuilder.GroupDraft group : groups.values()) {
            Object value = group.vars.remove(PRIORITY);
            String text = String.valueOf(value).strip();
            if (value == null) {
                priority.put(group.name, 1);
            } else if (value instanceof Integer || value instanceof String && text.matches("[+-]?\\d{1,9}")) {
                priority.put(group.name, Integer.parseInt(text));
            } else {
                throw new InvalidInputException(group.position, PRIORITY + " of group '" + group.name
                        + "' must be a whole number, not '" + text + "'");
            }
        }
        return priority;
    }

    private static int depthOf(String group, Map<String, InventoryBuilder.GroupDraft> groups, Map<String, Integer> depth) {
        Integer known = depth.get(group);
        if (known != null) {
            return known;
        }
        int d = 0; // 'all'; validate() has ruled out cycles
        for (String parent : groups.get(group).parents) {
            d = Math.max(d, depthOf(parent, groups, depth) + 1);
        }
        depth.put(group, d);
        return d;
    }

    /**
     * This inventory with {@code defaults} under every host's variables (the host's own win): what
     * {@code -u}, {@code -b} and {@code --become-user} mean, as in Ansible, where the inventory's
     * {@code ansible_user} beats {@code -u}.
     *
     * @throws InvalidInputException a default that is not a valid value for its variable (a user starting with '-')
     */
    public Inventory withDefaults(Map<String, Object> defaults) throws InvalidInputException {
        if (defaults.isEmpty()) {
            return this;
        }
        for (Map.Entry<String, Object> d : defaults.entrySet()) {
            try {
                HostNames.checkVariable(d.getKey(), d.getValue());
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException(dev.provision.engine.source.SourcePosition.UNKNOWN, e.getMessage());
            }
        }
        java.util.function.UnaryOperator<Host> under = h -> {
            Map<String, Object> vars = new LinkedHashMap<>(defaults);
            vars.putAll(h.vars());
            return new Host(h.name(), vars, h.groups());
        };
        return new Inventory(hosts.stream().map(under).toList(), groups, implicitLocalhost.map(under), skippedFiles);
    }

    /** Every host, in the order the inventory first names them. */
    public List<Host> hosts() {
        return hosts;
    }

    /** A host by name; the implicit localhost when {@code localhost} is asked for and not listed. */
    public Optional<Host> host(String name) {
        Host host = byName.get(name);
        if (host != null) {
            return Optional.of(host);
        }
        return name.equals(LOCALHOST) ? implicitLocalhost : Optional.empty();
    }

    /**
     * Group name → names of its hosts (direct members and members of its children), in inventory
     * order. Always holds {@code all} and {@code ungrouped}.
     */
    public Map<String, List<String>> groups() {
        return groups;
    }

    /**
     * The hosts an Ansible host pattern names, in inventory order: {@code all} or {@code *}; group and
     * host names; wildcards ({@code node0*}, {@code gpu-?}); a regular expression after {@code ~};
     * several terms joined by {@code :} or {@code ,} where plain terms unite, {@code &term} intersects
     * and {@code !term} excludes (in that order, whatever the order written). A name that matches
     * nothing contributes nothing; the result may be empty, which the caller reports.
     *
     * @throws InvalidInputException an empty pattern, a malformed regular expression, or a bracket
     *     outside one (Ansible's subscripts, {@code gpu[0:3]}, are not supported); without a position,
     *     which the caller gives: a play's {@code hosts:} or the command line
     */
    public List<Host> select(String pattern) throws InvalidInputException {
        return HostPatterns.select(this, pattern);
    }

    /** What {@link #select} would refuse in {@code pattern} whatever the inventory, for checks before one is read. */
    public static void checkPattern(String pattern) throws InvalidInputException {
        HostPatterns.terms(pattern);
    }

    /**
     * The entries of directory sources left out ({@code .ini}, {@code .md}, ... files, keys, files
     * that do not parse, a subdirectory with none of its files an inventory), one line each: the path
     * and why, never the content. Hidden files, {@code group_vars/} and {@code host_vars/} are not
     * listed.
     */
    public List<String> skippedFiles() {
        return skippedFiles;
    }

    Optional<Host> implicitLocalhost() {
        return implicitLocalhost;
    }
}
