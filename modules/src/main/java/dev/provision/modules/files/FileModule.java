package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import java.util.List;
import java.util.Optional;

/**
 * {@code file}: the kind and attributes of a path, never its content.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code path} (aliases {@code dest}, {@code name}), required, absolute.
 *   <li>{@code state}: {@code file} (default; the path must exist already, only attributes are
 *       set), {@code directory} ({@code mkdir -p}), {@code absent} (removed, directories
 *       recursively), {@code link} (a symlink to {@code src}; the default state when {@code src}
 *       is given), {@code touch} (an empty file when missing).
 *   <li>{@code src}: the link target for {@code state: link}, written into the link as given.
 *   <li>{@code force} (default false): let {@code state: link} replace a regular file, or point at
 *       a target that does not exist.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}; for a symlink they
 *       apply to its target, as {@code chmod} and {@code chown} do; {@code state: link} sets none.
 * </ul>
 *
 * <p>Deviation from Ansible: {@code touch} on an existing path plans nothing when its attributes are
 * right, instead of updating its times; a task that changes the host on every run would break the
 * promise that a second run reports no change.
 */
public final class FileModule implements dev.provision.modules.spi.TaskModule {
    private static final List<String> STATES = List.of("file", "directory", "absent", "link", "touch");
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "name")
                    .add(new ParamSpec.Param("state", Type.STRING, false, Optional.empty(), STATES, List.of(), false))
                    .optional("src", Type.STRING)
                    .withDefault("force", Type.BOOL, false))
            .build();

    public FileModule() {
    }

    @Override
    public String name() {
        return "file";
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
        String path = FilePaths.requireAbsolute("path", params.string("path"));
        String state = params.optString("state").orElse(params.has("src") ? "link" : "file");
        Attributes wanted = FileAttributes.requested(params);
        return switch (state) {
            // Attributes follow a symlink, as chmod and chown do (Ansible's follow=true).
            case "file" -> file(path, FilePaths.statFollowing(context.host(), path), wanted);
            case "directory" -> FileContentPlanner.directory(context.host(), path, wanted);
            case "touch" -> touch(context, path, FilePaths.statFollowing(context.host(), path), wanted);
            case "absent" -> absent(path, context.host().stat(path));
            case "link" -> link(params, context, path, context.host().stat(path));
            default -> throw new ModuleException("unsupported state " + state); // the spec's choices stop this earlier
        };
    }

    private static Plan file(String path, Optional<FileStat> current, Attributes wanted) throws ModuleException {
        if (current.isEmpty()) {
            throw new ModuleException("file " + path + " does not exist; use state=touch to create it");
        }
        if (current.get().type() == FileStat.Type.DIRECTORY) {
            throw new ModuleException(path + " is a directory, not a file");
        }
        return attributesOnly(path, current.get(), wanted, path + " exists");
    }

    private static Plan absent(String path, Optional<FileStat> current) {
        if (current.isEmpty()) {
            return Plan.converged(path + " is already absent");
        }
        return Plan.of(Change.withDiff("remove " + path, stateDiff(path, FilePaths.kind(current.get()), "absent"),
                new Command.Remove(path)));
    }

    private static Plan link(Params params, TaskContext context, String path, Optional<FileStat> current)
            throws ModuleException {
        String src = params.optString("src")
                .orElseThrow(() -> new ModuleException("src is required for state=link"));
        boolean force = params.bool("force");
        if (current.isPresent() && current.get().type() == FileStat.Type.LINK && current.get().linkTarget().equals(src)) {
            return Plan.converged(path + " already links to " + src);
        }
        if (!force && context.host().stat(FilePaths.resolveLink(path, src)).isEmpty()) {
            throw new ModuleException("src " + src + " does not exist; set force=true to link to it anyway");
        }
        Command link = new Command.Symlink(path, src);
        if (current.isEmpty()) {
            FilePaths.requireParentDirectory(context.host(), path);
            return Plan.of(Change.withDiff("link " + path + " -> " + src, new Diff(path, "state: absent\n", "state: link\ntarget: " + src + "\n"), link));
        }
        FileStat existing = current.get();
        return switch (existing.type()) {
            case LINK -> Plan.of(Change.withDiff("relink " + path + " -> " + src,
                    new Diff(path, "target: " + existing.linkTarget() + "\n", "target: " + src + "\n"), link));
            case DIRECTORY -> throw new ModuleException(path + " is a directory; refusing to replace it with a link");
            case FILE, OTHER -> {
                if (!force) {
                    throw new ModuleException(path + " exists as a " + FilePaths.kind(existing) + "; set force=true to replace it with a link");
                }
                yield Plan.of(new Change("replace " + path + " with a link to " + src,
                        List.of(new Diff(path, "state: " + FilePaths.kind(existing) + "\n", "state: link\ntarget: " + src + "\n")),
                        List.of(new Command.Remove(path), link)));
            }
        };
    }

    private static Plan touch(TaskContext context, String path, Optional<FileStat> current, Attributes wanted)
            throws ModuleException {
        if (current.isEmpty()) {
            FilePaths.requireParentDirectory(context.host(), path);
            return Plan.of(Change.withDiff("create empty file " + path, stateDiff(path, "absent", "file"),
                    new Command.PutFile(path, new byte[0], FileAttributes.forNewFile(wanted))));
        }
        // Existing path: no time update on purpose (see the class comment).
        return attributesOnly(path, current.get(), wanted, path + " exists");
    }

    private static Plan attributesOnly(String path, FileStat current, Attributes wanted, String what) {
        return FileAttributes.change(path, current, wanted)
                .map(Plan::of)
                .orElseGet(() -> Plan.converged(what + (wanted.isEmpty() ? "" : " with " + FileAttributes.describe(wanted))));
    }

    private static Diff stateDiff(String path, String before, String after) {
        return new Diff(path, "state: " + before + "\n", "state: " + after + "\n");
    }
}
