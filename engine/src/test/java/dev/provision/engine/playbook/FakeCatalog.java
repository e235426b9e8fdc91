package dev.provision.engine.playbook;

import static dev.provision.modules.spi.ParamSpec.Type.STRING;

import dev.provision.modules.spi.ParamSpec;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A few modules with real parameter specs, enough for the loader to validate against. */
public final class FakeCatalog implements ModuleCatalog {
    private final Map<String, ParamSpec> specs = Map.of(
            "copy", ParamSpec.builder().required("dest", STRING).optional("content", STRING)
                    .optional("src", STRING).optional("mode", STRING).build(),
            "command", ParamSpec.builder().optional("cmd", STRING).optional("creates", STRING).freeForm("cmd").build(),
            "debug", ParamSpec.builder().optional("msg", STRING).optional("var", STRING).build(),
            "set_fact", ParamSpec.builder().anyKeys().build(),
            "file", ParamSpec.builder().required("path", STRING, "dest", "name")
                    .choice("state", "file", "file", "directory", "touch", "absent").optional("mode", STRING).build());

    @Override
    public Set<String> names() {
        return specs.keySet();
    }

    @Override
    public Optional<ParamSpec> spec(String moduleName) {
        return Optional.ofNullable(specs.get(moduleName));
    }
}
