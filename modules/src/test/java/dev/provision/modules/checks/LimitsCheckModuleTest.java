package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ModuleException;
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

class LimitsCheckModuleTest {
    private final LimitsCheckModule module = new LimitsCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost answering(List<String> argv, String out) {
        return new FakeHost().probe(argv, new ProbeResult(0, out, ""));
    }

    @Test
    void freshLoginSessionWithHighLimitsPasses() throws Exception {
        Plan plan = plan(answering(List.of("runuser", "-l", "root", "-c", "ulimit -n; ulimit -l"), "1048576\nunlimited\n"), Args.of());
        assertFalse(failed(plan), plan.reason());
        assertEquals("1048576", plan.result().get("nofile"));
    }

    @Test
    void lowNofileAndBoundedMemlockFail() throws Exception {
        Plan plan = plan(answering(List.of("runuser", "-l", "root", "-c", "ulimit -n; ulimit -l"), "1024\n8192\n"), Args.of());
        assertTrue(failed(plan));
        assertVerdict(plan, "limits.nofile", Verdict.FAIL);
        assertVerdict(plan, "limits.memlock", Verdict.FAIL);
    }

    @Test
    void memlockMinimumAndSuSession() throws Exception {
        Plan plan = plan(answering(List.of("su", "-", "train", "-c", "ulimit -n; ulimit -l"), "65535\n16777216\n"),
                Args.of("session", "su", "user", "train", "min_memlock", 8388608));
        assertFalse(failed(plan), plan.reason());
    }

    @Test
    void loginShellSessionRunsShLc() throws Exception {
        Plan plan = plan(answering(List.of("sh", "-lc", "ulimit -n; ulimit -l"), "20000\nunlimited\n"), Args.of("session", "shell"));
        assertVerdict(plan, "limits.nofile", Verdict.FAIL);
    }

    @Test
    void sessionThatCannotOpenIsNotJudged() throws Exception {
        FakeHost host = new FakeHost().probe(List.of("runuser", "-l", "root", "-c", "ulimit -n; ulimit -l"),
                new ProbeResult(1, "", "runuser: may not be used by non-root users"));
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "limits.session", Verdict.UNKNOWN);
    }

    @Test
    void userThatLooksLikeAnOptionIsRefused() {
        assertThrows(ModuleException.class, () -> plan(new FakeHost(), Args.of("user", "-froot")));
    }
}
