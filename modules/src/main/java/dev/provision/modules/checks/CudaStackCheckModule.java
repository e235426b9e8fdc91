package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code cuda_stack}: one consistent CUDA stack. Reads the loaded driver
 * ({@code /proc/driver/nvidia/version}), the CUDA version the driver supports (the {@code nvidia-smi}
 * banner), the toolkit ({@code nvcc -V}, also tried at {@code /usr/local/cuda/bin/nvcc}), and
 * PyTorch with its CUDA, cuDNN and NCCL as the node's Python sees them
 * ({@link TorchVersions#SCRIPT} run with {@code python -c}).
 *
 * <p>The chain: the driver's CUDA must be at least the toolkit's and PyTorch's. A newer major fails;
 * a newer minor of the same major warns (CUDA minor-version compatibility runs it, but PTX JIT and
 * some features need the newer driver).
 *
 * <p>Parameters (all optional): {@code expected_driver}, {@code expected_cuda} (toolkit and
 * {@code torch.version.cuda}), {@code expected_torch}, {@code expected_cudnn} ({@code 9.19} or
 * {@code 91900}), {@code expected_nccl}: a version matches when every component written matches
 * ({@code 580} matches {@code 580.159.04}); {@code python} (default {@code python3}).
 * Result {@code versions}: driver, driver_cuda, toolkit_cuda, torch, torch_cuda, cudnn, nccl
 * (empty when absent), for the fleet comparison.
 */
public final class CudaStackCheckModule implements TaskModule, FleetCheck {
    static final String DEFAULT_NVCC_PATH = "/usr/local/cuda/bin/nvcc";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("expected_driver", Type.STRING)
            .optional("expected_cuda", Type.STRING)
            .optional("expected_torch", Type.STRING)
            .optional("expected_cudnn", Type.STRING)
            .optional("expected_nccl", Type.STRING)
            .withDefault("python", Type.STRING, "python3")
            .build();

    public CudaStackCheckModule() {
    }

    @Override
    public String name() {
        return "cuda_stack";
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
        Map<String, Object> versions = new LinkedHashMap<>();

        ProbeResult smi = context.host().probe("nvidia-smi");
        String smiOut = Probes.output(smi);
        Optional<String> driver = context.host().readFile(DriverVersion.PATH)
                .flatMap(b -> DriverVersion.parse(new String(b, StandardCharsets.UTF_8)))
                .or(() -> NvidiaSmiHeader.driverVersion(smiOut));
        Optional<String> driverCuda = smi.ok() ? NvidiaSmiHeader.cudaVersion(smiOut) : Optional.empty();
        versions.put("driver", driver.orElse(""));
        versions.put("driver_cuda", driverCuda.orElse(""));
        report.add(driver.map(d -> expect("cuda.driver", d, Probes.expectation(params, "expected_driver")))
                .orElse(CheckResult.fail("cuda.driver", "none", Probes.expectation(params, "expected_driver").orElse("loaded"),
                        "NVIDIA driver not loaded (" + DriverVersion.PATH + " missing): install or load it (modprobe nvidia), then reboot")));
        report.add(driverCuda.map(c -> CheckResult.pass("cuda.driver_cuda", c, "-"))
                .orElse(new CheckResult("cuda.driver_cuda", "unknown", "a CUDA version", Verdict.UNKNOWN,
                        "could not judge: nvidia-smi failed: " + Probes.firstLine(smi) + " (see cuda.driver and the gpu check)")));

        Optional<String> toolkit = toolkit(context);
        versions.put("toolkit_cuda", toolkit.orElse(""));
        if (toolkit.isPresent()) {
            report.add(expect("cuda.toolkit", toolkit.get(), Probes.expectation(params, "expected_cuda")));
            report.add(chain("cuda.toolkit_vs_driver", "the toolkit", toolkit.get(), driverCuda));
        } else {
            report.add(CheckResult.skip("cuda.toolkit", "nvcc not installed"));
        }

        torch(params, context, report, versions, driverCuda);
        return report.measured("versions", versions).plan();
    }

    private static Optional<String> toolkit(TaskContext context) throws ModuleException {
        ProbeResult nvcc = context.host().probe("nvcc", "-V");
        if (nvcc.exitCode() == Probes.NOT_FOUND) {
            nvcc = context.host().probe(DEFAULT_NVCC_PATH, "-V");
        }
        return nvcc.ok() ? NvccVersion.parse(nvcc.stdout()) : Optional.empty();
    }

    private static void torch(Params params, TaskContext context, CheckReport report, Map<String, Object> versions,
                              Optional<String> driverCuda) throws ModuleException {
        String python = Probes.plainName("python", params.string("python"));
        ProbeResult r = context.host().probe(python, "-c", TorchVersions.SCRIPT);
        TorchVersions torch;
        try {
            torch = TorchVersions.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            String why = (r.exitCode() == Probes.NOT_FOUND ? python + " not found" : e.getMessage())
                    + ": install PyTorch for " + python + " (or set python_interpreter)";
            report.add(CheckResult.fail("torch.version", "none", Probes.expectation(params, "expected_torch").orElse("importable"), why));
            for (String key : new String[] {"torch", "torch_cuda", "cudnn", "nccl"}) {
                versions.put(key, "");
            }
            return;
        }
        versions.put("torch", torch.torch());
        versions.put("torch_cuda", torch.cuda());
        versions.put("cudnn", torch.cudnn());
        versions.put("nccl", torch.nccl());
        report.add(expect("torch.version", torch.torch(), Probes.expectation(params, "expected_torch")));
        if (torch.cuda().isEmpty()) {
            report.add(CheckResult.fail("torch.cuda", "none", Probes.expectation(params, "expected_cuda").orElse("a CUDA build"),
                    "PyTorch is a CPU-only build: install a CUDA build (pip install torch --index-url https://download.pytorch.org/whl/cu<ver>)"));
        } else {
            report.add(expect("torch.cuda", torch.cuda(), Probes.expectation(params, "expected_cuda")));
            report.add(chain("torch.cuda_vs_driver", "PyTorch", torch.cuda(), driverCuda));
        }
        report.add(CheckResult.of(torch.cudaAvailable() && torch.deviceCount() > 0, "torch.cuda_available",
                torch.cudaAvailable() + ", " + torch.deviceCount() + " devices", "True, >= 1 device",
                "torch.cuda.is_available() is false or sees no device: check the driver (nvidia-smi), CUDA_VISIBLE_DEVICES and that"
                        + " the driver supports PyTorch's CUDA"));
        report.add(present("cudnn.version", torch.cudnn(), Probes.expectation(params, "expected_cudnn").map(CudaStackCheckModule::cudnnExpected)));
        report.add(present("nccl.version", torch.nccl(), Probes.expectation(params, "expected_nccl")));
    }

    /** A raw cuDNN code ({@code 91900}) written by the user means the dotted version. */
    private static String cudnnExpected(String expected) {
        return expected.strip().matches("\\d{4,}") ? TorchVersions.cudnn(expected.strip()) : expected;
    }

    private static CheckResult expect(String check, String measured, Optional<String> expected) {
        return expected.map(e -> CheckResult.of(Versions.matches(measured, e), check, measured, e,
                        measured + " is not " + e + ": install " + e + " (the training image's version), or fix the expectation"))
                .orElse(CheckResult.pass(check, measured, "-"));
    }

    private static CheckResult present(String check, String measured, Optional<String> expected) {
        if (measured.isEmpty()) {
            return CheckResult.fail(check, "none", expected.orElse("present"), "not available to PyTorch: install a PyTorch build with it");
        }
        return expect(check, measured, expected);
    }

    /** The driver's CUDA must cover {@code version}: a newer major fails, a newer minor warns. */
    static CheckResult chain(String check, String what, String version, Optional<String> driverCuda) {
        if (driverCuda.isEmpty()) {
            return CheckResult.unknown(check, "could not judge: the driver's CUDA version is unknown (see cuda.driver_cuda)");
        }
        String driver = driverCuda.get();
        String expected = "<= " + driver;
        int majorVersion = Versions.major(version).orElse(0);
        int majorDriver = Versions.major(driver).orElse(0);
        if (majorVersion > majorDriver) {
            return CheckResult.fail(check, version, expected, what + " needs CUDA " + version + ", the driver supports up to " + driver
                    + ": upgrade the driver, or install a build for CUDA " + driver);
        }
        if (Versions.compare(version, driver) > 0) {
            return CheckResult.warn(check, version, expected, what + " is newer than the driver's CUDA " + driver
                    + ": runs only under minor-version compatibility (no PTX JIT): upgrade the driver when the node is drained");
        }
        return CheckResult.pass(check, version, expected);
    }

    /** The fleet step: one CUDA stack (driver, CUDA, torch, cuDNN, NCCL) everywhere; differing nodes are named. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        return Fleet.sameEverywhere("cuda_stack.same_as_fleet", resultsByHost, r -> r.get("versions") instanceof Map<?, ?> v
                ? java.util.Optional.of(new java.util.TreeMap<>(v).toString()) : java.util.Optional.empty());
    }
}
