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
 *   <li>{@code marker} (default Ansible's {@code # {mark} ANSIBLE MANAGED BLOCK}), {@code marker_begin}
 *       (default {@code BEGIN}), {@code marker_end} (default {@code END}): the marker lines; give
 *       every block in a file its own marker. With all three left at their defaults, a block that
 *       provision wrote before it took Ansible's default ({@code # BEGIN MANAGED BLOCK}) is taken
 *       over where it stands, its markers rewritten, so that no second block appears.
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code insertafter} ({@code EOF} or a regular expression) / {@code insertbefore}
 *       ({@code BOF} or a regular expression): where a new block goes (mutually exclusive; default
 *       end of file). A pattern with {@code (?m)} is searched in the whole file. An existing block
 *       is replaced where it stands.
 *   <li>{@code create} (default false): start from an empty file when {@code path} is missing,
 *       creating its missing directories.
 *   <li>A symlink at {@code path} is followed: the file it points to is edited.
 *   <li>{@code validate}, {@code backup}: see {@link ContentChecks}.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}.
 * </ul>
 */
public final class BlockInFileModule implements TaskModule {
    private static final ParamSpec SPEC = ContentChecks.declare(FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "destfile", "name")
                    .withDefault("block", Type.STRING, "", "content")
                    .optional("marker", Type.STRING)
                    .optional("marker_begin", Type.STRING)
                    .optional("marker_end", Type.STRING)
                    .choice("state", "present", "present", "absent")
                    .optional("insertafter", Type.STRING)
                    .optional("insertbefore", Type.STRING)
                    .withDefault("create", Type.BOOL, false)
                    .mutuallyExclusive("insertafter", "insertbefore")))
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
        return ContentChecks.apply(params, planContent(params, context));
    }

    private Plan planContent(Params params, TaskContext context) throws ModuleException {
        String path = FilePaths.requireAbsolute("path", params.string("path"));
        String block = params.string("block");
        boolean wanted = params.string("state").equals("present");
        // An empty block means "no block", as in Ansible.
        boolean present = wanted && !block.isEmpty();
        boolean defaultMarkers = !params.has("marker") && !params.has("marker_begin") && !params.has("marker_end");
        Markers markers;
        InsertPosition where;
        try {
            markers = Markers.of(params.optString("marker").orElse(Markers.DEFAULT_TEMPLATE),
                    params.optString("marker_begin").orElse("BEGIN"), params.optString("marker_end").orElse("END"));
            where = params.optString("insertbefore").map(InsertPosition::before)
                    .orElseGet(() -> params.optString("insertafter").map(InsertPosition::afterOrEnd).orElse(InsertPosition.END_OF_FILE));
        } catch (IllegalArgumentException e) {
            throw new ModuleException(e.getMessage(), e);
        }
        Attributes attributes = FileAttributes.requested(params);
        String target = FilePaths.followLinks(context.host(), path);
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), target);
        if (existing.isEmpty()) {
            if (!wanted) {
                return Plan.converged(path + " does not exist; no managed block to remove");
            }
            if (!params.bool("create")) {
                throw new ModuleException(path + " does not exist; set create=true to create it");
            }
            // Ansible creates the file even for an empty block (an empty file then).
            String created = ManagedBlock.put("", markers, block, where);
            return FileContentPlanner.createWithParents(context.host(), target, created.getBytes(StandardCharsets.UTF_8), attributes);
        }
        String text = existing.get().text(path);
        if (defaultMarkers && !ManagedBlock.isPresent(text, markers)) {
            text = ManagedBlock.renameMarkers(text, Markers.FORMER_DEFAULT, markers);
        }
        boolean hadBlock = ManagedBlock.isPresent(text, markers);
        String edited = present ? ManagedBlock.put(text, markers, block, where) : ManagedBlock.remove(text, markers);
        String summary = !present ? "remove managed block from " + path
                : hadBlock ? "update managed block in " + path : "insert managed block into " + path;
        String converged = present ? path + " already has the managed block" : path + " has no managed block";
        return FileContentPlanner.update(target, existing.get(), edited.getBytes(StandardCharsets.UTF_8), attributes, summary, converged);
    }

    /** Its only effect is the file it edits, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
