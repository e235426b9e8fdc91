package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code NCCL_IB_HCA} as NCCL's environment-variable documentation defines it: a comma-separated
 * list of {@code NAME[:PORT]}; a leading {@code ^} excludes the listed HCAs instead, a leading
 * {@code =} (after {@code ^} if both) matches names exactly, otherwise each name is a prefix
 * ({@code mlx5} selects {@code mlx5_0} .. {@code mlx5_17}).
 */
record NcclIbHca(String raw, boolean exclude, boolean exact, List<Entry> entries) {
    static final String NCCL_CONF = "/etc/nccl.conf";

    /** One listed HCA; {@code port} empty for every port. */
    record Entry(String name, OptionalInt port) {
        Entry {
            requireNonNull(name, "name cannot be null");
        }
    }

    NcclIbHca {
        requireNonNull(raw, "raw cannot be null");
        entries = List.copyOf(entries);
    }

    static NcclIbHca parse(String value) {
        String v = value.strip();
        boolean exclude = v.startsWith("^");
        v = exclude ? v.substring(1) : v;
        boolean exact = v.startsWith("=");
        v = exact ? v.substring(1) : v;
        List<Entry> entries = new ArrayList<>();
        for (String item : v.split(",")) {
            String s = item.strip();
            if (s.isEmpty()) {
                continue;
            }
            int colon = s.indexOf(':');
            OptionalInt port = colon >= 0 && s.substring(colon + 1).matches("\\d+")
                    ? OptionalInt.of(Integer.parseInt(s.substring(colon + 1))) : OptionalInt.empty();
            entries.add(new Entry(colon >= 0 ? s.substring(0, colon) : s, port));
        }
        return new NcclIbHca(value.strip(), exclude, exact, entries);
    }

    /** Whether NCCL uses this HCA port under this setting. */
    boolean selects(String device, int port) {
        boolean listed = entries.stream().anyMatch(e -> names(e, device) && (e.port().isEmpty() || e.port().getAsInt() == port));
        return exclude != listed;
    }

    /** Listed names that match no device of the node (a typo, or another node's layout). */
    List<String> unmatched(List<String> devices) {
        return entries.stream().filter(e -> devices.stream().noneMatch(d -> names(e, d))).map(Entry::name).toList();
    }

    private boolean names(Entry e, String device) {
        return exact ? device.equals(e.name()) : device.startsWith(e.name());
    }

    /**
     * The value a job on this node would get: the {@code nccl_ib_hca} parameter, else the host
     * variable {@code NCCL_IB_HCA}, else the line in {@link #NCCL_CONF}, else the environment of a
     * probe; empty when unset.
     */
    static Optional<String> lookup(Params params, TaskContext context) throws ModuleException {
        Optional<String> value = Probes.expectation(params, "nccl_ib_hca")
                .or(() -> Optional.ofNullable(context.variables().get("NCCL_IB_HCA")).map(String::valueOf));
        if (value.isEmpty()) {
            value = context.host().readFile(NCCL_CONF).flatMap(b -> confValue(new String(b, StandardCharsets.UTF_8)));
        }
        if (value.isEmpty()) {
            ProbeResult env = context.host().probe("printenv", "NCCL_IB_HCA");
            value = env.ok() ? Optional.of(env.stdout().strip()) : Optional.empty();
        }
        return value.map(String::strip).filter(v -> !v.isEmpty());
    }

    /** {@code NCCL_IB_HCA=...} from nccl.conf ({@code KEY=VALUE} lines, {@code #} comments). */
    static Optional<String> confValue(String conf) {
        return conf.lines().map(String::strip).filter(l -> l.startsWith("NCCL_IB_HCA="))
                .reduce((first, second) -> second).map(l -> l.substring("NCCL_IB_HCA=".length()).strip());
    }
}
