package dev.provision.engine.exec;

import dev.provision.engine.playbook.ModuleCatalog;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.TaskModule;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/** The modules on the class path, found with {@link ServiceLoader}; adding one never touches the engine. */
public final class ModuleRegistry implements ModuleCatalog {
    private final Map<String, TaskModule> modules;

    private ModuleRegistry(Map<String, TaskModule> modules) {
        this.modules = Map.copyOf(modules);
    }

    public static ModuleRegistry load() {
        Map<String, TaskModule> found = new TreeMap<>();
        for (TaskModule m : ServiceLoader.load(TaskModule.class)) {
            TaskModule previous = found.putIfAbsent(m.name(), m);
            if (previous != null) {
                throw new IllegalStateException("two modules named " + m.name() + ": "
                        + previous.getClass().getName() + " and " + m.getClass().getName());
            }
        }
        return new ModuleRegistry(found);
    }

    /** These modules and {@code more} (a test's own), a name taken twice refused as by {@link #load}. */
    ModuleRegistry with(java.util.List<TaskModule> more) {
        Map<String, TaskModule> all = new TreeMap<>(modules);
        for (TaskModule m : more) {
            if (all.putIfAbsent(m.name(), m) != null) {
                throw new IllegalStateException("two modules named " + m.name());
            }
        }
        return new ModuleRegistry(all);
    }

    public Optional<TaskModule> module(String name) {
        return Optional.ofNullable(modules.get(name));
    }

    @Override
    public Set<String> names() {
        return new java.util.TreeSet<>(modules.keySet());
    }

    @Override
    public Optional<ParamSpec> spec(String moduleName) {
        return module(moduleName).map(TaskModule::params);
    }
}
