package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@code nvidia-smi -q} says about one GPU's link, modes and clocks, the faults a CSV health
 * query does not show. Field meanings as NVIDIA's nvidia-smi documentation gives them:
 * {@code PCIe Generation/Max} is the highest generation "possible with this GPU and system
 * configuration" (the lower of the GPU's {@code Device Max} and the host's), {@code Current} "may
 * be reduced when the GPU is not in use"; link width does not drop at idle. Throttle reasons were
 * renamed from {@code Clocks Throttle Reasons} to {@code Clocks Event Reasons} in R535; both are read.
 *
 * @param pcieGen current, max (GPU and host) and the GPU's own max; empty when not reported
 * @param pcieWidth current and max lanes ({@code 16x} in the report); empty when not reported
 * @param persistenceMode {@code Enabled}/{@code Disabled}/{@link GpuInfo#UNAVAILABLE}
 * @param migCurrent MIG mode now; {@code migPending} what it becomes after a GPU reset
 * @param idle the {@code Idle} clock event reason is active (no work: the link may have downshifted)
 * @param hwSlowdowns active hardware slowdowns ({@code HW Slowdown}, {@code HW Thermal Slowdown},
 *     {@code HW Power Brake Slowdown}, {@code SW Thermal Slowdown}), by the report's names
 * @param thermalThrottleMicros time spent in HW thermal slowdown or power braking since the driver loaded
 * @param temperatureC {@code GPU Current Temp}; empty when not reported
 * @param recoveryAction {@code GPU Recovery Action} (R550+: {@code None}, {@code Reset}, {@code Reboot}, ...)
 */
record GpuHealth(String busId, OptionalInt pcieGen, OptionalInt pcieGenMax, OptionalInt pcieGenDeviceMax,
                 OptionalInt pcieWidth, OptionalInt pcieWidthMax, String persistenceMode, String migCurrent,
                 String migPending, boolean idle, List<String> hwSlowdowns, long thermalThrottleMicros,
                 OptionalInt temperatureC, String recoveryAction) {
    private static final String LINK = "PCI/GPU Link Info/";
    /** Slowdowns imposed by the board (heat, power delivery), not by a cap someone set. */
    private static final List<String> SLOWDOWNS = List.of("HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown",
            "SW Thermal Slowdown");

    GpuHealth {
        requireNonNull(busId, "busId cannot be null");
        hwSlowdowns = List.copyOf(hwSlowdowns);
        requireNonNull(persistenceMode, "persistenceMode cannot be null");
        requireNonNull(migCurrent, "migCurrent cannot be null");
        requireNonNull(migPending, "migPending cannot be null");
        requireNonNull(recoveryAction, "recoveryAction cannot be null");
    }

    /** Every GPU of an {@code nvidia-smi -q} report. */
    static List<GpuHealth> parse(String output) {
        return NvidiaSmiQuery.blocks(output).stream().map(GpuHealth::of).toList();
    }

    static GpuHealth of(NvidiaSmiQuery.Block b) {
        String reasons = b.leaves().keySet().stream().anyMatch(k -> k.startsWith("Clocks Event Reasons/"))
                ? "Clocks Event Reasons" : "Clocks Throttle Reasons";
        List<String> slowdowns = SLOWDOWNS.stream().filter(s -> active(b.value(reasons + "/" + s))).toList();
        long throttled = micros(b.value(reasons + " Counters/HW Thermal Slowdown"))
                + micros(b.value(reasons + " Counters/HW Power Braking"));
        return new GpuHealth(b.busId(), number(b.value(LINK + "PCIe Generation/Current")),
                number(b.value(LINK + "PCIe Generation/Max")), number(b.value(LINK + "PCIe Generation/Device Max")),
                number(b.value(LINK + "Link Width/Current")), number(b.value(LINK + "Link Width/Max")),
                b.value("Persistence Mode"), b.value("MIG Mode/Current"), b.value("MIG Mode/Pending"),
                active(b.value(reasons + "/Idle")), slowdowns, throttled,
                number(b.value("Temperature/GPU Current Temp")), b.value("GPU Recovery Action"));
    }

    /** {@code Gen5 x16}, with {@code ?} for what the report leaves out. */
    String link() {
        return "Gen" + shown(pcieGen) + " x" + shown(pcieWidth);
    }

    /** The link this GPU should train at: the GPU's own max generation, the max width. */
    String fullLink() {
        return "Gen" + shown(pcieGenDeviceMax.isPresent() ? pcieGenDeviceMax : pcieGenMax) + " x" + shown(pcieWidthMax);
    }

    private static String shown(OptionalInt n) {
        return n.isPresent() ? String.valueOf(n.getAsInt()) : "?";
    }

    private static boolean active(String value) {
        return value.toLowerCase(Locale.ROOT).equals("active");
    }

    /** {@code 16x} -> 16, {@code 35 C} -> 35, {@code 5} -> 5; empty for N/A. */
    private static OptionalInt number(String value) {
        String digits = value.replaceAll("^(-?\\d+).*$", "$1");
        return digits.matches("-?\\d+") ? OptionalInt.of(Integer.parseInt(digits)) : OptionalInt.empty();
    }

    private static long micros(String value) {
        String digits = value.replaceAll("^(\\d+)\\s*us$", "$1");
        return digits.matches("\\d+") ? Long.parseLong(digits) : 0;
    }

    /** The GPU's short name in rows: {@code 00000000:3B:00.0} -> {@code 3B:00.0}. */
    String shortBusId() {
        return busId.matches("[0-9A-Fa-f]{4,8}:.*") ? busId.substring(busId.indexOf(':') + 1) : busId;
    }

    Optional<Boolean> persistence() {
        return GpuInfo.flag(persistenceMode);
    }
}
