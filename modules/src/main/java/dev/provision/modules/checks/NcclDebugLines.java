package dev.provision.modules.checks;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What NCCL says of itself under {@code NCCL_DEBUG=INFO} ({@code host:pid:tid [rank] NCCL INFO ...}
 * lines, mixed with anything else the program prints): its version, the network plugin it chose
 * ({@code Using network IB} or {@code Socket}), whether NVLink SHARP (NVLS) was available or used,
 * and the transports of its channels ({@code via P2P/IPC}, {@code via NET/IB/0}). Absent lines leave
 * the matching value empty: NCCL prints less at other debug levels and versions.
 *
 * @param nvls whether NCCL built NVLS channels ({@code N nvls channels} with N &gt; 0) and did not say
 *     NVLS multicast is not available or turned off; empty when it said nothing of it
 */
record NcclDebugLines(Optional<String> version, Optional<String> network, Optional<Boolean> nvls, List<String> transports) {
    private static final Pattern VERSION = Pattern.compile("NCCL INFO NCCL version (\\S+)");
    private static final Pattern NETWORK = Pattern.compile("NCCL INFO Using network (\\S+)");
    private static final Pattern NVLS_SUPPORT = Pattern.compile("NCCL INFO NVLS multicast support is (not )?available");
    private static final Pattern NVLS_OFF = Pattern.compile("NCCL INFO NCCL_NVLS_ENABLE set by environment to 0");
    /** {@code 64 coll channels, 64 collnet channels, 0 nvls channels, ...} (NCCL 2.28, at the end of init). */
    private static final Pattern NVLS_CHANNELS = Pattern.compile("NCCL INFO .*\\b(\\d+) nvls channels");
    private static final Pattern TRANSPORT = Pattern.compile("NCCL INFO Channel \\d+/\\d+ : .* via (\\S+)");

    NcclDebugLines {
        transports = List.copyOf(transports);
    }

    static NcclDebugLines parse(String output) {
        Optional<String> version = Optional.empty();
        Optional<String> network = Optional.empty();
        Optional<Boolean> nvls = Optional.empty();
        Set<String> transports = new LinkedHashSet<>();
        for (String line : output.lines().toList()) {
            if (!line.contains("NCCL INFO")) {
                continue;
            }
            Matcher m;
            if (version.isEmpty() && (m = VERSION.matcher(line)).find()) {
                version = Optional.of(m.group(1));
            } else if (network.isEmpty() && (m = NETWORK.matcher(line)).find()) {
                network = Optional.of(m.group(1));
            } else if ((m = NVLS_SUPPORT.matcher(line)).find()) {
                nvls = Optional.of(nvls.orElse(true) && m.group(1) == null);
            } else if (NVLS_OFF.matcher(line).find()) {
                nvls = Optional.of(false);
            } else if ((m = NVLS_CHANNELS.matcher(line)).find()) {
                nvls = Optional.of(nvls.orElse(true) && Integer.parseInt(m.group(1)) > 0);
            } else if ((m = TRANSPORT.matcher(line)).find()) {
                transports.add(m.group(1));
            }
        }
        return new NcclDebugLines(version, network, nvls, List.copyOf(transports));
    }

    /** {@code IB}, {@code Socket} or {@code NVLink/P2P} (within a node), from the network and channel lines. */
    Optional<String> transport() {
        if (transports.stream().anyMatch(t -> t.startsWith("NET/"))) {
            return Optional.of(transports.stream().filter(t -> t.startsWith("NET/")).findFirst().orElseThrow());
        }
        if (!transports.isEmpty()) {
            return Optional.of(String.join(",", transports));
        }
        return network;
    }
}
