package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * What a module would do. An empty {@link #changes} list means "already converged" and
 * {@link #reason} says why; the engine reports the task {@code ok} with that reason.
 *
 * @param changes the ordered changes to apply; empty when converged
 * @param reason why nothing needs to change (or a one-line description of what the plan does)
 * @param facts variables to set on the host for later tasks ({@code set_fact}); applied even in
 *     a --check run because they change nothing on the host
 * @param result extra values for {@code register} and the output ({@code msg} of {@code debug})
 */
public record Plan(List<Change> changes, String reason, Map<String, Object> facts, Map<String, Object> result) {
    public Plan {
        changes = List.copyOf(changes);
        requireNonNull(reason, "reason cannot be null");
        facts = Map.copyOf(facts);
        result = Map.copyOf(result);
    }

    /** Nothing to do, and why. */
    public static Plan converged(String reason) {
        return new Plan(List.of(), reason, Map.of(), Map.of());
    }

    public static Plan of(Change... changes) {
        return new Plan(List.of(changes), "", Map.of(), Map.of());
    }

    public static Plan of(List<Change> changes, String reasonWhenEmpty) {
        return new Plan(changes, changes.isEmpty() ? reasonWhenEmpty : "", Map.of(), Map.of());
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    public Plan withFacts(Map<String, Object> facts) {
        return new Plan(changes, reason, facts, result);
    }

    public Plan withResult(Map<String, Object> result) {
        return new Plan(changes, reason, facts, result);
    }
}
