package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a healthy node (or pair of nodes) reaches in an NCCL all-reduce, as nccl-tests' bus bandwidth
 * at the plateau: by GPU model, GPUs per node and NVLink SHARP (NVLS) within a node; by the HCAs'
 * line rate across nodes. The figures and their sources are in {@code docs/busbw-expectations.md};
 * a playbook overrides them with {@code expected_busbw}.
 */
final class BusbwTable {
    /** Below this message size busbw is still climbing: a figure measured only below it is not judged a failure. */
    static final long PLATEAU_BYTES = 1L << 30;
    /**
     * Across nodes, the share of the HCAs' line rate an all-reduce reaches (NCCL's protocol and the
     * wire's encoding take the rest); see the sources in the docs.
     */
    static final double WIRE_EFFICIENCY = 0.9;

    private BusbwTable() {
    }

    /**
     * An expected figure.
     *
     * @param gbps bus bandwidth in GB/s
     * @param basis what it is the figure for, shown to the operator ({@code H200, 8 GPUs, NVLS on})
     */
    record Expectation(double gbps, String basis) {
        Expectation {
            requireNonNull(basis, "basis cannot be null");
        }
    }

    /** One row: a GPU model (name substring), a range of GPU counts, NVLS (empty: either). */
    private record Row(List<String> models, int minGpus, int maxGpus, Optional<Boolean> nvls, double gbps, String basis) {
    }

    private static final List<String> HOPPER = List.of("H100", "H200", "H800");
    private static final List<Row> WITHIN_NODE = List.of(
            new Row(HOPPER, 8, 8, Optional.of(true), 480, "8 GPUs over NVSwitch with NVLS"),
            new Row(HOPPER, 7, 7, Optional.of(true), 460, "7 GPUs over NVSwitch with NVLS"),
            new Row(HOPPER, 6, 6, Optional.of(true), 440, "6 GPUs over NVSwitch with NVLS"),
            new Row(HOPPER, 5, 5, Optional.of(true), 420, "5 GPUs over NVSwitch with NVLS"),
            new Row(HOPPER, 5, 8, Optional.of(false), 370, "5-8 GPUs, NVLS off"),
            new Row(HOPPER, 2, 4, Optional.empty(), 370, "NVLink 4, 2-4 GPUs (NVLS or not)"),
            new Row(List.of("A100", "A800"), 2, 8, Optional.empty(), 230, "NVLink 3 over NVSwitch (no NVLS)"));

    /**
     * Within one node, over NVLink/NVSwitch.
     *
     * @param nvls whether NCCL uses NVLink SHARP: true or false when known (NCCL's own log, or
     *     {@code NCCL_NVLS_ENABLE=0}); empty when unknown, read as "on", NCCL's default (it matters
     *     from 5 GPUs up: with 2-4 NVLS gives no more than the ring)
     */
    static Optional<Expectation> withinNode(String model, int gpus, Optional<Boolean> nvls) {
        String name = model.toUpperCase(Locale.ROOT);
        boolean nvlsOn = nvls.orElse(true);
        return WITHIN_NODE.stream()
                .filter(r -> r.models().stream().anyMatch(name::contains))
                .filter(r -> gpus >= r.minGpus() && gpus <= r.maxGpus())
                .filter(r -> r.nvls().isEmpty() || r.nvls().get() == nvlsOn)
                .findFirst()
                .map(r -> new Expectation(r.gbps(), shortModel(name, r) + ", " + r.basis()));
    }

    /**
     * Across nodes: each node's share of the fabric is its HCAs' line rate (Gb/s, as {@code ibstat}
     * gives it) in bytes, times {@link #WIRE_EFFICIENCY}; empty without an active HCA.
     */
    static Optional<Expectation> acrossNodes(int hcas, double rateGbps) {
        if (hcas <= 0 || rateGbps <= 0) {
            return Optional.empty();
        }
        double lineRate = hcas * rateGbps / 8;
        return Optional.of(new Expectation(lineRate * WIRE_EFFICIENCY, String.format(Locale.ROOT,
                "%d x %s Gb/s HCAs: %s GB/s line rate x %s", hcas, Probes.figure(rateGbps), Probes.figure(lineRate),
                Probes.figure(WIRE_EFFICIENCY))));
    }

    private static String shortModel(String name, Row row) {
        return row.models().stream().filter(name::contains).findFirst().orElse(name);
    }
}
