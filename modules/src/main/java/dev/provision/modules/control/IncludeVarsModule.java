package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code include_vars}: reads a YAML (or JSON) vars file on the controller and sets its variables on
 * the host for the later tasks of the run, as {@code set_fact} does; changes nothing on the host. The
 * file name may be templated ({@code vars/${ansible_facts.os_family}.yml}), so it is read when the
 * task runs; relative names are looked up in the role's {@code vars/}, then the playbook's.
 *
 * <p>Parameters: {@code file} (or the free form), {@code name} (put every variable under this one
 * instead of at the top). Ansible's directory form ({@code dir}, {@code files_matching}, ...) is
 * refused with what to write instead.
 */
public final class IncludeVarsModule implements TaskModule {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .freeForm("file")
            .optional("file", Type.STRING)
            .optional("name", Type.STRING)
            .optional("dir", Type.STRING)
            .optional("files_matching", Type.STRING)
            .optional("depth", Type.INT)
            .optional("extensions", Type.LIST)
            .optional("ignore_files", Type.LIST)
            .optional("ignore_unknown_extensions", Type.BOOL)
            .optional("hash_behaviour", Type.STRING)
            .requiredOneOf("file", "dir")
            .build();

    public IncludeVarsModule() {
    }

    @Override
    public String name() {
        return "include_vars";
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
        for (String directoryForm : new String[] {"dir", "files_matching", "depth", "extensions", "ignore_files",
                "ignore_unknown_extensions"}) {
            if (params.has(directoryForm)) {
                throw new ModuleException("include_vars '" + directoryForm + "' (a directory of vars files) is not "
                        + "supported; name each file with its own include_vars task, or list them in the play's vars_files");
            }
        }
        if (params.has("hash_behaviour")) {
            throw new ModuleException("include_vars 'hash_behaviour' is not supported: a variable from the file replaces "
                    + "one of the same name, as with Ansible's default (replace); remove it");
        }
        String file = params.string("file");
        Map<String, Object> loaded = context.controllerVars(file);
        for (String name : loaded.keySet()) {
            if (!IDENTIFIER.matcher(name).matches()) {
                throw new ModuleException("vars file '" + file + "' sets '" + name + "', which is not a valid variable "
                        + "name (letters, digits and '_', not starting with a digit)");
            }
        }
        Optional<String> under = params.optString("name");
        if (under.isPresent() && !IDENTIFIER.matcher(under.get()).matches()) {
            throw new ModuleException("'" + under.get() + "' is not a valid variable name for 'name'");
        }
        Map<String, Object> facts = new LinkedHashMap<>();
        if (under.isPresent()) {
            facts.put(under.get(), loaded);
        } else {
            facts.putAll(loaded);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("ansible_included_var_files", java.util.List.of(file));
        return Plan.converged("read " + file).withFacts(facts).withResult(result);
    }
}
