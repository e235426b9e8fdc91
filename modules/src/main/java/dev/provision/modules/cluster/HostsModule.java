package dev.provision.modules.cluster;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.InventoryView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.InsertPosition;
import dev.provision.modules.text.ManagedBlock;
import dev.provision.modules.text.ManagedBlock.Markers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code hosts}: the cluster's names in {@code /etc/hosts}, as a managed block between
 * {@code # BEGIN provision cluster hosts} and {@code # END provision cluster hosts}; the
 * administrator's lines outside it stay as they are, with one exception (below).
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code entries}: a list of {@code {address: 10.0.0.1, names: [node01, node01.cluster]}}.
 *   <li>{@code group}: an inventory group whose every host becomes an entry, whether or not it is
 *       in this run (a run limited to one node still writes all of them). The address is the host's
 *       {@code ansible_host} when that is an IP address, else the {@code default_ipv4} of its facts;
 *       the names are its inventory name followed by its {@code host_aliases} list, if any.
 *       Entries from the group come first, then {@code entries}.
 *   <li>{@code state}: {@code present} (default) or {@code absent} (the block is removed).
 *   <li>{@code path} (default {@code /etc/hosts}).
 * </ul>
 * A name may map to one address only; an address that is not an IP literal fails the task.
 *
 * <p>The Debian trap: the installer maps the host's own name to {@code 127.0.1.1}, and since the
 * first match wins, {@code node01} would resolve to loopback on node01 and services would listen
 * there. Names that the block maps to other addresses are removed from loopback lines
 * ({@code 127.0.0.0/8}) outside the block (a line left without names is removed), and the change
 * summary says so. The diff shows the whole file.
 */
public final class HostsModule implements TaskModule {
    static final Markers MARKERS = Markers.of("# {mark} provision cluster hosts", "BEGIN", "END");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*(%[A-Za-z0-9_.-]+)?");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("entries", Type.LIST)
            .optional("group", Type.STRING)
            .choice("state", "present", "present", "absent")
            .withDefault("path", Type.STRING, "/etc/hosts")
            .build();

    /** One line of the block. */
    record HostEntry(String address, List<String> names) {
        HostEntry {
            names = List.copyOf(names);
        }

        String line() {
            return address + " " + String.join(" ", names);
        }
    }

    /** The block's entries, each name's address, and the block's text. */
    private record Block(List<HostEntry> entries, Map<String, String> addressOf, String text) {
    }

    public HostsModule() {
    }

    @Override
    public String name() {
        return "hosts";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String path = params.string("path");
        if (!path.startsWith("/")) {
            throw new ModuleException("path must be an absolute path, got '" + path + "'");
        }
        boolean present = params.string("state").equals("present");
        Optional<String> group = params.has("group") ? Optional.of(params.string("group")) : Optional.empty();
        List<Object> listed = params.list("entries");
        // The same on every host: the group's members are read through hostvars, never this host.
        Block cluster = context.sharedByAllHosts(List.of("hosts", group, listed), () -> {
            List<HostEntry> all = new ArrayList<>();
            if (group.isPresent()) {
                all.addAll(fromGroup(group.get(), context.inventory()));
            }
            all.addAll(fromList(listed));
            return new Block(List.copyOf(all), addressByName(all), block(all));
        });
        List<HostEntry> entries = cluster.entries();
        if (present && entries.isEmpty()) {
            throw new ModuleException("no entries: give entries, or a group with hosts in it");
        }
        Map<String, String> addressOf = cluster.addressOf();
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), path);
        if (existing.isEmpty()) {
            if (!present) {
                return Plan.converged(path + " does not exist; no cluster block to remove");
            }
            String created = ManagedBlock.put("", MARKERS, cluster.text(), InsertPosition.END_OF_FILE);
            return FileContentPlanner.create(context.host(), path, created.getBytes(StandardCharsets.UTF_8),
                    new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root")));
        }
        String text = existing.get().text(path);
        if (!present) {
            String removed = ManagedBlock.remove(text, MARKERS);
            return FileContentPlanner.update(path, existing.get(), removed.getBytes(StandardCharsets.UTF_8), Attributes.NONE,
                    "remove the cluster block from " + path, path + " has no cluster block");
        }
        String withBlock = ManagedBlock.put(text, MARKERS, cluster.text(), InsertPosition.END_OF_FILE);
        List<String> untrapped = new ArrayList<>();
        String edited = withoutLoopbackTraps(withBlock, addressOf, untrapped);
        List<String> parts = new ArrayList<>();
        if (!withBlock.equals(text)) { // put gives the very text where the block holds already
            parts.add((ManagedBlock.isPresent(text, MARKERS) ? "update" : "add") + " the cluster block (" + entries.size()
                    + " hosts) in " + path);
        }
        if (!untrapped.isEmpty()) {
            parts.add("remove " + String.join(", ", untrapped) + " from loopback lines (they resolved to this host's loopback,"
                    + " not to the cluster address)");
        }
        return FileContentPlanner.update(path, existing.get(), edited.getBytes(StandardCharsets.UTF_8), Attributes.NONE,
                String.join("; ", parts), path + " has the cluster block (" + entries.size() + " hosts)");
    }

    private static String block(List<HostEntry> entries) {
        StringBuilder sb = new StringBuilder();
        entries.forEach(e -> sb.append(e.line()).append('\n'));
        return sb.toString();
    }

    /**
     * Removes the block's names from loopback lines outside the block; {@code removed} receives
     * {@code name (127.0.1.1)} for each.
     */
    private static String withoutLoopbackTraps(String text, Map<String, String> addressOf, List<String> removed) {
        if (!mayTrap(text, addressOf)) {
            return text; // the usual case, found without splitting the block's thousand lines
        }
        List<String> out = new ArrayList<>();
        boolean inBlock = false;
        boolean changed = false;
        for (String line : text.lines().toList()) {
            String stripped = line.stripTrailing();
            if (stripped.equals(MARKERS.begin()) || stripped.equals(MARKERS.end())) {
                inBlock = stripped.equals(MARKERS.begin());
                out.add(line);
                continue;
            }
            // Checked before splitting: the block's own thousand lines are not loopback lines.
            if (inBlock || !line.strip().startsWith("127.")) {
                out.add(line);
                continue;
            }
            String[] fields = line.strip().split("\\s+");
            if (!trapsAName(fields, addressOf)) {
                out.add(line);
                continue;
            }
            List<String> kept = new ArrayList<>();
            String comment = "";
            boolean dropped = false;
            for (int i = 1; i < fields.length; i++) {
                if (fields[i].startsWith("#")) {
                    comment = " " + String.join(" ", List.of(fields).subList(i, fields.length));
                    break;
                }
                String mapped = addressOf.get(fields[i]);
                if (mapped != null && !mapped.startsWith("127.")) {
                    removed.add(fields[i] + " (" + fields[0] + ")");
                    dropped = true;
                } else {
                    kept.add(fields[i]);
                }
            }
            if (!dropped) {
                out.add(line);
                continue;
            }
            changed = true;
            if (!kept.isEmpty()) {
                out.add(fields[0] + " " + String.join(" ", kept) + comment);
            }
        }
        if (!changed) {
            return text;
        }
        StringBuilder sb = new StringBuilder();
        out.forEach(l -> sb.append(l).append('\n'));
        return sb.toString();
    }

    /**
     * Whether a loopback line outside the block may name a cluster host: {@link #withoutLoopbackTraps}
     * then edits line by line. Scans the text in place; a text with a carriage return (which
     * {@link String#lines} also splits at) always may.
     */
    private static boolean mayTrap(String text, Map<String, String> addressOf) {
        if (text.indexOf('\r') >= 0) {
            return true;
        }
        boolean inBlock = false;
        for (int start = 0, end; start < text.length(); start = end + 1) {
            end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            int last = end;
            while (last > start && Character.isWhitespace(text.charAt(last - 1))) {
                last--;
            }
            if (isLine(text, start, last, MARKERS.begin()) || isLine(text, start, last, MARKERS.end())) {
                inBlock = isLine(text, start, last, MARKERS.begin());
                if (inBlock) {
                    // the block's thousand lines are no loopback lines: on to the next that may end it
                    int next = nextLineStartingWith(text, MARKERS.end(), end + 1);
                    if (next < 0) {
                        return false; // the rest of the text is the block's
                    }
                    end = next - 1;
                }
                continue;
            }
            int first = start;
            while (first < last && Character.isWhitespace(text.charAt(first))) {
                first++;
            }
            if (!inBlock && text.startsWith("127.", first)
                    && trapsAName(text.substring(first, last).split("\\s+"), addressOf)) {
                return true;
            }
        }
        return false;
    }

    /** Where the first line from {@code from} on that starts with {@code prefix} starts, or -1. */
    private static int nextLineStartingWith(String text, String prefix, int from) {
        for (int at = text.indexOf(prefix, from); at >= 0; at = text.indexOf(prefix, at + 1)) {
            if (at == 0 || text.charAt(at - 1) == '\n') {
                return at;
            }
        }
        return -1;
    }

    private static boolean isLine(String text, int start, int end, String line) {
        return end - start == line.length() && text.startsWith(line, start);
    }

    /** Whether a loopback line's names (up to a comment) include one the block maps to a cluster address. */
    private static boolean trapsAName(String[] fields, Map<String, String> addressOf) {
        for (int i = 1; i < fields.length && !fields[i].startsWith("#"); i++) {
            String mapped = addressOf.get(fields[i]);
            if (mapped != null && !mapped.startsWith("127.")) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> addressByName(List<HostEntry> entries) throws ModuleException {
        Map<String, String> addressOf = new LinkedHashMap<>();
        for (HostEntry e : entries) {
            for (String n : e.names()) {
                String previous = addressOf.putIfAbsent(n, e.address());
                if (previous != null && !previous.equals(e.address())) {
                    throw new ModuleException("name " + n + " maps to two addresses: " + previous + " and " + e.address());
                }
            }
        }
        return addressOf;
    }

    private static List<HostEntry> fromList(List<Object> raw) throws ModuleException {
        List<HostEntry> entries = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            if (!(raw.get(i) instanceof Map<?, ?> m)) {
                throw new ModuleException("entries[" + i + "] must be a mapping {address: ..., names: [...]}");
            }
            Object address = m.get("address");
            if (address == null) {
                throw new ModuleException("entries[" + i + "] has no address");
            }
            entries.add(entry(String.valueOf(address), names(m.get("names"), "entries[" + i + "].names"), "entries[" + i + "]"));
        }
        return entries;
    }

    private static List<HostEntry> fromGroup(String group, InventoryView inventory) throws ModuleException {
        List<String> members = inventory.group(group)
                .orElseThrow(() -> new ModuleException("group '" + group + "' is not in the inventory"));
        List<HostEntry> entries = new ArrayList<>();
        for (String host : members) {
            Map<String, Object> vars = inventory.hostVars(host);
            Optional<String> address = Optional.ofNullable(vars.get("ansible_host")).map(String::valueOf).filter(HostsModule::isIpAddress);
            if (address.isEmpty() && vars.get("facts") instanceof Map<?, ?> facts && facts.get("default_ipv4") != null) {
                address = Optional.of(String.valueOf(facts.get("default_ipv4"))).filter(a -> !a.isEmpty());
            }
            if (address.isEmpty()) {
                throw new ModuleException("host " + host + " of group " + group + " has no IP address: set its ansible_host to one,"
                        + " or gather its facts in this run");
            }
            List<String> names = new ArrayList<>();
            names.add(host);
            Object aliases = vars.get("host_aliases");
            if (aliases != null) {
                names.addAll(names(aliases, "hostvars." + host + ".host_aliases"));
            }
            entries.add(entry(address.get(), names, "host " + host));
        }
        return entries;
    }

    private static HostEntry entry(String address, List<String> names, String where) throws ModuleException {
        if (!isIpAddress(address)) {
            throw new ModuleException(where + ": address '" + address + "' is not an IP address");
        }
        Set<String> unique = new LinkedHashSet<>();
        for (String n : names) {
            if (!isHostName(n)) {
                throw new ModuleException(where + ": '" + n + "' is not a host name");
            }
            unique.add(n);
        }
        if (unique.isEmpty()) {
            throw new ModuleException(where + " has no names");
        }
        return new HostEntry(address, List.copyOf(unique));
    }

    /** A list, or one string of names separated by blanks or commas. */
    private static List<String> names(Object raw, String where) throws ModuleException {
        if (raw instanceof List<?> l) {
            return l.stream().map(String::valueOf).toList();
        }
        if (raw instanceof String s) {
            return List.of(s.strip().split("[\\s,]+")).stream().filter(n -> !n.isEmpty()).toList();
        }
        throw new ModuleException(where + " must be a list of names");
    }

    /*
     * The checks below run for every member of the group on every host (a million times per task
     * at a thousand hosts), so they are written out rather than regular expressions.
     */

    static boolean isIpAddress(String s) {
        return isIpv4(s) || (s.indexOf(':') >= 0 && IPV6.matcher(s).matches());
    }

    /** Four decimal octets 0-255 without leading zeros, separated by dots. */
    private static boolean isIpv4(String s) {
        int octets = 0;
        int i = 0;
        int n = s.length();
        while (i < n) {
            int start = i;
            int value = 0;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9' && i - start < 3) {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return false;
            }
            octets++;
            if (i == n) {
                break;
            }
            if (s.charAt(i) != '.' || octets == 4) {
                return false;
            }
            i++;
            if (i == n) {
                return false;
            }
        }
        return octets == 4;
    }

    /** Letters, digits, {@code _}, {@code .} and {@code -}, neither first nor last a dot or dash. */
    private static boolean isHostName(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            boolean inner = c == '.' || c == '-';
            if (!word && !(inner && i > 0 && i < s.length() - 1)) {
                return false;
            }
        }
        return true;
    }

    /** Its only effect is the hosts file it writes, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
