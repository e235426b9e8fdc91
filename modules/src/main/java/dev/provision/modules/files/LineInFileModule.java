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
import dev.provision.modules.text.LineEdit;
import dev.provision.modules.text.PythonRegex;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code lineinfile}: one line in a file, with the semantics of {@link LineEdit}.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code path} (aliases {@code dest}, {@code destfile}, {@code name}), required, absolute.
 *   <li>{@code line} (alias {@code value}): the line; required with {@code state: present}.
 *   <li>{@code regexp} (alias {@code regex}): a Python-style regular expression selecting the line
 *       to replace (present) or the lines to remove (absent); or {@code search_string}: a text
 *       that selects the lines containing it (mutually exclusive with {@code regexp} and
 *       {@code backrefs}).
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code insertafter} ({@code EOF}, {@code BOF} or a regular expression) /
 *       {@code insertbefore} ({@code BOF} or a regular expression): where a new line goes
 *       (mutually exclusive; default end of file).
 *   <li>{@code backrefs} (default false): {@code line} is a replacement template ({@code \1});
 *       when {@code regexp} matches nothing, nothing is added. Needs {@code regexp}.
 *   <li>{@code firstmatch} (default false): use the first matching line instead of the last.
 *   <li>{@code create} (default false): start from an empty file when {@code path} is missing,
 *       creating its missing directories; otherwise a missing file fails the task.
 *   <li>A symlink at {@code path} is followed: the file it points to is edited.
 *   <li>{@code validate}, {@code backup}: see {@link ContentChecks}.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}.
 * </ul>
 */
public final class LineInFileModule implements TaskModule {
    private static final ParamSpec SPEC = ContentChecks.declare(FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "destfile", "name")
                    .optional("line", Type.STRING, "value")
                    .optional("regexp", Type.STRING, "regex")
                    .optional("search_string", Type.STRING)
                    .choice("state", "present", "present", "absent")
                    .optional("insertafter", Type.STRING)
                    .optional("insertbefore", Type.STRING)
                    .withDefault("backrefs", Type.BOOL, false)
                    .withDefault("firstmatch", Type.BOOL, false)
                    .withDefault("create", Type.BOOL, false)
                    .mutuallyExclusive("insertafter", "insertbefore")
                    .mutuallyExclusive("regexp", "search_string")
                    .mutuallyExclusive("backrefs", "search_string")))
            .build();

    public LineInFileModule() {
    }

    @Override
    public String name() {
        return "lineinfile";
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
        boolean present = params.string("state").equals("present");
        Optional<LineEdit.Selector> selector = selector(params);
        if (present && !params.has("line")) {
            throw new ModuleException("line is required with state=present");
        }
        if (params.bool("backrefs") && !params.has("regexp")) {
            throw new ModuleException("regexp is required with backrefs=true");
        }
        if (!present && selector.isEmpty() && !params.has("line")) {
            throw new ModuleException("one of line, search_string, or regexp is required with state=absent");
        }
        Attributes attributes = FileAttributes.requested(params);
        String target = FilePaths.followLinks(context.host(), path);
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), target);
        if (existing.isEmpty()) {
            if (!present) {
                return Plan.converged(path + " does not exist; no line to remove");
            }
            if (!params.bool("create")) {
                throw new ModuleException(path + " does not exist; set create=true to create it");
            }
        }
        String text = existing.isPresent() ? existing.get().text(path) : "";
        LineEdit.Result edit;
        try {
            edit = present ? present(params, selector, text) : absent(params, selector, text);
        } catch (IllegalArgumentException e) {
            throw new ModuleException(e.getMessage(), e);
        }
        String what = edit.message() + " in " + path;
        if (existing.isEmpty()) {
            return edit.changed()
                    ? FileContentPlanner.createWithParents(context.host(), target, bytes(edit), attributes)
                    : Plan.converged(what);
        }
        return FileContentPlanner.update(target, existing.get(), bytes(edit), attributes, what, what);
    }

    private static LineEdit.Result present(Params params, Optional<LineEdit.Selector> selector, String text) {
        InsertPosition where = params.optString("insertbefore").map(InsertPosition::before)
                .orElseGet(() -> params.optString("insertafter").map(InsertPosition::after).orElse(InsertPosition.END_OF_FILE));
        return LineEdit.present(text, selector, params.string("line"), where, params.bool("backrefs"), params.bool("firstmatch"));
    }

    private static LineEdit.Result absent(Params params, Optional<LineEdit.Selector> selector, String text) {
        return selector.isPresent() ? LineEdit.absent(text, selector.get()) : LineEdit.absent(text, params.string("line"));
    }

    private static Optional<LineEdit.Selector> selector(Params params) throws ModuleException {
        Optional<Pattern> regexp = regex(params, "regexp");
        if (regexp.isPresent()) {
            return Optional.of(new LineEdit.Selector.Regexp(regexp.get()));
        }
        return params.optString("search_string").map(LineEdit.Selector.Containing::new);
    }

    private static byte[] bytes(LineEdit.Result edit) {
        return edit.text().getBytes(StandardCharsets.UTF_8);
    }

    /** Compiles a regular-expression parameter, naming the parameter when it is malformed. */
    static Optional<Pattern> regex(Params params, String name) throws ModuleException {
        Optional<String> written = params.optString(name);
        if (written.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PythonRegex.compile(written.get()));
        } catch (IllegalArgumentException e) {
            throw new ModuleException(name + ": " + e.getMessage(), e);
        }
    }

    /** Its only effect is the file it edits, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
