package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code modprobe} (Ansible's {@code community.general.modprobe}): a kernel module loaded
 * ({@code state: present}, with {@code params}) or not ({@code absent}). Loaded means listed in
 * {@code /proc/modules} or present under {@code /sys/module/} (built into the kernel: nothing to load,
 * and nothing {@code modprobe -r} could remove). Names compare with {@code -} and {@code _} alike, as
 * the kernel does. GPU nodes load {@code nvidia_peermem} this way for GPUDirect RDMA.
 */
public final class ModprobeModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING)
            .choice("state", "present", "present", "absent")
            .withDefault("params", Type.STRING, "")
            .build();

    public ModprobeModule() {
    }

    @Override
    public String name() {
        return "modprobe";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = params.string("name").strip();
        if (!name.matches("[A-Za-z0-9_-]+")) {
            throw new ModuleException("name: '" + name + "' is not a kernel module name (letters, digits, '_' and '-')");
        }
        String kernelName = name.replace('-', '_');
        String modules = context.host().readFile("/proc/modules").map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
        boolean listed = modules.lines().map(l -> l.split(" ", 2)[0]).anyMatch(kernelName::equals);
        boolean builtIn = !listed && context.host().stat("/sys/module/" + kernelName).isPresent();
        boolean present = params.string("state").equals("present");
        if (present) {
            if (listed || builtIn) {
                return Plan.converged("kernel module " + name + (builtIn ? " is built into the kernel" : " is loaded"));
            }
            List<String> argv = new ArrayList<>(List.of("modprobe", "--", name));
            String extra = params.string("params").strip();
            if (!extra.isEmpty()) {
                argv.addAll(Arrays.asList(extra.split("\\s+")));
            }
            return Plan.of(Change.of("load kernel module " + name + (extra.isEmpty() ? "" : " (" + extra + ")"),
                    Command.Exec.of(argv.toArray(String[]::new))));
        }
        if (builtIn) {
            throw new ModuleException("kernel module " + name + " is built into the kernel: it cannot be removed");
        }
        if (!listed) {
            return Plan.converged("kernel module " + name + " is not loaded");
        }
        return Plan.of(Change.of("unload kernel module " + name, Command.Exec.of("modprobe", "-r", "--", name)));
    }
}
