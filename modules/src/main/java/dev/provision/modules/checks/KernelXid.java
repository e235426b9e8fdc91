package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Xid events in the kernel log since boot. The NVIDIA driver logs each as
 * {@code NVRM: Xid (PCI:0000:3b:00): 79, pid=..., name=..., GPU has fallen off the bus.}
 * (older drivers leave out {@code PCI:}); dmesg prefixes {@code [  12.345678]}, journalctl a date
 * and {@code kernel:}. Which codes mean "drain this node" follows NVIDIA's Xid catalog (the
 * "Xid Errors" table of the GPU deployment and management documentation): the others are
 * usually the application's fault (13 graphics engine exception, 31 memory page fault, 43 GPU
 * stopped processing, 45 preemptive cleanup) or need only a job restart (94 contained ECC error).
 */
final class KernelXid {
    /**
     * Read-only: the boot's kernel log from journalctl, else dmesg; prints which one on the first
     * line ({@code kernel log: journalctl}), then only the Xid lines (the last 500); exit 3 when
     * neither can be read (dmesg_restrict without root, no journal).
     */
    static final String SCRIPT = "if out=$(journalctl -k -b -q --no-pager 2>/dev/null) && [ -n \"$out\" ]; then src=journalctl; "
            + "elif out=$(dmesg 2>/dev/null); then src=dmesg; else echo 'kernel log: unreadable'; exit 3; fi; "
            + "echo \"kernel log: $src\"; printf '%s\\n' \"$out\" | grep -F 'NVRM: Xid' | tail -n 500; exit 0";

    /** Codes that take the GPU or the node out of service until someone acts, with what they mean. */
    static final Map<Integer, String> DRAIN = Map.ofEntries(
            Map.entry(48, "double-bit ECC error"),
            Map.entry(61, "internal micro-controller breakpoint"),
            Map.entry(62, "internal micro-controller halt"),
            Map.entry(64, "ECC page retirement or row remapping failure"),
            Map.entry(74, "NVLink error"),
            Map.entry(79, "GPU has fallen off the bus"),
            Map.entry(92, "high single-bit ECC error rate"),
            Map.entry(95, "uncontained ECC error"),
            Map.entry(119, "GSP RPC timeout"),
            Map.entry(120, "GSP error"),
            Map.entry(140, "unrecovered ECC error"),
            Map.entry(154, "GPU recovery action required"));

    private static final Pattern XID = Pattern.compile("NVRM: Xid \\((?:PCI:)?([0-9A-Fa-f:.]+)\\): (\\d+),\\s*(.*)");

    /** One event: the GPU's PCI address as the driver prints it, the code, the rest of the line. */
    record Event(String pci, int code, String text) {
        Event {
            requireNonNull(pci, "pci cannot be null");
            requireNonNull(text, "text cannot be null");
        }

        boolean drainWorthy() {
            return DRAIN.containsKey(code);
        }
    }

    /** The events in {@link #SCRIPT}'s output (or any kernel log), oldest first. */
    static List<Event> parse(String log) {
        List<Event> events = new ArrayList<>();
        for (String line : log.lines().toList()) {
            Matcher m = XID.matcher(line);
            if (m.find()) {
                events.add(new Event(m.group(1), Integer.parseInt(m.group(2)), m.group(3).strip()));
            }
        }
        return events;
    }

    /** The log source named on {@link #SCRIPT}'s first line; empty when it could not read one. */
    static Optional<String> source(String output) {
        return output.lines().findFirst().filter(l -> l.startsWith("kernel log: ") && !l.endsWith("unreadable"))
                .map(l -> l.substring("kernel log: ".length()).strip());
    }

    private KernelXid() {
    }
}
