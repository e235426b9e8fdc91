package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckReportTest {

    @Test
    void planCarriesTheTypedTableAndTheMeasuredValues() {
        Plan plan = new CheckReport("gpu")
                .add(CheckResult.pass("gpu.count", "8", "8"))
                .add(CheckResult.fail("gpu.ecc_volatile_uncorrected", "3", "0", "GPU 2: 3"))
                .add(CheckResult.skip("gpu.retired_pages_pending", "not reported by the driver"))
                .measured("gpu_count", 8L)
                .plan();
        assertEquals("gpu: 1 passed, 1 failed, 1 skipped: gpu.ecc_volatile_uncorrected (GPU 2: 3)", plan.reason());
        assertTrue(new CheckReport("gpu").add(CheckResult.fail("gpu.count", "7", "8", "one missing")).failed());
        assertEquals(Map.of("gpu_count", 8L), plan.result(), "the result holds the measured values only");
        assertEquals(List.of(CheckResult.pass("gpu.count", "8", "8"), CheckResult.fail("gpu.ecc_volatile_uncorrected", "3", "0", "GPU 2: 3"),
                CheckResult.skip("gpu.retired_pages_pending", "not reported by the driver")), plan.checks());
        assertEquals(Map.of("check", "gpu.count", "measured", "8", "expected", "8", "verdict", "pass", "detail", ""),
                plan.checks().get(0).toMap());
    }

    @Test
    void rowsRoundTripThroughMaps() {
        CheckResult row = CheckResult.warn("ib.nccl_ib_hca", "mlx5_1", "=NAMES", "prefix");
        assertEquals(row, CheckResult.fromMap(row.toMap()));
        assertThrows(IllegalArgumentException.class, () -> CheckResult.fromMap(Map.of("check", "x")));
    }

    @Test
    void passingReportIsNotFailed() {
        CheckReport report = new CheckReport("clock").add(CheckResult.pass("clock.chronyd", "running", "running"));
        Plan plan = report.plan();
        assertFalse(report.failed());
        assertEquals(Verdict.PASS, plan.checks().get(0).verdict());
        assertEquals("clock: 1 passed", plan.reason());
    }
}
