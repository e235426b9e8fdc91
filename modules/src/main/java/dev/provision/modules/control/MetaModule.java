package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;

/**
 * {@code meta} (Ansible's): an instruction to the engine, which carries it out where the task stands:
 * {@code flush_handlers} runs the handlers notified so far, {@code end_host} ends the play for the
 * hosts where the task's condition holds, {@code end_play} ends it for all, {@code noop} does nothing.
 * Ansible's other actions ({@code clear_facts}, {@code clear_host_errors}, {@code refresh_inventory},
 * {@code reset_connection}, {@code end_batch}, {@code role_complete}) are refused when the playbook
 * loads. Never planned.
 */
public final class MetaModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .freeForm("action")
            .choice("action", null, "flush_handlers", "noop", "end_host", "end_play")
            .build();

    public MetaModule() {
    }

    @Override
    public String name() {
        return "meta";
    }

    @Override
    public String description() {
        return "flush_handlers, end_host, end_play or noop, carried out by the engine where the task stands";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        throw new ModuleException("meta is carried out by the engine, not planned");
    }
}
