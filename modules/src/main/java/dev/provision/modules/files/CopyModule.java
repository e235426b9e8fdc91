package dev.provision.modules.files;

import dev.provision.modules.spi.Command.Attributes;
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
import java.util.Optional;

/**
 * {@code copy}: a file on the host with given content, from {@code content} or from a controller
 * file {@code src}.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code dest}, required, absolute. Ending in {@code /}, or naming an existing directory when
 *       {@code src} is given, it means that directory plus the base name of {@code src}.
 *   <li>{@code content}: the text to write; or {@code src}: a controller file found through the
 *       task's search path ({@link TaskContext#controllerFile}). Exactly one is required. Copying
 *       directories is not supported.
 *   <li>{@code force} (default true): false leaves an existing {@code dest} alone.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}; unset ones keep the
 *       current file's values when the content is rewritten.
 * </ul>
 *
 * The directory that holds {@code dest} must exist (Ansible fails too). Planning is shared with
 * {@code template}: see {@link FileContentPlanner}.
 */
public final class CopyModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("dest", Type.STRING)
                    .optional("content", Type.STRING)
                    .optional("src", Type.STRING)
                    .withDefault("force", Type.BOOL, true)
                    .mutuallyExclusive("content", "src")
                    .requiredOneOf("content", "src"))
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
        String dest = FilePaths.requireAbsolute("dest", params.string("dest"));
        Attributes attributes = FileAttributes.requested(params);
        byte[] content;
        if (params.has("src")) {
            String src = params.string("src");
            content = readControllerFile(context.controllerFile(src), src);
            dest = intoDirectory(context, dest, src);
        } else {
            if (dest.endsWith("/")) {
                throw new ModuleException("dest " + dest + " ends with '/', but content has no file name; name the file in dest");
            }
            content = params.string("content").getBytes(StandardCharsets.UTF_8);
        }
        if (!params.bool("force") && FilePaths.statFollowing(context.host(), dest).isPresent()) {
            return Plan.converged(dest + " exists (force=false: its content is left alone)");
        }
        return FileContentPlanner.plan(context.host(), dest, content, attributes, convergedReason(dest, attributes));
    }

    /** Why a file with the wanted content and attributes needs nothing; shared with {@code template}. */
    static String convergedReason(String dest, Attributes attributes) {
        return dest + " already has the wanted content" + (attributes.isEmpty() ? "" : " and " + FileAttributes.describe(attributes));
    }

    private static String intoDirectory(TaskContext context, String dest, String src) throws ModuleException {
        if (dest.endsWith("/")) {
            return dest + FilePaths.basename(src);
        }
        Optional<FileStat> stat = FilePaths.statFollowing(context.host(), dest);
        if (stat.isPresent() && stat.get().type() == FileStat.Type.DIRECTORY) {
            return dest + "/" + FilePaths.basename(src);
        }
        return dest;
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
}
