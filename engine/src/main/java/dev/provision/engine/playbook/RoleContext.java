package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;

/**
 * The role a task came from: its directory (for {@code templates/} and {@code files/}), its
 * {@code defaults/main.yml} (lowest precedence) and {@code vars/main.yml} plus role parameters
 * (task-vars precedence).
 */
public record RoleContext(String name, Path directory, Map<String, Object> defaults, Map<String, Object> vars) {
    public RoleContext {
        requireNonNull(name, "name cannot be null");
        requireNonNull(directory, "directory cannot be null");
        defaults = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(defaults));
        vars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(vars));
    }
}
