package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * InfiniBand (and RoCE) ports of every HCA, from {@code ibstat} or from sysfs.
 *
 * <p>{@code ibstat} (infiniband-diags; format as in its man page): a {@code CA 'mlx5_0'} block per
 * adapter, a {@code Port 1:} block per port with {@code State: Active}, {@code Physical state:
 * LinkUp}, {@code Rate: 400} (Gb/s) and {@code Link layer: InfiniBand}.
 *
 * <p>sysfs ({@code /sys/class/infiniband/DEV/ports/N/}, the kernel's ABI documentation): {@code state}
 * {@code 4: ACTIVE}, {@code phys_state} {@code 5: LinkUp}, {@code rate} {@code 400 Gb/sec (4X NDR)},
 * {@code link_layer} {@code InfiniBand}; {@link #SYSFS_SCRIPT} prints them as {@code key=value}
 * lines, each port introduced by {@code port=DEV/N}. Both are normalised to the ibstat words.
 */
final class IbStatus {
    /** Read-only: prints the port files of every HCA; prints nothing when there is none. */
    static final String SYSFS_SCRIPT = "for p in /sys/class/infiniband/*/ports/*; do [ -d \"$p\" ] || continue; "
            + "d=${p%/ports/*}; printf 'port=%s/%s\\n' \"${d##*/}\" \"${p##*/}\"; "
            + "for f in state phys_state rate link_layer; do printf '%s=%s\\n' \"$f\" \"$(cat \"$p/$f\" 2>/dev/null)\"; done; done";

    private static final Pattern CA = Pattern.compile("^CA '([^']+)'");
    private static final Pattern PORT = Pattern.compile("^Port (\\d+):");
    private static final Pattern NUMBER = Pattern.compile("(\\d+(?:\\.\\d+)?)");

    /**
     * One port.
     *
     * @param state {@code Active}, {@code Down}, {@code Initializing}, {@code Armed}
     * @param physicalState {@code LinkUp}, {@code Polling}, {@code Disabled}, ...
     * @param rateGbps the link rate in Gb/s (0 when unknown)
     * @param linkLayer {@code InfiniBand} or {@code Ethernet} (RoCE)
     */
    record Port(String device, int port, String state, String physicalState, double rateGbps, String linkLayer) {
        Port {
            requireNonNull(device, "device cannot be null");
            requireNonNull(state, "state cannot be null");
            requireNonNull(physicalState, "physicalState cannot be null");
            requireNonNull(linkLayer, "linkLayer cannot be null");
        }

        String name() {
            return device + "/" + port;
        }

        boolean up() {
            return state.equalsIgnoreCase("Active") && physicalState.equalsIgnoreCase("LinkUp");
        }
    }

    private IbStatus() {
    }

    static List<Port> parseIbstat(String output) {
        List<Port> ports = new ArrayList<>();
        String device = null;
        Integer port = null;
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : output.lines().map(String::strip).toList()) {
            Matcher ca = CA.matcher(line);
            Matcher p = PORT.matcher(line);
            boolean isCa = ca.find();
            boolean isPort = !isCa && p.find();
            if (isCa || isPort) {
                if (device != null && port != null) {
                    ports.add(port(device, port, fields));
                }
                fields = new LinkedHashMap<>();
                if (isCa) {
                    device = ca.group(1);
                    port = null;
                } else {
                    port = Integer.parseInt(p.group(1));
                }
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0 && port != null) {
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            }
        }
        if (device != null && port != null) {
            ports.add(port(device, port, fields));
        }
        return ports;
    }

    private static Port port(String device, int port, Map<String, String> f) {
        return new Port(device, port, f.getOrDefault("State", ""), f.getOrDefault("Physical state", ""),
                rate(f.getOrDefault("Rate", "")), f.getOrDefault("Link layer", ""));
    }

    static List<Port> parseSysfs(String output) {
        List<Port> ports = new ArrayList<>();
        String name = null;
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (key.equals("port")) {
                if (name != null) {
                    ports.add(sysfsPort(name, fields));
                }
                name = value;
                fields = new LinkedHashMap<>();
            } else {
                fields.put(key, value);
            }
        }
        if (name != null) {
            ports.add(sysfsPort(name, fields));
        }
        return ports;
    }

    private static Port sysfsPort(String name, Map<String, String> f) {
        int slash = name.lastIndexOf('/');
        String device = slash > 0 ? name.substring(0, slash) : name;
        String number = slash > 0 ? name.substring(slash + 1) : "";
        return new Port(device, number.matches("\\d+") ? Integer.parseInt(number) : 0,
                sysfsState(f.getOrDefault("state", "")), sysfsWord(f.getOrDefault("phys_state", "")),
                rate(f.getOrDefault("rate", "")), f.getOrDefault("link_layer", ""));
    }

    /** {@code 4: ACTIVE} -> {@code Active}; {@code 1: DOWN} -> {@code Down}. */
    private static String sysfsState(String raw) {
        String word = sysfsWord(raw);
        return word.isEmpty() ? word : word.charAt(0) + word.substring(1).toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code 5: LinkUp} -> {@code LinkUp}. */
    private static String sysfsWord(String raw) {
        int colon = raw.indexOf(':');
        return (colon >= 0 ? raw.substring(colon + 1) : raw).strip();
    }

    /** {@code 400}, {@code 400 Gb/sec (4X NDR)} -> 400. */
    private static double rate(String raw) {
        Matcher m = NUMBER.matcher(raw);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * NCCL reads {@code NCCL_IB_HCA=mlx5_1} as a prefix (it also selects mlx5_10..mlx5_19); a leading
     * {@code =} (or {@code ^=} to exclude) asks for exact names. Returns the warning, if any.
     */
    static Optional<String> ncclIbHcaPitfall(String value) {
        String v = value.strip();
        if (v.isEmpty() || v.startsWith("=") || v.startsWith("^=")) {
            return Optional.empty();
        }
        boolean exclude = v.startsWith("^");
        String names = exclude ? v.substring(1) : v;
        String first = names.split("[,:]")[0];
        return Optional.of("NCCL_IB_HCA=" + v + " matches by prefix (" + first + " also selects " + first + "0, "
                + first + "1, ...); write NCCL_IB_HCA=" + (exclude ? "^=" : "=") + names + " for exact names");
    }
}
