package dev.provision.engine.inventory;

import com.google.common.net.InetAddresses;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A host as an inventory file writes it, INI host line or YAML {@code hosts:} key: a name or a
 * {@link HostRanges range}, optionally followed by {@code :PORT} ({@code node1:2222},
 * {@code [fe80::1]:2222}; a bare IPv6 address has no port). As in Ansible, the port is split off only
 * when what is left is a DNS name or an IP address (ranges included); otherwise the whole text is
 * the name, which {@link HostNames} then refuses.
 *
 * @param names the host names, ranges expanded
 * @param port the port written after the name, if any
 */
record HostPattern(List<String> names, Optional<Integer> port) {
    private static final Pattern BRACKETED_WITH_PORT = Pattern.compile("\\[(.+)\\]:([0-9]+)");
    private static final Pattern WITH_PORT = Pattern.compile("((?:[^:\\[\\]]|\\[[^\\]]*\\])*):([0-9]+)");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*\\]");
    private static final Pattern NAME = Pattern.compile("[\\w-]+(?:\\.[\\w-]+)*", Pattern.UNICODE_CHARACTER_CLASS);
    private static final int MAX_PORT = 65_535;

    HostPattern {
        names = List.copyOf(names);
    }

    /**
     * Reads one pattern.
     *
     * @throws IllegalArgumentException when a range or the port is malformed
     */
    static HostPattern parse(String pattern) {
        String address = pattern;
        String port = null;
        for (Pattern withPort : List.of(BRACKETED_WITH_PORT, WITH_PORT)) {
            Matcher m = withPort.matcher(address);
            if (m.matches()) {
                address = m.group(1);
                port = m.group(2);
            }
        }
        if (port != null && !isAddress(address)) {
            address = pattern;
            port = null;
        }
        Optional<Integer> number = Optional.empty();
        if (port != null) {
            if (port.length() > 5 || Integer.parseInt(port) > MAX_PORT) {
                throw new IllegalArgumentException("port " + port + " is beyond " + MAX_PORT);
            }
            number = Optional.of(Integer.parseInt(port));
        }
        List<String> names = address.contains("[") || address.contains("]") ? HostRanges.expand(address) : List.of(address);
        return new HostPattern(names, number);
    }

    /** Whether a name, its ranges taken as one value each, is a DNS name or an IP address. */
    private static boolean isAddress(String name) {
        String sample = RANGE.matcher(name).replaceAll("0");
        return InetAddresses.isInetAddress(sample) || NAME.matcher(sample).matches();
    }
}
