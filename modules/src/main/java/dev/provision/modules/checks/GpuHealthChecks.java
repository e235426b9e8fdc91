package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The {@code gpu} check's rows from {@code nvidia-smi -q} ({@link GpuHealth}) and the kernel log
 * ({@link KernelXid}): one row per fault kind over all GPUs, naming the GPUs at fault, so that a
 * node of eight GPUs has the same rows as a node of one. Pure functions.
 */
final class GpuHealthChecks {
    /** What the rows are compared with; empty expectations fall back to the GPU's own maximum. */
    record Expectations(OptionalInt pcieGen, OptionalInt pcieWidth, boolean requirePersistence, String mig, int maxTemperature) {
    }

    private GpuHealthChecks() {
    }

    static List<CheckResult> rows(List<GpuHealth> gpus, Expectations want) {
        List<CheckResult> rows = new ArrayList<>();
        rows.add(pcieLink(gpus, want));
        rows.add(flagRow("gpu.persistence_mode", gpus, GpuHealth::persistenceMode, "Enabled", want.requirePersistence(),
                "persistence mode off: the driver tears down and re-initialises the GPUs between jobs",
                "enable it (systemctl enable --now nvidia-persistenced, or nvidia-smi -pm 1)"));
        rows.add(mig(gpus, want.mig()));
        rows.add(slowdowns(gpus));
        rows.add(temperature(gpus, want.maxTemperature()));
        recovery(gpus).ifPresent(rows::add);
        return rows;
    }

    /**
     * Width below max always fails (lanes do not drop at idle: a bad riser, slot or seating);
     * generation below max fails under load and warns on an idle GPU; a max below the GPU's own
     * (the host side holds it back: BIOS setting, slot, retimer) fails.
     */
    static CheckResult pcieLink(List<GpuHealth> gpus, Expectations want) {
        List<String> failed = new ArrayList<>();
        List<String> idleDownshift = new ArrayList<>();
        for (GpuHealth g : gpus) {
            if (g.pcieGen().isEmpty() || g.pcieWidth().isEmpty()) {
                continue;
            }
            int gen = g.pcieGen().getAsInt();
            int width = g.pcieWidth().getAsInt();
            int genMax = g.pcieGenMax().orElse(gen);
            int deviceMax = g.pcieGenDeviceMax().orElse(genMax);
            int widthMax = g.pcieWidthMax().orElse(width);
            String who = "GPU " + g.shortBusId() + " at " + g.link();
            if (width < widthMax || want.pcieWidth().isPresent() && width < want.pcieWidth().getAsInt()) {
                failed.add(who + " (x" + Math.max(widthMax, want.pcieWidth().orElse(0)) + " possible)");
            } else if (genMax < deviceMax || want.pcieGen().isPresent() && genMax < want.pcieGen().getAsInt()) {
                failed.add(who + " (host side limits it to Gen" + genMax + ", the GPU does Gen" + Math.max(deviceMax, want.pcieGen().orElse(0)) + ")");
            } else if (gen < genMax) {
                (g.idle() ? idleDownshift : failed).add(who + " (Gen" + genMax + " possible)");
            }
        }
        if (gpus.stream().allMatch(g -> g.pcieGen().isEmpty() || g.pcieWidth().isEmpty())) {
            return CheckResult.unknown("gpu.pcie_link", "could not judge: the driver reports no link generation/width"
                    + " (nvidia-smi -q, GPU Link Info): update the driver, or check the link with lspci -vv");
        }
        String measured = distinct(gpus, GpuHealth::link);
        String expected = want.pcieGen().isPresent() || want.pcieWidth().isPresent()
                ? "Gen" + want.pcieGen().stream().mapToObj(String::valueOf).findFirst().orElse("max")
                        + " x" + want.pcieWidth().stream().mapToObj(String::valueOf).findFirst().orElse("max")
                : distinct(gpus, GpuHealth::fullLink);
        if (!failed.isEmpty()) {
            return CheckResult.fail("gpu.pcie_link", measured, expected, "degraded PCIe link: " + String.join("; ", failed)
                    + ": drain the node, reseat the GPU or its riser and check the slot's BIOS settings; RMA if it stays");
        }
        if (!idleDownshift.isEmpty()) {
            return CheckResult.warn("gpu.pcie_link", measured, expected, "idle GPUs may lower the link generation, re-check under load: "
                    + String.join("; ", idleDownshift));
        }
        return CheckResult.pass("gpu.pcie_link", measured, expected);
    }

    private static CheckResult flagRow(String check, List<GpuHealth> gpus, Function<GpuHealth, String> field, String want,
                                       boolean required, String why, String action) {
        if (gpus.stream().noneMatch(g -> GpuInfo.available(field.apply(g)))) {
            return CheckResult.skip(check, "not reported by the driver");
        }
        List<String> off = gpus.stream().filter(g -> !field.apply(g).equalsIgnoreCase(want)).map(g -> "GPU " + g.shortBusId()).toList();
        if (off.isEmpty()) {
            return CheckResult.pass(check, want, want);
        }
        String detail = why + " (" + String.join(", ", off) + "): " + action;
        String measured = distinct(gpus, field);
        return required ? CheckResult.fail(check, measured, want, detail) : CheckResult.warn(check, measured, want, detail);
    }

    private static CheckResult mig(List<GpuHealth> gpus, String want) {
        if (gpus.stream().noneMatch(g -> GpuInfo.available(g.migCurrent()))) {
            return CheckResult.skip("gpu.mig_mode", "MIG not supported on this GPU");
        }
        List<String> wrong = gpus.stream().filter(g -> GpuInfo.available(g.migCurrent()) && !g.migCurrent().equalsIgnoreCase(want))
                .map(g -> "GPU " + g.shortBusId() + " " + g.migCurrent()).toList();
        List<String> pending = gpus.stream().filter(g -> GpuInfo.available(g.migPending()) && !g.migPending().equalsIgnoreCase(g.migCurrent()))
                .map(g -> "GPU " + g.shortBusId()).toList();
        String measured = distinct(gpus, GpuHealth::migCurrent);
        if (!wrong.isEmpty()) {
            return CheckResult.fail("gpu.mig_mode", measured, want, "MIG mode: " + String.join(", ", wrong)
                    + ": set it (nvidia-smi -i GPU -mig 0 or 1), then reset the GPU; or fix expected_mig");
        }
        if (!pending.isEmpty()) {
            return CheckResult.warn("gpu.mig_mode", measured, want, "MIG mode change pending until a GPU reset: " + String.join(", ", pending)
                    + ": reset the GPU (nvidia-smi -r) or reboot");
        }
        return CheckResult.pass("gpu.mig_mode", measured, want);
    }

    /** An active hardware slowdown fails; time spent throttled since the driver loaded warns. */
    private static CheckResult slowdowns(List<GpuHealth> gpus) {
        List<String> active = gpus.stream().filter(g -> !g.hwSlowdowns().isEmpty())
                .map(g -> "GPU " + g.shortBusId() + ": " + String.join(", ", g.hwSlowdowns())).toList();
        if (!active.isEmpty()) {
            return CheckResult.fail("gpu.throttle", active.size() + " GPUs slowed down", "no HW slowdown",
                    "hardware is lowering clocks: " + String.join("; ", active)
                            + ": drain the node; check cooling, fans and power supplies (nvidia-smi -q -d PERFORMANCE)");
        }
        List<String> past = gpus.stream().filter(g -> g.thermalThrottleMicros() > 0)
                .map(g -> String.format(Locale.ROOT, "GPU %s: %.1f s", g.shortBusId(), g.thermalThrottleMicros() / 1e6)).toList();
        if (!past.isEmpty()) {
            return CheckResult.warn("gpu.throttle", "none now", "no HW slowdown",
                    "thermal slowdown or power braking since the driver loaded: " + String.join(", ", past)
                            + ": check cooling and power (nvidia-smi -q -d PERFORMANCE)");
        }
        return CheckResult.pass("gpu.throttle", "none", "no HW slowdown");
    }

    private static CheckResult temperature(List<GpuHealth> gpus, int max) {
        List<GpuHealth> known = gpus.stream().filter(g -> g.temperatureC().isPresent()).toList();
        if (known.isEmpty()) {
            return CheckResult.unknown("gpu.temperature", "could not judge: the driver reports no temperature"
                    + " (nvidia-smi -q -d TEMPERATURE): check the GPU's sensors and the BMC");
        }
        int hottest = known.stream().mapToInt(g -> g.temperatureC().getAsInt()).max().orElseThrow();
        List<String> hot = known.stream().filter(g -> g.temperatureC().getAsInt() > max)
                .map(g -> "GPU " + g.shortBusId() + " " + g.temperatureC().getAsInt() + " C").toList();
        return CheckResult.of(hot.isEmpty(), "gpu.temperature", hottest + " C (hottest)", "<= " + max + " C",
                "too hot before any work (" + String.join(", ", hot) + "): drain the node; check cooling and airflow"
                        + " (fans, inlet temperature, blanking panels)");
    }

    private static Optional<CheckResult> recovery(List<GpuHealth> gpus) {
        if (gpus.stream().noneMatch(g -> GpuInfo.available(g.recoveryAction()))) {
            return Optional.empty(); // drivers before R550 do not report it
        }
        List<String> needed = gpus.stream().filter(g -> GpuInfo.available(g.recoveryAction()) && !g.recoveryAction().equalsIgnoreCase("None"))
                .map(g -> "GPU " + g.shortBusId() + ": " + g.recoveryAction()).toList();
        return Optional.of(CheckResult.of(needed.isEmpty(), "gpu.recovery_action", distinct(gpus, GpuHealth::recoveryAction), "None",
                "the driver asks for a recovery action: " + String.join("; ", needed)
                        + ": drain the node and do it (Reset: nvidia-smi -r; Reboot: reboot the node)"));
    }

    /**
     * Xid events since boot: a drain-worthy code fails naming the GPU and what it means; others
     * warn (usually the application's fault); skipped when the kernel log cannot be read.
     */
    static CheckResult xid(Optional<String> source, List<KernelXid.Event> events) {
        if (source.isEmpty()) {
            return CheckResult.unknown("gpu.xid", "could not run: kernel log not readable (dmesg_restrict without root?):"
                    + " run the check with become: true");
        }
        if (events.isEmpty()) {
            return CheckResult.pass("gpu.xid", "none since boot", "no drain-worthy Xid");
        }
        Map<String, Long> counts = events.stream().collect(Collectors.groupingBy(e -> "Xid " + e.code() + " on " + e.pci(),
                TreeMap::new, Collectors.counting()));
        String measured = events.size() + " events: " + counts.entrySet().stream()
                .map(e -> e.getKey() + (e.getValue() > 1 ? " (x" + e.getValue() + ")" : "")).collect(Collectors.joining(", "));
        List<String> drain = events.stream().filter(KernelXid.Event::drainWorthy)
                .map(e -> "Xid " + e.code() + " (" + KernelXid.DRAIN.get(e.code()) + ") on " + e.pci()).distinct().toList();
        if (!drain.isEmpty()) {
            return CheckResult.fail("gpu.xid", measured, "no drain-worthy Xid", "drain this node: " + String.join("; ", drain)
                    + " (from " + source.get() + ")");
        }
        return CheckResult.warn("gpu.xid", measured, "no drain-worthy Xid", "Xid events, usually the application's: "
                + events.get(events.size() - 1).text() + ": look at the job that ran then; drain the node if they recur");
    }

    private static String distinct(List<GpuHealth> gpus, Function<GpuHealth, String> field) {
        return gpus.stream().map(field).distinct().collect(Collectors.joining(", "));
    }
}
