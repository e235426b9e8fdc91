package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ib}: every InfiniBand/RoCE port of every HCA is Active, LinkUp, at the expected rate and
 * link layer. Reads sysfs ({@link IbStatus#SYSFS_SCRIPT}; no tools needed), else {@code ibstat}.
 *
 * <p>Parameters: {@code expected_rate} (Gb/s, optional: a port below it fails), {@code link_layer}
 * (optional: {@code InfiniBand} or {@code Ethernet}), {@code required} (default false: a node
 * without InfiniBand devices is skipped, not failed), {@code nccl_ib_hca} (the value to check;
 * default: the host variable {@code NCCL_IB_HCA}, else the line in {@code /etc/nccl.conf}, else
 * the environment of a probe). A value without the leading {@code =} warns: NCCL matches it as a
 * prefix ({@code mlx5_1} also selects {@code mlx5_10}..). Result: {@code ports}.
 */
public final class IbCheckModule implements TaskModule {
    static final String NCCL_CONF = NcclIbHca.NCCL_CONF;
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("expected_rate", Type.INT)
            .optional("link_layer", Type.STRING)
            .withDefault("required", Type.BOOL, false)
            .optional("nccl_ib_hca", Type.STRING)
            .build();

    public IbCheckModule() {
    }

    @Override
    public String name() {
        return "ib";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        List<IbStatus.Port> ports = ports(context);
        if (ports.isEmpty()) {
            String detail = "no InfiniBand tools/devices";
            report.add(params.bool("required") ? CheckResult.fail("ib.ports", "0 ports", ">= 1 port",
                            detail + ": install rdma-core / infiniband-diags and the HCA driver (lspci | grep -i mellanox)")
                    : CheckResult.skip("ib.ports", detail));
            return report.measured("ports", List.of()).plan();
        }
        Optional<Long> rate = params.optInteger("expected_rate");
        Optional<String> layer = Probes.expectation(params, "link_layer");
        for (IbStatus.Port p : ports) {
            String measured = p.state() + " " + p.physicalState() + " " + Probes.figure(p.rateGbps()) + " Gb/s " + p.linkLayer();
            String expected = "Active LinkUp" + rate.map(r -> " >= " + r + " Gb/s").orElse("") + layer.map(l -> " " + l).orElse("");
            String why = !p.up() ? "port is " + p.state() + "/" + p.physicalState()
                            + ": check the cable and the switch port (ibstat, the subnet manager); reseat or replace the cable"
                    : rate.isPresent() && p.rateGbps() < rate.get() ? "rate " + Probes.figure(p.rateGbps()) + " Gb/s below " + rate.get()
                            + ": reseat or replace the cable or transceiver, and check the switch port's speed"
                    : layer.isPresent() && !layer.get().equalsIgnoreCase(p.linkLayer()) ? "link layer is " + p.linkLayer()
                            + ": set the port's link type (mlxconfig LINK_TYPE_P<n>) or fix link_layer"
                    : "";
            report.add(CheckResult.of(why.isEmpty(), "ib." + p.name(), measured, expected, why));
        }
        report.add(ncclIbHca(params, context));
        return report.measured("ports", ports.stream().map(IbCheckModule::toMap).toList()).plan();
    }

    /** The node's ports from sysfs, else ibstat; none without InfiniBand/RoCE devices. */
    static List<IbStatus.Port> ports(TaskContext context) throws ModuleException {
        ProbeResult sysfs = context.host().probe("sh", "-c", IbStatus.SYSFS_SCRIPT);
        List<IbStatus.Port> ports = sysfs.ok() ? IbStatus.parseSysfs(sysfs.stdout()) : List.of();
        if (!ports.isEmpty()) {
            return ports;
        }
        ProbeResult ibstat = context.host().probe("ibstat");
        return ibstat.ok() ? IbStatus.parseIbstat(ibstat.stdout()) : List.of();
    }

    private static CheckResult ncclIbHca(Params params, TaskContext context) throws ModuleException {
        Optional<String> value = NcclIbHca.lookup(params, context);
        if (value.isEmpty()) {
            return CheckResult.skip("ib.nccl_ib_hca", "NCCL_IB_HCA not set: NCCL uses every HCA");
        }
        String v = value.get();
        return IbStatus.ncclIbHcaPitfall(v).map(w -> CheckResult.warn("ib.nccl_ib_hca", v, "=NAMES", w))
                .orElse(CheckResult.pass("ib.nccl_ib_hca", v, "=NAMES"));
    }

    private static Map<String, Object> toMap(IbStatus.Port p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("port", p.name());
        m.put("state", p.state());
        m.put("physical_state", p.physicalState());
        m.put("rate_gbps", p.rateGbps());
        m.put("link_layer", p.linkLayer());
        return m;
    }
}
