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

/**
 * {@code template}: renders a controller-side template with the host's variables, then plans the
 * result exactly as {@code copy} plans {@code content} (see {@link FileContentPlanner}).
 *
 * <p>Parameters: {@code src} (required; a template name on the template search path),
 * {@code dest} (required, absolute; its directory must exist), {@code mode}, {@code owner},
 * {@code group} (see {@link FileAttributes}).
 */
public final class TemplateModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("src", Type.STRING)
                    .required("dest", Type.STRING))
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
        String dest = FilePaths.requireAbsolute("dest", params.string("dest"));
        Attributes attributes = FileAttributes.requested(params);
        byte[] content = context.templates().render(params.string("src")).getBytes(StandardCharsets.UTF_8);
        return FileContentPlanner.plan(context.host(), dest, content, attributes, CopyModule.convergedReason(dest, attributes));
    }
}
