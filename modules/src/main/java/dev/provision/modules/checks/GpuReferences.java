package dev.provision.modules.checks;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a healthy GPU reaches in {@code gpu_acceptance}'s measurements, by model, with where each
 * figure comes from ({@code docs/gpu-acceptance.md}, sources in {@code docs/gpu-acceptance-sources.md}).
 * A figure is judged against these and, separately, against the fleet's median.
 */
final class GpuReferences {
    private GpuReferences() {
    }

    /**
     * One model's references.
     *
     * @param gemmTflops dense bf16 {@code torch.matmul} at its best, as publicly measured (not the spec peak)
     * @param hbmGbps the HBM bandwidth on the spec sheet (a copy counts read + write)
     * @param hostGbps the host-to-device and device-to-host floor of Azure's health checks for the GPU's PCIe generation
     */
    record Reference(String model, double gemmTflops, double hbmGbps, double hostGbps) {
    }

    private static final List<Reference> TABLE = List.of(
            new Reference("H200", 795, 4800, 48),
            new Reference("H100", 795, 3350, 48),
            new Reference("A100", 271, 2039, 21));

    /** The SXM board's references; none for a PCIe or NVL card of the same name (other clocks, other memory). */
    static Optional<Reference> of(String gpuName) {
        String name = gpuName.toUpperCase(Locale.ROOT);
        if (name.contains("PCIE") || name.contains("NVL")) {
            return Optional.empty();
        }
        return TABLE.stream().filter(r -> name.contains(r.model())).findFirst();
    }
}
