package dev.provision.modules.system;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;

/**
 * {@code yum} (Ansible's {@code ansible.builtin.yum}): {@link DnfModule}'s parameters and planning
 * with yum; on a host that has dnf (where yum is dnf) it runs dnf, as Ansible's yum does.
 */
public final class YumModule implements TaskModule {
    private final DnfModule yum = new DnfModule("yum");

    public YumModule() {
    }

    @Override
    public String name() {
        return yum.name();
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return yum.params();
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        return yum.plan(params, context);
    }
}
