package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.ShellWords;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code set_fact}: sets host variables for the later tasks of the run; changes nothing on the host.
 *
 * <p>Parameters: any {@code name: value} pairs (names must be identifiers: letters, digits,
 * underscores, not starting with a digit), plus {@code cacheable}, accepted for Ansible
 * compatibility and ignored (there is no fact cache to persist to between runs).
 */
public final class SetFactModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .anyKeys()
            .withDefault("cacheable", Type.BOOL, false)
            .build();

    public SetFactModule() {
    }

    @Override
    public String name() {
        return "set_fact";
    }

    @Override
    public boolean setsVariables() {
        return true;
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
        Map<String, Object> facts = new LinkedHashMap<>(params.asMap());
        facts.remove("cacheable");
        if (facts.isEmpty()) {
            throw new ModuleException("set_fact needs at least one name: value pair");
        }
        for (String name : facts.keySet()) {
            if (!ShellWords.isName(name)) {
                throw new ModuleException("'" + name + "' is not a valid variable name");
            }
        }
        return Plan.converged("set " + String.join(", ", facts.keySet().stream().sorted().toList())).withFacts(facts);
    }
}
