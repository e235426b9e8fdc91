package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;

/**
 * {@code fail}: always fails the task (usually under a {@code when}).
 *
 * <p>Parameter: {@code msg}, the failure message; default {@code Failed as requested from task}.
 */
public final class FailModule implements TaskModule {
    static final String DEFAULT_MESSAGE = "Failed as requested from task";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("msg", Type.STRING, DEFAULT_MESSAGE)
            .build();

    public FailModule() {
    }

    @Override
    public String name() {
        return "fail";
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
        throw ModuleException.asWritten(params.string("msg"));
    }
}
