package dev.provision.engine.inventory;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A host of the inventory.
 *
 * @param vars the host's variables, merged: {@code all} group vars, then parent groups before child
 *     groups (siblings in name order), {@code group_vars/} files with their groups, then the host's own
 *     vars and {@code host_vars/} files. Includes {@code inventory_hostname}.
 * @param groups every group the host belongs to, directly or through children, {@code all} included
 */
public record Host(String name, Map<String, Object> vars, List<String> groups) {
    public Host {
        requireNonNull(name, "name cannot be null");
        vars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(vars));
        groups = List.copyOf(groups);
    }
}
