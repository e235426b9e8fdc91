package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code copy}: a file on the host with given content, from {@code content} or from a controller
 * file {@code src}.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code dest}, required, absolute. With {@code src}, a {@code dest} ending in {@code /}
 *       means that directory (created with its missing parents) plus the base name of
 *       {@code src}, and so does a {@code dest} naming an existing directory. With
 *       {@code content}, either fails, as in Ansible.
 *   <li>{@code content}: the text to write; or {@code src}: a controller file found through the
 *       task's search path ({@link TaskContext#controllerFile}). Exactly one is required. Copying
 *       directories is not supported.
 *   <li>{@code remote_src} (default false): {@code src} is an absolute path on the managed host, a
 *       file or a directory, copied there without passing through the controller; see
 *       {@link RemoteCopy} for what a directory (with or without a trailing slash) becomes.
 *       {@code validate} and {@code backup} are not supported with it.
 *   <li>{@code force} (default true): false leaves an existing {@code dest} alone.
 *   <li>{@code follow} (default false): a symlink at {@code dest} is replaced by a regular file
 *       (always a change, as in Ansible); with true, the file it points to is written.
 *   <li>{@code validate}, {@code backup}: see {@link ContentChecks}.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}; unset ones keep the
 *       current file's values when the content is rewritten. {@code mode: preserve} takes the
 *       mode of {@code src}.
 * </ul>
 *
 * Otherwise the directory that holds {@code dest} must exist (Ansible fails too). Planning is
 * shared with {@code template}: see {@link #planFile} and {@link FileContentPlanner}.
 */
public final class CopyModule implements TaskModule {
    private static final ParamSpec SPEC = ContentChecks.declare(FileAttributes.declare(ParamSpec.builder()
                    .required("dest", Type.STRING)
                    .optional("content", Type.STRING)
                    .optional("src", Type.STRING)
                    .withDefault("force", Type.BOOL, true)
                    .withDefault("follow", Type.BOOL, false)
                    .withDefault("remote_src", Type.BOOL, false)
                    .mutuallyExclusive("content", "src")
                    .requiredOneOf("content", "src")))
            .build();

    public CopyModule() {
    }

    @Override
    public String name() {
        return "copy";
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
        return ContentChecks.apply(params, planContent(params, context));
    }

    private Plan planContent(Params params, TaskContext context) throws ModuleException {
        String dest = FilePaths.requireAbsolute("dest", params.string("dest"));
        if (params.bool("remote_src")) {
            if (!params.has("src")) {
                throw new ModuleException("remote_src needs src, a path on the managed host");
            }
            if (params.has("validate") || params.bool("backup")) {
                throw new ModuleException("validate and backup are not supported with remote_src");
            }
            return RemoteCopy.plan(context.host(), params.string("src"), dest, params.optString("mode"),
                    new Attributes(Optional.empty(), params.optString("owner"), params.optString("group")),
                    params.bool("follow"), params.bool("force"));
        }
        if (params.has("src")) {
            String src = params.string("src");
            Path file = context.controllerFile(src);
            Attributes attributes = FileAttributes.requested(params, file);
            if (!params.has("validate") && !params.bool("backup") && LargeUpload.applies(file)) {
                return LargeUpload.plan(context.host(), dest, FilePaths.basename(src), file, attributes, params.bool("follow"),
                        params.bool("force"));
            }
            return planFile(context.host(), dest, Optional.of(FilePaths.basename(src)), readControllerFile(file, src),
                    attributes, params.bool("follow"), params.bool("force"));
        }
        if (dest.endsWith("/") || FilePaths.statFollowing(context.host(), dest).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent()) {
            throw new ModuleException("can not use content with a dir as dest (" + dest + "); name the file in dest");
        }
        byte[] content = params.string("content").getBytes(StandardCharsets.UTF_8);
        return planFile(context.host(), dest, Optional.empty(), content, FileAttributes.requested(params), params.bool("follow"),
                params.bool("force"));
    }

    /**
     * Plans "dest has this content", shared with {@code template}: a directory {@code dest} (or one
     * ending in {@code /}) takes {@code basename}; a symlink is replaced or, with {@code follow},
     * written through; {@code force=false} leaves an existing file alone.
     */
    static Plan planFile(HostView host, String dest, Optional<String> basename, byte[] content, Attributes attributes,
                         boolean follow, boolean force) throws ModuleException {
        String path = dest;
        boolean newDirectory = false;
        if (basename.isPresent() && dest.endsWith("/")) {
            path = dest + basename.get();
            newDirectory = FilePaths.statFollowing(host, dest).isEmpty();
        } else if (basename.isPresent()
                && FilePaths.statFollowing(host, dest).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent()) {
            path = dest + "/" + basename.get();
        }
        Optional<FileStat> own = host.stat(path);
        if (own.isPresent() && own.get().type() == FileStat.Type.LINK) {
            Optional<FileStat> target = FilePaths.statFollowing(host, path);
            if (!force && target.isPresent()) {
                return Plan.converged(path + " exists (force=false: its content is left alone)");
            }
            if (!follow || target.isEmpty()) {
                return replaceLink(path, own.get(), content, attributes);
            }
            path = FilePaths.followLinks(host, path);
        }
        if (!force && FilePaths.statFollowing(host, path).isPresent()) {
            return Plan.converged(path + " exists (force=false: its content is left alone)");
        }
        if (newDirectory) {
            return FileContentPlanner.createWithParents(host, path, content, attributes);
        }
        return FileContentPlanner.plan(host, path, content, attributes, convergedReason(path, attributes));
    }

    /**
     * Without {@code follow}, Ansible unlinks a symlink at {@code dest} and writes a new file in its
     * place, on every run while the link is there; so a new file it is (the target is untouched).
     */
    private static Plan replaceLink(String path, FileStat link, byte[] content, Attributes attributes) {
        Change change = new Change("replace link " + path + " with a file",
                List.of(new Diff(path, "state: link\ntarget: " + link.linkTarget() + "\n", "state: file\n"),
                        FileContentPlanner.contentDiff(path, new byte[0], content)),
                List.of(new Command.Remove(path), new Command.PutFile(path, content, FileAttributes.forNewFile(attributes))));
        return Plan.of(change);
    }

    /** Why a file with the wanted content and attributes needs nothing; shared with {@code template}. */
    static String convergedReason(String dest, Attributes attributes) {
        return dest + " already has the wanted content" + (attributes.isEmpty() ? "" : " and " + FileAttributes.describe(attributes));
    }

    private static byte[] readControllerFile(Path file, String src) throws ModuleException {
        if (Files.isDirectory(file)) {
            throw new ModuleException("src " + src + " is a directory; copying directories is not supported");
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ModuleException("cannot read src " + src + " (" + file + "): " + e.getMessage(), e);
        }
    }

    /** Its only effect is the file it writes, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
