package dev.provision.modules.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The inventory as a module may read it while planning for one host: groups and other hosts'
 * variables ({@code hosts} builds {@code /etc/hosts} from a group). Read-only.
 */
public interface InventoryView {
    /** The hosts of group {@code name} in inventory order; empty when the inventory has no such group. */
    Optional<List<String>> group(String name);

    /**
     * Host {@code host}'s variables as a task on that host sees them: its inventory variables,
     * run-time variables and facts (under {@code facts}). While hosts run ahead of each other, the
     * engine waits until that host has caught up before it answers. Empty for an unknown host.
     */
    Map<String, Object> hostVars(String host);

    /**
     * The view over a task's variables as the engine gives them ({@code groups}: group name to host
     * names; {@code hostvars}: host name to that host's variables, a lazy view that waits for a host
     * running behind): what {@link TaskContext#inventory()} returns.
     */
    static InventoryView of(Map<String, Object> variables) {
        return new InventoryView() {
            @Override
            public Optional<List<String>> group(String name) {
                if (variables.get("groups") instanceof Map<?, ?> groups && groups.get(name) instanceof List<?> members) {
                    return Optional.of(members.stream().map(String::valueOf).toList());
                }
                return Optional.empty();
            }

            @Override
            @SuppressWarnings("unchecked")
            public Map<String, Object> hostVars(String host) {
                if (variables.get("hostvars") instanceof Map<?, ?> hostvars && hostvars.get(host) instanceof Map<?, ?> vars) {
                    return (Map<String, Object>) vars;
                }
                return Map.of();
            }
        };
    }
}
