package dev.provision.modules.commands;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;

/**
 * {@code raw}: Ansible's way to run a command on a host that has no Python yet. provision never needs
 * Python on a host, so it is {@link ShellModule} without its guards: the text is run by
 * {@code /bin/sh -c} (or {@code executable -c}) and reported "would run" in a dry run.
 */
public final class RawModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("cmd", Type.STRING)
            .optional("executable", Type.STRING)
            .freeForm("cmd")
            .build();

    public RawModule() {
    }

    @Override
    public String name() {
        return "raw";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String cmd = params.string("cmd");
        Command run = ShellModule.script(cmd, params.optString("executable"));
        return Plan.of(Change.of("run: " + cmd.strip(), run));
    }
}
