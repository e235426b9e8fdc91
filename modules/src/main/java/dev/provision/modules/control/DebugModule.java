package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.Map;

/**
 * {@code debug}: shows a message or a variable; changes nothing.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code msg}: any value (default {@code Hello world!}); the result holds it under
 *       {@code msg}.
 *   <li>{@code var}: an expression whose value is shown; the result holds it under the expression
 *       as written. Mutually exclusive with {@code msg}.
 *   <li>{@code verbosity} (default 0): the engine shows the result only from this {@code -v}
 *       level on; the module cannot see the level, so it is the engine's to honour.
 * </ul>
 */
public final class DebugModule implements TaskModule {
    static final String UNDEFINED = "VARIABLE IS NOT DEFINED!";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("msg", Type.ANY)
            .optional("var", Type.STRING)
            .withDefault("verbosity", Type.INT, 0L)
            .mutuallyExclusive("msg", "var")
            .expressions("var")
            .build();

    public DebugModule() {
    }

    @Override
    public String name() {
        return "debug";
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
        if (params.integer("verbosity") < 0) {
            throw new ModuleException("verbosity cannot be negative");
        }
        if (params.has("var")) {
            String var = params.string("var");
            Object value = context.expressions().value(var);
            Object shown = value == null ? UNDEFINED : value;
            return Plan.converged(var + ": " + shown).withResult(Map.of(var, shown));
        }
        Object msg = params.has("msg") ? params.raw("msg") : "Hello world!";
        return Plan.converged(String.valueOf(msg)).withResult(Map.of("msg", msg));
    }
}
