package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code validate} and {@code backup}, the parameters of the modules that write a file's content
 * ({@code copy}, {@code template}, {@code lineinfile}, {@code blockinfile}). Both ride on the plan's
 * {@link Command.PutFile}s, so that the engine checks the temp file and keeps the copy in the same
 * step that renames it into place:
 * <ul>
 *   <li>{@code validate}: a command line with {@code %s} for the file to check
 *       ({@code visudo -cf %s}, {@code sshd -t -f %s}), split into words as a shell would, run
 *       without a shell; when it fails, the file is left as it was and the task fails with its output.
 *   <li>{@code backup} (default false): a copy of the old file, named {@code path.PID.YYYY-MM-DD@HH:MM:SS~}
 *       as Ansible names it, whenever the content is rewritten.
 * </ul>
 */
final class ContentChecks {
    private ContentChecks() {
    }

    static ParamSpec.Builder declare(ParamSpec.Builder spec) {
        return spec.optional("validate", ParamSpec.Type.STRING)
                .withDefault("backup", ParamSpec.Type.BOOL, false);
    }

    /** The plan with every content write validated and backed up as the parameters ask. */
    static Plan apply(Params params, Plan plan) throws ModuleException {
        List<String> validate = validator(params);
        boolean backup = params.bool("backup");
        if (validate.isEmpty() && !backup) {
            return plan;
        }
        List<Change> changes = new ArrayList<>();
        for (Change change : plan.changes()) {
            List<Command> commands = change.commands().stream()
                    .map(c -> c instanceof Command.PutFile put ? put.checked(validate, backup) : c)
                    .toList();
            Change checked = new Change(change.summary(), change.diffs(), commands, change.sensitive());
            changes.add(checked);
        }
        return new Plan(changes, plan.reason(), plan.facts(), plan.result(), plan.afterwards(), plan.checks());
    }

    private static List<String> validator(Params params) throws ModuleException {
        if (!params.has("validate")) {
            return List.of();
        }
        String line = params.string("validate");
        if (!line.contains("%s")) {
            throw new ModuleException("validate must contain %s: " + line);
        }
        try {
            return ShellWords.split(line);
        } catch (IllegalArgumentException e) {
            throw new ModuleException("validate: " + e.getMessage(), e);
        }
    }
}
