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
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaCheckModuleTest {
    private static final List<String> SYSFS = List.of("sh", "-c", IbStatus.SYSFS_SCRIPT);
    private final RdmaCheckModule module = new RdmaCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    /** mlx5_0 (IB) and mlx5_2 (RoCE) active, mlx5_1 down. */
    private static FakeHost node(String procModules) {
        return new FakeHost().probe(SYSFS, load("synthetic/ib-sysfs.txt").probe())
                .probe(RdmaCheckModule.MODULES, load(procModules).probe())
                .probe(1, "", "", "printenv", "NCCL_IB_HCA");
    }

    @Test
    void peermemLoadedAndNcclIbHcaUnsetPass() throws Exception {
        Plan plan = plan(node("synthetic/proc-modules-peermem.txt"), Args.of());
        assertFalse(failed(plan), plan.reason());
        assertEquals("nvidia_peermem loaded", row(plan, "rdma.peermem").get("measured"));
        assertEquals("unset", row(plan, "rdma.nccl_ib_hca").get("measured"));
        assertEquals(List.of("mlx5_0", "mlx5_2"), plan.result().get("active_hcas"));
    }

    @Test
    void missingPeermemFailsOrWarnsWhenNotRequired() throws Exception {
        Plan plan = plan(node("synthetic/proc-modules-no-peermem.txt"), Args.of());
        assertTrue(failed(plan));
        Map<String, Object> peermem = row(plan, "rdma.peermem");
        assertEquals("fail", peermem.get("verdict"));
        assertEquals("not loaded", peermem.get("measured"));
        assertTrue(((String) peermem.get("detail")).contains("modprobe nvidia_peermem"));
        assertVerdict(plan(node("synthetic/proc-modules-no-peermem.txt"), Args.of("require_peermem", false)), "rdma.peermem", Verdict.WARN);
    }

    @Test
    void ncclIbHcaNamingOneOfTwoActiveHcasFails() throws Exception {
        Plan plan = plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "=mlx5_0"));
        Map<String, Object> hca = row(plan, "rdma.nccl_ib_hca");
        assertEquals("fail", hca.get("verdict"));
        assertEquals("NCCL_IB_HCA==mlx5_0 (1 of 2 active)", hca.get("measured"));
        assertDetail("leaves out active mlx5_2: NCCL uses 1 of 2 rails", hca.get("detail"));
    }

    @Test
    void ncclIbHcaNamingAnAbsentHcaFailsAndPrefixesCover() throws Exception {
        assertDetail("names mlx5_9, not on this node",
                row(plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "=mlx5_0,mlx5_2,mlx5_9")), "rdma.nccl_ib_hca").get("detail"));
        assertVerdict(plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "mlx5")), "rdma.nccl_ib_hca", Verdict.PASS);
        assertVerdict(plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "=mlx5_0:1,mlx5_2:1")), "rdma.nccl_ib_hca", Verdict.PASS);
        assertVerdict(plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "=mlx5_0:2,mlx5_2:1")), "rdma.nccl_ib_hca", Verdict.FAIL);
    }

    @Test
    void anHcaExcludedOnPurposeIsNotMissed() throws Exception {
        Plan plan = plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "^=mlx5_2", "excluded", List.of("mlx5_2")));
        assertVerdict(plan, "rdma.nccl_ib_hca", Verdict.PASS);
        assertVerdict(plan(node("synthetic/proc-modules-peermem.txt"), Args.of("nccl_ib_hca", "^=mlx5_2")), "rdma.nccl_ib_hca", Verdict.FAIL);
    }

    @Test
    void nodeWithoutInfinibandSkips() throws Exception {
        FakeHost host = new FakeHost().probe(0, "", "", "sh", "-c", IbStatus.SYSFS_SCRIPT)
                .probe(load("h200-1gpu/ibstat.txt").exitCode(), load("h200-1gpu/ibstat.txt").output(), "", "ibstat");
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "rdma.peermem", Verdict.SKIP);
        assertEquals(1, ChecksFixtures.rows(plan).size());
    }

    @Test
    void parsesNcclIbHcaAsDocumented() {
        NcclIbHca v = NcclIbHca.parse("^=mlx5_1:1,mlx5_4");
        assertTrue(v.exclude());
        assertTrue(v.exact());
        assertEquals(List.of(new NcclIbHca.Entry("mlx5_1", java.util.OptionalInt.of(1)), new NcclIbHca.Entry("mlx5_4", java.util.OptionalInt.empty())),
                v.entries());
        assertFalse(v.selects("mlx5_1", 1));
        assertTrue(v.selects("mlx5_1", 2));
        assertTrue(v.selects("mlx5_10", 1), "exact names: mlx5_1 does not exclude mlx5_10");
        assertTrue(NcclIbHca.parse("mlx5_1").selects("mlx5_10", 1), "a prefix does select it");
    }
}
