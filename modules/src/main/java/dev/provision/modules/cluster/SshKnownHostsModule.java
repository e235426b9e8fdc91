package dev.provision.modules.cluster;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code ssh_known_hosts}: the host keys every node trusts for every other node, in the system-wide
 * known-hosts file, so that {@code ssh -o StrictHostKeyChecking=yes} works between nodes. The keys
 * are the ones the controller verified when it connected (the engine provides them as a variable),
 * never a blind keyscan from the node.
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code entries}: a list of {@code {names: [node01, 10.0.0.1], keys: ["ssh-ed25519 AAAA..."]}};
 *       each key becomes the line {@code node01,10.0.0.1 ssh-ed25519 AAAA...} (comments dropped).
 *       Names are host names, IP addresses or {@code [host]:port}.
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code exclusive} (default false): false keeps the lines in a managed block between
 *       {@code # BEGIN provision cluster known hosts} and {@code # END ...}, leaving other lines
 *       alone; true makes the entries the whole file ({@code absent} then removes the file).
 *   <li>{@code path} (default {@code /etc/ssh/ssh_known_hosts}), written 0644 root:root.
 * </ul>
 */
public final class SshKnownHostsModule implements TaskModule {
    static final String DEFAULT_PATH = "/etc/ssh/ssh_known_hosts";
    static final Markers MARKERS = Markers.of("# {mark} provision cluster known hosts", "BEGIN", "END");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:%\\-]+|\\[[A-Za-z0-9_.:%\\-]+\\]:[0-9]+");
    private static final byte[] NO_FILE = new byte[0];
    private static final Attributes FILE_ATTRIBUTES = new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("entries", Type.LIST)
            .choice("state", "present", "present", "absent")
            .withDefault("exclusive", Type.BOOL, false)
            .withDefault("path", Type.STRING, DEFAULT_PATH)
            .build();

    public SshKnownHostsModule() {
    }

    @Override
    public String name() {
        return "ssh_known_hosts";
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
        boolean exclusive = params.bool("exclusive");
        List<Object> entries = params.list("entries");
        List<String> lines = context.sharedByAllHosts(entries, () -> lines(entries));
        if (present && lines.isEmpty()) {
            throw new ModuleException("entries lists no host key");
        }
        context.host().expectSameOnEveryHost(path); // the cluster's known hosts: one file for all
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), path);
        if (!present) {
            if (existing.isEmpty()) {
                return Plan.converged(path + " does not exist");
            }
            if (exclusive) {
                return Plan.of(Change.withDiff("remove " + path, new Diff(path, existing.get().text(path), ""), new Command.Remove(path)));
            }
            String removed = ManagedBlock.remove(existing.get().text(path), MARKERS);
            return FileContentPlanner.update(path, existing.get(), removed.getBytes(StandardCharsets.UTF_8), Attributes.NONE,
                    "remove the cluster known hosts from " + path, path + " has no cluster known hosts block");
        }
        String block = context.sharedByAllHosts(List.of("block", lines), () -> String.join("\n", lines) + "\n");
        // The file is the same on most hosts (and then the engine hands each one the same array):
        // the edit is made once per distinct file, not once per host. A byte[] key compares by identity.
        byte[] before = existing.map(FileContentPlanner.Existing::content).orElse(NO_FILE);
        byte[] wanted = context.sharedByAllHosts(List.of("edit", exclusive, block, before), () -> exclusive
                ? ("# Known host keys of the cluster, managed by provision (the whole file).\n" + block).getBytes(StandardCharsets.UTF_8)
                : ManagedBlock.put(existing.isPresent() ? existing.get().text(path) : "", MARKERS, block, InsertPosition.END_OF_FILE)
                        .getBytes(StandardCharsets.UTF_8));
        String converged = path + " lists the " + lines.size() + " cluster host keys";
        if (existing.isEmpty()) {
            return FileContentPlanner.planInDirectory(context.host(), path, wanted, FILE_ATTRIBUTES,
                    new Attributes(Optional.of("0755"), Optional.of("root"), Optional.of("root")), converged);
        }
        return FileContentPlanner.update(path, existing.get(), wanted, FILE_ATTRIBUTES,
                "update the cluster host keys in " + path, converged);
    }

    private static List<String> lines(List<Object> entries) throws ModuleException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            String where = "entries[" + i + "]";
            if (!(entries.get(i) instanceof Map<?, ?> m)) {
                throw new ModuleException(where + " must be a mapping {names: [...], keys: [...]}");
            }
            List<String> names = strings(m.get("names"), where + ".names");
            for (String n : names) {
                if (!NAME.matcher(n).matches()) {
                    throw new ModuleException(where + ": '" + n + "' is not a host name, address or [host]:port");
                }
            }
            List<String> keys = strings(m.get("keys"), where + ".keys");
            if (names.isEmpty() || keys.isEmpty()) {
                throw new ModuleException(where + " needs at least one name and one key");
            }
            for (String key : keys) {
                PublicKey k = PublicKey.parse(key).filter(p -> p.options().isEmpty())
                        .orElseThrow(() -> new ModuleException(where + ": not a public host key: " + abbreviate(key)));
                lines.add(String.join(",", names) + " " + k.type() + " " + k.blob());
            }
        }
        return List.copyOf(lines);
    }

    private static List<String> strings(Object raw, String where) throws ModuleException {
        if (raw instanceof List<?> l) {
            return l.stream().map(String::valueOf).map(String::strip).toList();
        }
        if (raw instanceof String s) {
            return List.of(s.strip());
        }
        throw new ModuleException(where + " must be a list");
    }

    private static String abbreviate(String s) {
        String line = s.strip().lines().findFirst().orElse("");
        return line.length() > 40 ? line.substring(0, 40) + "..." : line;
    }

    /** Its only effect is the known-hosts file it writes, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
