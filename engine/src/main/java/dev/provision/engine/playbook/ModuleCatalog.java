package dev.provision.engine.playbook;

import dev.provision.modules.spi.ParamSpec;
import java.util.Optional;
import java.util.Set;

/**
 * The modules the loader may name, and their parameters, so that an unknown module or a mistyped
 * parameter is an error at load time (with a suggestion), before any host is contacted.
 */
public interface ModuleCatalog {
    /** The canonical names ({@code copy}, {@code lineinfile}, ...). */
    Set<String> names();

    /** The parameters of a module; empty for an unknown name. */
    Optional<ParamSpec> spec(String moduleName);
}
