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
import java.util.Optional;

/**
 * {@code include_vars}: reads a YAML (or JSON) vars file on the controller and sets its variables on
 * the host for the later tasks of the run, as {@code set_fact} does; changes nothing on the host. The
 * file name may be templated ({@code vars/${ansible_facts.os_family}.yml}), so it is read when the
 * task runs; relative names are looked up in the role's {@code vars/}, then the playbook's.
 *
 * <p>Parameters: {@code file} (or the free form), {@code name} (put every variable under this one
 * instead of at the top). Ansible's directory form ({@code dir}, {@code files_matching}, ...) is
 * refused with what to write instead, where it is written ({@link ParamSpec.Builder#refused}).
 */
public final class IncludeVarsModule implements TaskModule {
    private static final String DIRECTORY_FORM = "include_vars reads one file, not a directory of them; name each file "
            + "with its own include_vars task, or list them in the play's vars_files";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .freeForm("file")
            .required("file", Type.STRING)
            .optional("name", Type.STRING)
            .refused("dir", DIRECTORY_FORM)
            .refused("files_matching", DIRECTORY_FORM)
            .refused("depth", DIRECTORY_FORM)
            .refused("extensions", DIRECTORY_FORM)
            .refused("ignore_files", DIRECTORY_FORM)
            .refused("ignore_unknown_extensions", DIRECTORY_FORM)
            .refused("hash_behaviour", "a variable from the file replaces one of the same name, as with Ansible's "
                    + "default (replace); remove it")
            .build();

    public IncludeVarsModule() {
    }

    @Override
    public String name() {
        return "include_vars";
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
        String file = params.string("file");
        Map<String, Object> loaded = context.controllerVars(file); // its keys are variable names
        Optional<String> under = params.optString("name");
        if (under.isPresent() && !ShellWords.isName(under.get())) {
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
