package dev.provision.modules.control;

import dev.provision.modules.spi.ConnectionWait;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.time.Duration;

/**
 * {@code wait_for_connection}: waits, bounded, until the host answers over its connection again (after
 * a restart started in the background, say). {@code delay} seconds first, then up to {@code timeout}
 * (600); {@code sleep} and {@code connect_timeout} are accepted for Ansible's playbooks (provision
 * retries every two seconds, each attempt bounded by the connection's own connect timeout). Changes
 * nothing; it waits in a dry run too, as Ansible's does. Prefer {@code reboot}, which restarts and
 * waits in one task and knows a new boot from the old system still shutting down.
 */
public final class WaitForConnectionModule implements TaskModule, ConnectionWait {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("delay", Type.INT, 0)
            .withDefault("timeout", Type.INT, 600)
            .optional("sleep", Type.INT)
            .optional("connect_timeout", Type.INT)
            .build();

    public WaitForConnectionModule() {
    }

    @Override
    public String name() {
        return "wait_for_connection";
    }

    @Override
    public String description() {
        return "waits, bounded, until the host answers over its connection again";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Timing timing(Params params) throws ModuleException {
        long delay = params.integer("delay");
        long timeout = params.integer("timeout");
        if (delay < 0 || timeout < 1) {
            throw new ModuleException("delay must not be negative and timeout must be at least 1");
        }
        return new Timing(Duration.ofSeconds(delay), Duration.ofSeconds(timeout));
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        throw new ModuleException("wait_for_connection is carried out by the engine, not planned");
    }
}
