package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.output;
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
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CudaStackCheckModuleTest {
    private final CudaStackCheckModule module = new CudaStackCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost h200() {
        return new FakeHost()
                .file(DriverVersion.PATH, output("h200-1gpu/driver-version.txt"))
                .probe(List.of("nvidia-smi"), load("h200-1gpu/nvidia-smi.txt").probe())
                .probe(List.of("nvcc", "-V"), load("h200-1gpu/nvcc.txt").probe())
                .probe(List.of("python3", "-c", TorchVersions.SCRIPT), load("h200-1gpu/torch-versions.txt").probe());
    }

    @Test
    void realH200StackMeetsItsExpectations() throws Exception {
        Plan plan = plan(h200(), Args.of("expected_driver", "580.159", "expected_cuda", "13.0",
                "expected_torch", "2.11", "expected_cudnn", "91900", "expected_nccl", "2.28"));
        assertFalse(failed(plan), plan.reason());
        assertEquals(Map.of("driver", "580.159.04", "driver_cuda", "13.0", "toolkit_cuda", "13.0", "torch", "2.11.0+cu130",
                "torch_cuda", "13.0", "cudnn", "9.19.0", "nccl", "2.28.9"), plan.result().get("versions"));
        assertVerdict(plan, "cuda.toolkit_vs_driver", Verdict.PASS);
        assertVerdict(plan, "torch.cuda_vs_driver", Verdict.PASS);
        assertVerdict(plan, "cudnn.version", Verdict.PASS);
    }

    @Test
    void differentExpectedVersionsFail() throws Exception {
        Plan plan = plan(h200(), Args.of("expected_torch", "2.10", "expected_nccl", "2.27.3"));
        assertTrue(failed(plan));
        assertVerdict(plan, "torch.version", Verdict.FAIL);
        assertVerdict(plan, "nccl.version", Verdict.FAIL);
        assertVerdict(plan, "cuda.driver", Verdict.PASS);
    }

    @Test
    void torchBuiltForANewerCudaMajorThanTheDriverFails() throws Exception {
        FakeHost host = h200().probe(List.of("python3", "-c", TorchVersions.SCRIPT), new ProbeResult(0,
                "torch=2.12.0+cu140\ncuda=14.0\ncudnn=91900\nnccl=2.29.1\ncuda_available=False\ndevice_count=0\n", ""));
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "torch.cuda_vs_driver", Verdict.FAIL);
        assertVerdict(plan, "torch.cuda_available", Verdict.FAIL);
    }

    @Test
    void newerMinorWarnsUnderMinorVersionCompatibility() {
        assertEquals(Verdict.WARN, CudaStackCheckModule.chain("c", "PyTorch", "12.8", Optional.of("12.4")).verdict());
        assertEquals(Verdict.PASS, CudaStackCheckModule.chain("c", "PyTorch", "12.4", Optional.of("13.0")).verdict());
        assertEquals(Verdict.FAIL, CudaStackCheckModule.chain("c", "PyTorch", "13.0", Optional.of("12.9")).verdict());
    }

    @Test
    void noNvccSkipsTheToolkitNoDriverFailsAndItsCudaIsNotJudged() throws Exception {
        FakeHost host = new FakeHost()
                .probe(List.of("nvidia-smi"), load("synthetic/nvidia-smi-driver-missing.txt").probe())
                .probe(List.of("nvcc", "-V"), new ProbeResult(127, "", "sh: 1: nvcc: not found"))
                .probe(List.of(CudaStackCheckModule.DEFAULT_NVCC_PATH, "-V"), new ProbeResult(127, "", "not found"))
                .probe(List.of("python3", "-c", TorchVersions.SCRIPT), new ProbeResult(3, "error=No module named 'torch'\n", ""));
        Plan plan = plan(host, Args.of());
        assertVerdict(plan, "cuda.toolkit", Verdict.SKIP);
        assertVerdict(plan, "cuda.driver", Verdict.FAIL);
        assertVerdict(plan, "cuda.driver_cuda", Verdict.UNKNOWN);
        assertVerdict(plan, "torch.version", Verdict.FAIL);
        assertTrue(failed(plan));
    }
}
