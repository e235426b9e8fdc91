package dev.provision.modules.files;

import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code template}: renders a controller-side template with the host's variables, then plans the
 * result exactly as {@code copy} plans {@code content} (see {@link FileContentPlanner}).
 *
 * <p>Parameters: {@code src} (required; a template name on the template search path),
 * {@code dest} (required, absolute; an existing directory, or one ending in {@code /}, takes the
 * base name of {@code src}, as in Ansible), {@code force} and {@code follow} (as {@code copy}'s),
 * {@code newline_sequence} ({@code \n} by default, {@code \r\n} or {@code \r}: every line break of
 * the rendered text becomes it, as Jinja2 makes it in Ansible), {@code mode}, {@code owner},
 * {@code group} (see {@link FileAttributes}), {@code validate} and {@code backup} (see {@link ContentChecks}).
 */
public final class TemplateModule implements TaskModule {
    private static final Pattern LINE_BREAK = Pattern.compile("\r\n|\r|\n");
    private static final ParamSpec SPEC = ContentChecks.declare(FileAttributes.declare(ParamSpec.builder()
                    .required("src", Type.STRING)
                    .required("dest", Type.STRING)
                    .withDefault("force", Type.BOOL, true)
                    .withDefault("follow", Type.BOOL, false)
                    .optional("newline_sequence", Type.STRING)))
            .build();

    public TemplateModule() {
    }

    @Override
    public String name() {
        return "template";
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
        Attributes attributes = FileAttributes.requested(params);
        String src = params.string("src");
        // Read before rendering (CopyModule.planFile reads it first too, and the host's answer is kept):
        // a plan that ends at its first read, as one made ahead only to learn what the task reads
        // does, then ends before the rendering, which at a thousand hosts was one rendering in three.
        FilePaths.statFollowing(context.host(), dest);
        String rendered = LINE_BREAK.matcher(context.templates().render(src)).replaceAll(Matcher.quoteReplacement(newlineSequence(params)));
        return CopyModule.planFile(context.host(), dest, Optional.of(FilePaths.basename(src)), rendered.getBytes(StandardCharsets.UTF_8),
                attributes, params.bool("follow"), params.bool("force"));
    }

    /** The line break the rendered text gets; written as the characters or as YAML's escapes ({@code '\\n'}), as Ansible takes both. */
    private static String newlineSequence(Params params) throws ModuleException {
        String written = params.optString("newline_sequence").orElse("\n");
        return switch (written) {
            case "\n", "\\n" -> "\n";
            case "\r\n", "\\r\\n" -> "\r\n";
            case "\r", "\\r" -> "\r";
            default -> throw new ModuleException("newline_sequence needs to be one of: \\n, \\r or \\r\\n");
        };
    }

    /** Its only effect is the file it writes, which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
