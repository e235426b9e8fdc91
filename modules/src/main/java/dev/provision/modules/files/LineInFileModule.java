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
 *       to replace (present) or the lines to remove (absent).
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code insertafter} / {@code insertbefore}: {@code EOF}, {@code BOF} or a regular
 *       expression; where a new line goes (mutually exclusive; default end of file).
 *   <li>{@code backrefs} (default false): {@code line} is a replacement template ({@code \1});
 *       when {@code regexp} matches nothing, nothing is added. Needs {@code regexp}.
 *   <li>{@code firstmatch} (default false): use the first matching line instead of the last.
 *   <li>{@code create} (default false): start from an empty file when {@code path} is missing;
 *       otherwise a missing file fails the task.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}.
 * </ul>
 */
public final class LineInFileModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "destfile", "name")
                    .optional("line", Type.STRING, "value")
                    .optional("regexp", Type.STRING, "regex")
                    .choice("state", "present", "present", "absent")
                    .optional("insertafter", Type.STRING)
                    .optional("insertbefore", Type.STRING)
                    .withDefault("backrefs", Type.BOOL, false)
                    .withDefault("firstmatch", Type.BOOL, false)
                    .withDefault("create", Type.BOOL, false)
                    .mutuallyExclusive("insertafter", "insertbefore"))
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
        String path = FilePaths.requireAbsolute("path", params.string("path"));
        boolean present = params.string("state").equals("present");
        Optional<Pattern> regexp = regex(params, "regexp");
        if (present && !params.has("line")) {
            throw new ModuleException("line is required with state=present");
        }
        if (params.bool("backrefs") && regexp.isEmpty()) {
            throw new ModuleException("regexp is required with backrefs=true");
        }
        if (!present && regexp.isEmpty() && !params.has("line")) {
            throw new ModuleException("one of regexp or line is required with state=absent");
        }
        Attributes attributes = FileAttributes.requested(params);
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), path);
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
            edit = present ? present(params, regexp, text) : absent(params, regexp, text);
        } catch (IllegalArgumentException e) {
            throw new ModuleException(e.getMessage(), e);
        }
        String what = edit.message() + " in " + path;
        if (existing.isEmpty()) {
            return edit.changed()
                    ? FileContentPlanner.create(context.host(), path, bytes(edit), attributes)
                    : Plan.converged(what);
        }
        return FileContentPlanner.update(path, existing.get(), bytes(edit), attributes, what, what);
    }

    private static LineEdit.Result present(Params params, Optional<Pattern> regexp, String text) {
        InsertPosition where = params.optString("insertbefore").map(InsertPosition::before)
                .orElseGet(() -> params.optString("insertafter").map(InsertPosition::after).orElse(InsertPosition.END_OF_FILE));
        String line = params.string("line");
        boolean firstMatch = params.bool("firstmatch");
        return regexp.isPresent()
                ? LineEdit.present(text, regexp.get(), line, where, params.bool("backrefs"), firstMatch)
                : LineEdit.present(text, line, where, firstMatch);
    }

    private static LineEdit.Result absent(Params params, Optional<Pattern> regexp, String text) {
        return regexp.isPresent() ? LineEdit.absent(text, regexp.get()) : LineEdit.absent(text, params.string("line"));
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
}
