package dev.provision.modules.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModprobeModuleTest {
    /** /proc/modules as the kernel writes it (name size refcount users state address). */
    private static final String PROC_MODULES = """
            nvidia_uvm 4956160 0 - Live 0x0000000000000000 (POE)
            nvidia 54882304 1 nvidia_uvm, Live 0x0000000000000000 (POE)
            ib_core 454656 0 - Live 0x0000000000000000
            """;
    private final ModprobeModule module = new ModprobeModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    @Test
    void loadsAModuleThatIsNotLoadedWithItsParameters() throws Exception {
        Plan plan = plan(new FakeHost().file("/proc/modules", PROC_MODULES), Args.of("name", "nvidia-peermem", "params", "peerdirect_support=1"));
        assertEquals("load kernel module nvidia-peermem (peerdirect_support=1)", plan.changes().get(0).summary());
        assertEquals(List.of("modprobe", "--", "nvidia-peermem", "peerdirect_support=1"),
                ((Command.Exec) plan.changes().get(0).commands().get(0)).argv());
    }

    @Test
    void aLoadedModuleIsConvergedWhateverItsDashes() throws Exception {
        Plan plan = plan(new FakeHost().file("/proc/modules", PROC_MODULES), Args.of("name", "nvidia-uvm"));
        assertTrue(plan.isEmpty());
        assertEquals("kernel module nvidia-uvm is loaded", plan.reason());
    }

    @Test
    void aBuiltInModuleIsPresentAndCannotBeRemoved() throws Exception {
        FakeHost host = new FakeHost().file("/proc/modules", PROC_MODULES).directory("/sys/module/br_netfilter");
        assertEquals("kernel module br_netfilter is built into the kernel", plan(host, Args.of("name", "br_netfilter")).reason());
        assertThrows(ModuleException.class, () -> plan(host, Args.of("name", "br_netfilter", "state", "absent")));
    }

    @Test
    void unloadsALoadedModuleAndLeavesAnAbsentOne() throws Exception {
        Plan unload = plan(new FakeHost().file("/proc/modules", PROC_MODULES), Args.of("name", "ib_core", "state", "absent"));
        assertEquals(List.of("modprobe", "-r", "--", "ib_core"), ((Command.Exec) unload.changes().get(0).commands().get(0)).argv());
        assertTrue(plan(new FakeHost().file("/proc/modules", PROC_MODULES), Args.of("name", "nouveau", "state", "absent")).isEmpty());
    }

    @Test
    void aNameThatIsNotAModuleNameIsRefused() {
        assertThrows(ModuleException.class, () -> plan(new FakeHost(), Args.of("name", "-r nvidia")));
    }

    @Test
    void aStateOtherThanPresentOrAbsentIsRefusedBeforePlanning() {
        assertThrows(dev.provision.modules.spi.ParamException.class,
                () -> module.params().validate(Args.of("name", "nvidia_peermem", "state", "loaded")));
        assertThrows(dev.provision.modules.spi.ParamException.class,
                () -> module.params().validate(Args.of("name", "nvidia_peermem", "present", "yes")), "present is a value, not a parameter");
    }
}
