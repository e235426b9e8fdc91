package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IbCheckModuleTest {
    private static final List<String> SYSFS = List.of("sh", "-c", IbStatus.SYSFS_SCRIPT);
    private final IbCheckModule module = new IbCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeContext context, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), context);
    }

    private static FakeHost noIb() {
        return new FakeHost().probe(SYSFS, new ProbeResult(0, "", "")).probe(List.of("ibstat"), load("h200-1gpu/ibstat.txt").probe());
    }

    @Test
    void hostWithoutInfinibandIsSkippedUnlessRequired() throws Exception {
        Plan plan = plan(new FakeContext(noIb(), controller), Args.of());
        assertVerdict(plan, "ib.ports", Verdict.SKIP);
        assertEquals("no InfiniBand tools/devices", row(plan, "ib.ports").get("detail"));
        assertFalse(failed(plan));
        Plan required = plan(new FakeContext(noIb(), controller), Args.of("required", true));
        assertVerdict(required, "ib.ports", Verdict.FAIL);
    }

    @Test
    void downPortAndSlowPortFailFromSysfs() throws Exception {
        FakeHost host = new FakeHost().probe(SYSFS, load("synthetic/ib-sysfs.txt").probe());
        Plan plan = plan(new FakeContext(host, controller).variable("NCCL_IB_HCA", "=mlx5_0,mlx5_1"), Args.of("expected_rate", 400));
        assertVerdict(plan, "ib.mlx5_0/1", Verdict.PASS);
        assertVerdict(plan, "ib.mlx5_1/1", Verdict.FAIL);
        assertDetail("port is Down/Polling", row(plan, "ib.mlx5_1/1").get("detail"));
        assertVerdict(plan, "ib.mlx5_2/1", Verdict.FAIL);
        assertVerdict(plan, "ib.nccl_ib_hca", Verdict.PASS);
        assertEquals(3, ((List<?>) plan.result().get("ports")).size());
    }

    @Test
    void ibstatIsReadWhenSysfsShowsNothing() throws Exception {
        FakeHost host = new FakeHost().probe(SYSFS, new ProbeResult(0, "", ""))
                .probe(List.of("ibstat"), load("synthetic/ibstat-active-and-down.txt").probe())
                .file(IbCheckModule.NCCL_CONF, "NCCL_DEBUG=WARN\nNCCL_IB_HCA=mlx5_0\n");
        Plan plan = plan(new FakeContext(host, controller), Args.of());
        assertVerdict(plan, "ib.mlx5_0/1", Verdict.PASS);
        assertVerdict(plan, "ib.mlx5_1/1", Verdict.FAIL);
        assertVerdict(plan, "ib.nccl_ib_hca", Verdict.WARN);
        assertTrue(((String) row(plan, "ib.nccl_ib_hca").get("detail")).contains("NCCL_IB_HCA==mlx5_0"));
    }

    @Test
    void ncclIbHcaFromTheEnvironmentWhenNothingElseSaysIt() throws Exception {
        FakeHost host = new FakeHost().probe(SYSFS, load("synthetic/ib-sysfs.txt").probe())
                .probe(List.of("printenv", "NCCL_IB_HCA"), new ProbeResult(1, "", ""));
        Plan plan = plan(new FakeContext(host, controller), Args.of("link_layer", "InfiniBand"));
        assertVerdict(plan, "ib.nccl_ib_hca", Verdict.SKIP);
        assertDetail("link layer is Ethernet", row(plan, "ib.mlx5_2/1").get("detail"));
    }
}
