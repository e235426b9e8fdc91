package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.provision.modules.spi.Plan;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckReportTest {

    @Test
    void planCarriesTheTableTheFailedFlagAndMeasuredValues() {
        Plan plan = new CheckReport("gpu")
                .add(CheckResult.pass("gpu.count", "8", "8"))
                .add(CheckResult.fail("gpu.ecc_volatile_uncorrected", "3", "0", "GPU 2: 3"))
                .add(CheckResult.skip("gpu.retired_pages_pending", "not reported by the driver"))
                .measured("gpu_count", 8L)
                .plan();
        assertEquals("gpu: 1 passed, 1 failed, 1 skipped: gpu.ecc_volatile_uncorrected (GPU 2: 3)", plan.reason());
        assertEquals(true, plan.result().get(CheckReport.FAILED));
        assertEquals(8L, plan.result().get("gpu_count"));
        assertEquals(Map.of("check", "gpu.count", "measured", "8", "expected", "8", "verdict", "pass", "detail", ""),
                ((List<?>) plan.result().get(CheckReport.CHECKS)).get(0));
    }

    @Test
    void rowsRoundTripThroughMaps() {
        CheckResult row = CheckResult.warn("ib.nccl_ib_hca", "mlx5_1", "=NAMES", "prefix");
        assertEquals(row, CheckResult.fromMap(row.toMap()));
        assertThrows(IllegalArgumentException.class, () -> CheckResult.fromMap(Map.of("check", "x")));
    }

    @Test
    void passingReportIsNotFailed() {
        Plan plan = new CheckReport("clock").add(CheckResult.pass("clock.chronyd", "running", "running")).plan();
        assertEquals(false, plan.result().get(CheckReport.FAILED));
        assertEquals("clock: 1 passed", plan.reason());
    }
}
