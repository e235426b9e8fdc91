package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why nvidia-smi could not describe every GPU. From NVIDIA's documentation of nvidia-smi: exit 9
 * means it could not talk to the driver ("NVIDIA-SMI has failed because it couldn't communicate
 * with the NVIDIA driver"); a GPU that dropped off the PCIe bus is reported per GPU as
 * "Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost" (the kernel log says
 * "GPU has fallen off the bus"), and the others are still listed.
 */
sealed interface NvidiaSmiProblem {

    /** Exit 127: nvidia-smi is not installed (no driver user space). */
    record NotInstalled() implements NvidiaSmiProblem {
    }

    /** The kernel driver is not loaded or does not answer. */
    record DriverMissing(String message) implements NvidiaSmiProblem {
        public DriverMissing {
            requireNonNull(message, "message cannot be null");
        }
    }

    /** One or more GPUs lost from the bus; {@code gpus} are their PCI bus ids. */
    record GpusLost(List<String> gpus, String message) implements NvidiaSmiProblem {
        public GpusLost {
            gpus = List.copyOf(gpus);
            requireNonNull(message, "message cannot be null");
        }
    }

    Pattern DEVICE_HANDLE = Pattern.compile("Unable to determine the device handle for (?:GPU|gpu)?\\s*([0-9A-Fa-f:.]+)\\s*:\\s*(.*)");

    /** The problem the output shows, if any; lost GPUs are named even when the others are listed. */
    static Optional<NvidiaSmiProblem> diagnose(int exitCode, String output) {
        if (exitCode == 127 || output.contains("nvidia-smi: not found") || output.contains("nvidia-smi: command not found")) {
            return Optional.of(new NotInstalled());
        }
        if (exitCode == 9 || output.contains("couldn't communicate with the NVIDIA driver")) {
            return Optional.of(new DriverMissing(firstLine(output)));
        }
        List<String> lost = new ArrayList<>();
        String message = "";
        for (String line : output.lines().toList()) {
            Matcher m = DEVICE_HANDLE.matcher(line.strip());
            if (m.find()) {
                lost.add(m.group(1));
                message = m.group(2).strip();
            } else if (line.contains("fallen off the bus")) {
                message = line.strip();
                if (lost.isEmpty()) {
                    lost.add("unknown");
                }
            }
        }
        return lost.isEmpty() ? Optional.empty() : Optional.of(new GpusLost(lost, message));
    }

    private static String firstLine(String output) {
        return output.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("no output");
    }
}
