package dev.provision.modules.files;

import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.InsertPosition;
import dev.provision.modules.text.ManagedBlock;
import dev.provision.modules.text.ManagedBlock.Markers;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * {@code blockinfile}: a marker-delimited block of lines in a file, with the semantics of
 * {@link ManagedBlock}; the lines outside the markers stay the administrator's.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code path} (aliases {@code dest}, {@code destfile}, {@code name}), required, absolute.
 *   <li>{@code block} (alias {@code content}): the lines between the markers; empty means remove.
 *   <li>{@code marker} (default {@code # {mark} MANAGED BLOCK}), {@code marker_begin} (default
 *       {@code BEGIN}), {@code marker_end} (default {@code END}): the marker lines; give every
 *       block in a file its own marker.
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code insertafter} / {@code insertbefore}: {@code EOF}, {@code BOF} or a regular
 *       expression; where a new block goes (mutually exclusive; default end of file). An existing
 *       block is replaced where it stands.
 *   <li>{@code create} (default false): start from an empty file when {@code path} is missing.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}.
 * </ul>
 */
public final class BlockInFileModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "destfile", "name")
                    .withDefault("block", Type.STRING, "", "content")
                    .withDefault("marker", Type.STRING, Markers.DEFAULT_TEMPLATE)
                    .withDefault("marker_begin", Type.STRING, "BEGIN")
                    .withDefault("marker_end", Type.STRING, "END")
                    .choice("state", "present", "present", "absent")
                    .optional("insertafter", Type.STRING)
                    .optional("insertbefore", Type.STRING)
                    .withDefault("create", Type.BOOL, false)
                    .mutuallyExclusive("insertafter", "insertbefore"))
            .build();

    public BlockInFileModule() {
    }

    @Override
    public String name() {
        return "blockinfile";
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
        String block = params.string("block");
        // An empty block means "no block", as in Ansible.
        boolean present = params.string("state").equals("present") && !block.isEmpty();
        Markers markers;
        InsertPosition where;
        try {
            markers = Markers.of(params.string("marker"), params.string("marker_begin"), params.string("marker_end"));
            where = params.optString("insertbefore").map(InsertPosition::before)
                    .orElseGet(() -> params.optString("insertafter").map(InsertPosition::after).orElse(InsertPosition.END_OF_FILE));
        } catch (IllegalArgumentException e) {
            throw new ModuleException(e.getMessage(), e);
        }
        Attributes attributes = FileAttributes.requested(params);
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), path);
        if (existing.isEmpty()) {
            if (!present) {
                return Plan.converged(path + " does not exist; no managed block to remove");
            }
            if (!params.bool("create")) {
                throw new ModuleException(path + " does not exist; set create=true to create it");
            }
            String created = ManagedBlock.put("", markers, block, where);
            return FileContentPlanner.create(context.host(), path, created.getBytes(StandardCharsets.UTF_8), attributes);
        }
        String text = existing.get().text(path);
        boolean hadBlock = ManagedBlock.isPresent(text, markers);
        String edited = present ? ManagedBlock.put(text, markers, block, where) : ManagedBlock.remove(text, markers);
        String summary = !present ? "remove managed block from " + path
                : hadBlock ? "update managed block in " + path : "insert managed block into " + path;
        String converged = present ? path + " already has the managed block" : path + " has no managed block";
        return FileContentPlanner.update(path, existing.get(), edited.getBytes(StandardCharsets.UTF_8), attributes, summary, converged);
    }
}
