package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.Map;

/**
 * {@code ping}: Ansible's connectivity test. The host was logged in to and runs a command of its
 * shell ({@code true}); the result is {@code ping: DATA}. Changes nothing.
 *
 * <p>Parameters (Ansible's): {@code data} (default {@code pong}), the value returned; {@code crash}
 * fails the task, as Ansible's module raises an exception for it.
 */
public final class PingModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("data", Type.STRING, "pong")
            .build();

    public PingModule() {
    }

    @Override
    public String name() {
        return "ping";
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
        String data = params.string("data");
        if (data.equals("crash")) {
            throw new ModuleException("boom (ping data=crash fails on purpose, as in Ansible)");
        }
        ProbeResult shell = context.host().probe("true");
        if (!shell.ok()) {
            throw new ModuleException("the host's shell cannot run a command: true exited " + shell.exitCode()
                    + (shell.stderr().isBlank() ? "" : ": " + shell.stderr().strip()));
        }
        return Plan.converged(data).withResult(Map.of("ping", data));
    }
}
