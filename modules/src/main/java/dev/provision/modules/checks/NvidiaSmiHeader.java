package dev.provision.modules.checks;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver version and the highest CUDA version the driver supports, from the banner of plain
 * {@code nvidia-smi} ({@code | NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |})
 * or the head of {@code nvidia-smi -q} ({@code CUDA Version : 13.0}); both spellings match.
 */
final class NvidiaSmiHeader {
    private static final Pattern CUDA = Pattern.compile("CUDA Version\\s*:\\s*(\\d+(?:\\.\\d+)*)");
    private static final Pattern DRIVER = Pattern.compile("Driver Version\\s*:\\s*(\\d+(?:\\.\\d+)*)");

    private NvidiaSmiHeader() {
    }

    static Optional<String> cudaVersion(String output) {
        return find(CUDA, output);
    }

    static Optional<String> driverVersion(String output) {
        return find(DRIVER, output);
    }

    private static Optional<String> find(Pattern p, String output) {
        Matcher m = p.matcher(output);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
