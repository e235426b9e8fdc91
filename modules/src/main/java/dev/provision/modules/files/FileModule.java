package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 *   <li>{@code src}: the link target for {@code state: link}, written into the link as given; for
 *       {@code state: hard}, the absolute path of the existing file to link to.
 *   <li>{@code state: hard}: {@code path} becomes a hard link to {@code src} (one file, two names;
 *       a {@code path} naming a directory means the base name of {@code src} in it). Nothing to do
 *       when it already is the same inode; a symlink there is replaced; another file is replaced
 *       only with {@code force}; a directory never. {@code src} must exist and not be a directory.
 *   <li>{@code force} (default false): let {@code state: link} replace a regular file, or point at
 *       a target that does not exist; let {@code state: hard} replace another file.
 *   <li>{@code recurse} (default false, {@code state: directory} only): the attributes apply to
 *       everything below the directory too, each path's symbolic mode counted from its own mode
 *       ({@code u=rwX} gives execute to directories and to files that have some). A symlink below
 *       gets the owner and group itself (its mode means nothing); with {@code follow} its target
 *       gets the attributes as well, and a directory it points to is recursed into, as Ansible does.
 *   <li>{@code follow} (default true, as in Ansible's {@code file}): a symlink at {@code path} with
 *       {@code state: directory} stands for its target, and so do the symlinks found by
 *       {@code recurse}; false fails on the first and leaves the targets of the others alone.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}; for a symlink they
 *       apply to its target, as {@code chmod} and {@code chown} do; {@code state: link} sets none.
 * </ul>
 *
 * <p>Deviation from Ansible: {@code touch} on an existing path plans nothing when its attributes are
 * right, instead of updating its times; a task that changes the host on every run would break the
 * promise that a second run reports no change.
 */
public final class FileModule implements dev.provision.modules.spi.TaskModule {
    private static final List<String> STATES = List.of("file", "directory", "absent", "link", "hard", "touch");
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "name")
                    .add(new ParamSpec.Param("state", Type.STRING, false, Optional.empty(), STATES, List.of(), false))
                    .optional("src", Type.STRING)
                    .withDefault("force", Type.BOOL, false)
                    .withDefault("recurse", Type.BOOL, false)
                    .withDefault("follow", Type.BOOL, true))
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
        boolean recurse = params.bool("recurse");
        String state = params.optString("state").orElse(params.has("src") ? "link" : recurse ? "directory" : "file");
        Attributes wanted = FileAttributes.requested(params);
        if (recurse && !state.equals("directory")) {
            throw new ModuleException("recurse option requires state to be 'directory'");
        }
        return switch (state) {
            // Attributes follow a symlink, as chmod and chown do (Ansible's follow=true).
            case "file" -> file(path, FilePaths.statFollowing(context.host(), path), wanted);
            case "directory" -> directory(context.host(), path, wanted, recurse, params.bool("follow"));
            case "hard" -> hard(params, context.host(), path, wanted);
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

    private static Plan directory(HostView host, String path, Attributes wanted, boolean recurse, boolean follow)
            throws ModuleException {
        Optional<FileStat> own = host.stat(path);
        if (!follow && own.isPresent() && own.get().type() == FileStat.Type.LINK) {
            throw new ModuleException(path + " already exists as a link (follow=false)");
        }
        Plan top = FileContentPlanner.directory(host, path, wanted);
        if (!recurse || own.isEmpty() || wanted.isEmpty()) {
            return top; // a directory created now has nothing below it
        }
        // Every path at most once, in the order Ansible meets them: the tree, then what links lead to.
        Map<String, FileStat> below = new LinkedHashMap<>();
        Set<String> walked = new HashSet<>();
        collect(host, FilePaths.followLinks(host, path), follow, below, walked);
        List<Change> changes = new ArrayList<>(top.changes());
        for (Map.Entry<String, FileStat> e : below.entrySet()) {
            FileStat stat = e.getValue();
            // chmod on a link would change its target: a link gets only its owner and group (chown -h).
            Attributes forThis = stat.type() == FileStat.Type.LINK
                    ? new Attributes(Optional.empty(), wanted.owner(), wanted.group()) : wanted;
            FileAttributes.change(e.getKey(), stat, forThis).ifPresent(changes::add);
        }
        if (changes.isEmpty()) {
            return Plan.converged(top.reason() + ", and so is everything below it");
        }
        return Plan.of(changes, "");
    }

    /** The paths below {@code dir}; with {@code follow}, the targets of links too, and the trees of linked directories. */
    private static void collect(HostView host, String dir, boolean follow, Map<String, FileStat> into, Set<String> walked)
            throws ModuleException {
        if (!walked.add(dir)) {
            return; // a link loop, or a directory reached twice
        }
        for (Map.Entry<String, FileStat> e : host.walk(dir).entrySet()) {
            into.putIfAbsent(e.getKey(), e.getValue());
            if (!follow || e.getValue().type() != FileStat.Type.LINK) {
                continue;
            }
            String target = FilePaths.resolveLink(e.getKey(), e.getValue().linkTarget());
            String real = FilePaths.followLinks(host, target);
            Optional<FileStat> stat = host.stat(real);
            if (stat.isEmpty()) {
                continue; // a dangling link: Ansible skips its target
            }
            if (stat.get().type() == FileStat.Type.DIRECTORY) {
                collect(host, real, true, into, walked);
            }
            into.putIfAbsent(real, stat.get());
        }
    }

    private static Plan hard(Params params, HostView host, String given, Attributes wanted) throws ModuleException {
        String src = FilePaths.requireAbsolute("src", params.optString("src")
                .orElseThrow(() -> new ModuleException("src is required for creating new hardlinks")));
        String path = FilePaths.statFollowing(host, given).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent()
                ? given.replaceAll("/+$", "") + "/" + FilePaths.basename(src) : given;
        Optional<FileStat> source = host.stat(src);
        if (source.isEmpty()) {
            throw new ModuleException("src does not exist: " + src);
        }
        if (source.get().type() == FileStat.Type.DIRECTORY) {
            throw new ModuleException("src " + src + " is a directory; a hard link cannot point to a directory");
        }
        Optional<FileStat> current = host.stat(path);
        Command link = new Command.HardLink(path, src);
        String after = "state: hard\nsrc: " + src + "\n";
        Change change;
        if (current.isEmpty()) {
            FilePaths.requireParentDirectory(host, path);
            change = Change.withDiff("hard link " + path + " to " + src, new Diff(path, "state: absent\n", after), link);
        } else {
            FileStat existing = current.get();
            if (existing.sameFileAs(source.get())) {
                return attributesOnly(path, existing, wanted, path + " is a hard link to " + src);
            }
            switch (existing.type()) {
                case DIRECTORY -> throw new ModuleException(path + " is a directory; refusing to replace it with a hard link");
                case LINK -> {
                    // A symlink is not a hard link, even to src: replaced without force (Ansible needs none either).
                }
                case FILE, OTHER -> {
                    if (!params.bool("force")) {
                        throw new ModuleException(existing.links() > 1
                                ? "Cannot link, different hard link exists at destination " + path + "; set force=true to replace it"
                                : "Cannot link, " + FilePaths.kind(existing) + " exists at destination " + path + "; set force=true to replace it");
                    }
                }
            }
            change = Change.withDiff("replace " + path + " with a hard link to " + src,
                    new Diff(path, "state: " + (existing.type() == FileStat.Type.LINK ? "link\nsrc: " + existing.linkTarget()
                            : existing.links() > 1 ? "hard" : FilePaths.kind(existing)) + "\n", after), link);
        }
        // The attributes are the inode's, shared with src: they are src's now.
        List<Change> changes = new ArrayList<>();
        changes.add(change);
        FileAttributes.change(path, source.get(), wanted).ifPresent(changes::add);
        return Plan.of(changes, "");
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

    /** Its only effect is what it does to the path, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
