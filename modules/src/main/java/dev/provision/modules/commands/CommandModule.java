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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code command}: runs a program with an argument vector; no shell ever sees it, so pipes,
 * redirections and {@code $VARS} are plain words (use {@code shell} for those).
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code cmd}, the free-form string ({@code command: ls -l /tmp}), split into words like a
 *       POSIX shell would without expanding anything ({@link ShellWords#split}); or {@code argv},
 *       a list of words. Exactly one is required.
 *   <li>{@code creates}: skip when this path exists; {@code removes}: skip when it does not.
 *   <li>{@code chdir}: the working directory, entered with {@code env -C DIR --} (GNU coreutils).
 *   <li>{@code stdin}: text fed to the program; {@code stdin_add_newline} (default true) ends it
 *       with a newline.
 * </ul>
 */
public final class CommandModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("cmd", Type.STRING)
            .optional("argv", Type.LIST)
            .optional("creates", Type.STRING)
            .optional("removes", Type.STRING)
            .optional("chdir", Type.STRING)
            .optional("stdin", Type.STRING)
            .withDefault("stdin_add_newline", Type.BOOL, true)
            .freeForm("cmd")
            // Ansible 2.4 and later warn and run the command without it
            .ignored("executable", "the command runs without a shell; use the shell module to choose one")
            .ignored("warn", ShellModule.WARN_INSTEAD)
            .mutuallyExclusive("cmd", "argv")
            .requiredOneOf("cmd", "argv")
            .build();

    public CommandModule() {
    }

    @Override
    public String name() {
        return "command";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        List<String> argv = argv(params);
        String shown = params.optString("cmd").orElseGet(() -> ShellWords.join(argv)).strip();
        Optional<String> skip = RunGuards.skipReason(params, context.host());
        if (skip.isPresent()) {
            return Plan.converged(skip.get());
        }
        List<String> full = new ArrayList<>();
        Optional<String> chdir = params.optString("chdir");
        if (chdir.isPresent()) {
            // env changes directory without a shell; "--" stops a program name that starts with "-" being read as an option
            full.addAll(List.of("env", "-C", chdir.get(), "--"));
        }
        full.addAll(argv);
        byte[] stdin = params.optString("stdin")
                .map(s -> params.bool("stdin_add_newline") && !s.endsWith("\n") ? s + "\n" : s)
                .map(s -> s.getBytes(StandardCharsets.UTF_8))
                .orElse(new byte[0]);
        String summary = "run: " + shown + chdir.map(d -> " (in " + d + ")").orElse("");
        return Plan.of(Change.of(summary, new Command.Exec(full, stdin)));
    }

    private static List<String> argv(Params params) throws ModuleException {
        List<String> argv;
        if (params.has("argv")) {
            argv = params.list("argv").stream().map(String::valueOf).toList();
        } else {
            try {
                argv = ShellWords.split(params.string("cmd"));
            } catch (IllegalArgumentException e) {
                throw new ModuleException("cmd: " + e.getMessage(), e);
            }
        }
        if (argv.isEmpty()) {
            throw new ModuleException("no command given");
        }
        return argv;
    }
}
