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
import java.util.Optional;

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
        if (cmd.isBlank()) {
            throw new ModuleException("no command given");
        }
        Optional<String> executable = params.optString("executable");
        if (executable.isPresent() && !executable.get().startsWith("/")) {
            throw new ModuleException("executable must be an absolute path, got '" + executable.get() + "'");
        }
        Command run = executable.isPresent() ? Command.Exec.of(executable.get(), "-c", cmd) : new Command.Shell(cmd);
        return Plan.of(Change.of("run: " + cmd.strip(), run));
    }
}
