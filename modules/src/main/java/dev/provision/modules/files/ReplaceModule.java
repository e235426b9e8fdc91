package dev.provision.modules.files;

import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.PythonRegex;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code replace} (Ansible's {@code ansible.builtin.replace}): every match of a regular expression in
 * a file replaced, as Python's {@code re.subn} does.
 *
 * <p>Parameters (Ansible's names and meanings):
 * <ul>
 *   <li>{@code path} (aliases {@code dest}, {@code destfile}, {@code name}), required, absolute. A
 *       missing file fails the task ({@code Path ... does not exist !}), as in Ansible; a symlink is
 *       followed and the file it points to is written.
 *   <li>{@code regexp}, required: a Python regular expression in multi-line mode ({@code ^} and
 *       {@code $} at every line), without DOTALL ({@code .} stops at a newline).
 *   <li>{@code replace} (default empty: matches are removed): a Python replacement template,
 *       {@code \1}, {@code \g<1>}, {@code \g<name>} inserting groups ({@link PythonRegex#expand});
 *       a {@code $} is a plain dollar sign.
 *   <li>{@code after}, {@code before}: Python regular expressions with DOTALL and without multi-line
 *       mode (write {@code (?m)} at the start for that) that limit the replacing to the text after
 *       the first match of {@code after}, before {@code before}, or between them when both are given
 *       (Ansible searches {@code AFTER(?P<subsection>.*?)BEFORE}). When they match nothing, nothing
 *       is replaced.
 *   <li>{@code encoding}: {@code utf-8} only (the default); any other is refused.
 *   <li>{@code validate}, {@code backup}: see {@link ContentChecks}.
 *   <li>{@code mode}, {@code owner}, {@code group}: see {@link FileAttributes}; applied even when
 *       {@code after}/{@code before} match nothing (Ansible then leaves them as they are).
 * </ul>
 * The file changes only when its content does: replacements that give the same text change
 * nothing. Keeping the task idempotent is the playbook's part, as in Ansible: a {@code regexp} that
 * matches its own replacement replaces again on every run.
 */
public final class ReplaceModule implements TaskModule {
    private static final Set<String> UTF_8 = Set.of("utf-8", "utf8", "utf_8", "u8");
    private static final ParamSpec SPEC = ContentChecks.declare(FileAttributes.declare(ParamSpec.builder()
                    .required("path", Type.STRING, "dest", "destfile", "name")
                    .required("regexp", Type.STRING)
                    .withDefault("replace", Type.STRING, "")
                    .optional("after", Type.STRING)
                    .optional("before", Type.STRING)
                    .withDefault("encoding", Type.STRING, "utf-8")))
            .build();

    public ReplaceModule() {
    }

    @Override
    public String name() {
        return "replace";
    }

    @Override
    public String description() {
        return """
                Replaces every match of regexp (a Python regular expression, multi-line mode) in an existing
                file by replace (\\1, \\g<1>, \\g<name> insert groups; $ is a plain dollar), limited to
                the text after the first match of after and/or before the match of before. The file is
                rewritten atomically, and only when its content changes.""";
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
        String encoding = params.string("encoding");
        if (!UTF_8.contains(encoding.toLowerCase(Locale.ROOT))) {
            throw new ModuleException("encoding: only utf-8 is supported, got '" + encoding
                    + "'; convert the file, or edit it with a template or copy");
        }
        Pattern regexp = compile("regexp", params.string("regexp"), Pattern.MULTILINE);
        String template = params.string("replace");
        try {
            PythonRegex.checkTemplate(regexp, template);
        } catch (IllegalArgumentException e) {
            throw new ModuleException("replace: " + e.getMessage(), e);
        }
        Optional<Pattern> section = section(params);
        Attributes attributes = FileAttributes.requested(params);
        String target = FilePaths.followLinks(context.host(), path);
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(context.host(), target);
        if (existing.isEmpty()) {
            throw new ModuleException("Path " + path + " does not exist !");
        }
        String text = existing.get().text(path);
        int start = 0;
        int end = text.length();
        if (section.isPresent()) {
            Matcher m = section.get().matcher(text);
            if (!m.find()) {
                String reason = "after/before matched nothing in " + path + ": nothing to replace";
                return FileContentPlanner.update(target, existing.get(), existing.get().content(), attributes, reason, reason);
            }
            start = m.start("subsection");
            end = m.end("subsection");
        }
        PythonRegex.Substitution replaced = PythonRegex.substitute(regexp, template, text.substring(start, end));
        String edited = text.substring(0, start) + replaced.text() + text.substring(end);
        String summary = replaced.count() + (replaced.count() == 1 ? " replacement" : " replacements") + " made in " + path;
        String converged = replaced.count() == 0 ? "regexp matched nothing in " + path
                : path + " already reads as replaced (" + replaced.count() + (replaced.count() == 1 ? " match gives" : " matches give")
                        + " the same text)";
        return FileContentPlanner.update(target, existing.get(), edited.getBytes(StandardCharsets.UTF_8), attributes, summary, converged);
    }

    /** Ansible's section pattern: the text after {@code after}, before {@code before}, or between. */
    private static Optional<Pattern> section(Params params) throws ModuleException {
        // Ansible tests them for truth: an empty after or before is not given
        Optional<String> after = params.optString("after").filter(s -> !s.isEmpty());
        Optional<String> before = params.optString("before").filter(s -> !s.isEmpty());
        if (after.isEmpty() && before.isEmpty()) {
            return Optional.empty();
        }
        String pattern = after.isPresent() && before.isPresent() ? after.get() + "(?P<subsection>.*?)" + before.get()
                : after.isPresent() ? after.get() + "(?P<subsection>.*)"
                : "(?P<subsection>.*)" + before.get();
        String named = after.isPresent() && before.isPresent() ? "after/before" : after.isPresent() ? "after" : "before";
        return Optional.of(compile(named, pattern, Pattern.DOTALL));
    }

    private static Pattern compile(String name, String regex, int flags) throws ModuleException {
        try {
            return PythonRegex.compile(regex, flags);
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
