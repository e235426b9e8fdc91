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
import dev.provision.modules.text.ShellWords;
import java.util.Optional;

/**
 * {@code shell}: runs a script the user wrote with {@code /bin/sh -c} (or {@code executable -c}).
 * The script is the user's own text; values from variables belong in {@code command} with
 * {@code argv}, or quoted with {@code | quote} in the template.
 *
 * <p>Parameters (Ansible's names): {@code cmd}, the free-form string (required);
 * {@code creates} / {@code removes} as for {@code command}; {@code chdir}, entered with a quoted
 * {@code cd DIR || exit} line before the script; {@code executable}, an absolute path to another shell.
 */
public final class ShellModule implements TaskModule {
    /** Ansible 2.10-2.13's switch for its "consider using the X module" hints, removed in 2.14; it changed nothing on the host. */
    static final String WARN_INSTEAD = "it only silenced Ansible's hints (removed in Ansible 2.14); provision gives none, remove it";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("cmd", Type.STRING)
            .optional("creates", Type.STRING)
            .optional("removes", Type.STRING)
            .optional("chdir", Type.STRING)
            .optional("executable", Type.STRING)
            .freeForm("cmd")
            .ignored("warn", WARN_INSTEAD)
            .build();


    public ShellModule() {
    }

    @Override
    public String name() {
        return "shell";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /**
     * {@code text} run by {@code /bin/sh -c}, or by {@code executable -c} (an absolute path); refuses a
     * blank text. The one way {@code shell} and {@code raw} run what the user wrote.
     */
    static Command script(String text, Optional<String> executable) throws ModuleException {
        if (text.isBlank()) {
            throw new ModuleException("no command given");
        }
        if (executable.isPresent() && !executable.get().startsWith("/")) {
            throw new ModuleException("executable must be an absolute path, got '" + executable.get() + "'");
        }
        return executable.isPresent() ? Command.Exec.of(executable.get(), "-c", text) : new Command.Shell(text);
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String cmd = params.string("cmd");
        Optional<String> executable = params.optString("executable");
        script(cmd, executable); // refuses a blank command or a relative executable before anything else
        Optional<String> skip = RunGuards.skipReason(params, context.host());
        if (skip.isPresent()) {
            return Plan.converged(skip.get());
        }
        Optional<String> chdir = params.optString("chdir");
        // "cd DIR || exit" on its own line rather than "cd DIR && ": with a multi-line script, "&&" would
        // guard only the first line and the rest would run in the wrong directory when cd fails.
        String script = chdir.map(d -> "cd " + ShellWords.quote(d) + " || exit\n").orElse("") + cmd;
        Command run = script(script, executable);
        return Plan.of(Change.of("run: " + cmd.strip() + chdir.map(d -> " (in " + d + ")").orElse(""), run));
    }
}
