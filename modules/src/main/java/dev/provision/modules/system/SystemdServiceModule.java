package dev.provision.modules.system;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;

/** {@code systemd_service}: Ansible's newer name of {@link SystemdModule}, the same module. */
public final class SystemdServiceModule implements TaskModule {
    private final SystemdModule systemd = new SystemdModule();

    public SystemdServiceModule() {
    }

    @Override
    public String name() {
        return "systemd_service";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return systemd.params();
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        return systemd.plan(params, context);
    }
}
