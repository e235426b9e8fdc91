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
 * @param result extra values for {@code register} and the output ({@code msg} of {@code debug}); a
 *     value known only once the plan has run is a {@link RunTimeValue}
 * @param afterwards what read-only probes (argument vectors, as given to {@link HostView#probe})
 *     answer once the changes are applied: a package installed, an image pulled, a mount mounted.
 *     The engine's dry run remembers them, so that a later task of the same run probes the state
 *     this plan makes, as it would when the run applies it (files are remembered from the commands).
 *     Only for probes whose answer this plan alone decides; a module reads its own probes back.
 * @param checks a check task's table, one row per thing it judged; a row that fails fails the task
 *     (the engine's verdict, shown, reported and compared across the fleet as these typed rows)
 */
public record Plan(List<Change> changes, String reason, Map<String, Object> facts, Map<String, Object> result,
                   Map<List<String>, ProbeResult> afterwards, List<CheckResult> checks) {
    public Plan {
        changes = List.copyOf(changes);
        requireNonNull(reason, "reason cannot be null");
        facts = Map.copyOf(facts);
        result = Map.copyOf(result);
        afterwards = Map.copyOf(afterwards);
        checks = List.copyOf(checks);
    }

    public Plan(List<Change> changes, String reason, Map<String, Object> facts, Map<String, Object> result) {
        this(changes, reason, facts, result, Map.of(), List.of());
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
        return new Plan(changes, reason, facts, result, afterwards, checks);
    }

    public Plan withResult(Map<String, Object> result) {
        return new Plan(changes, reason, facts, result, afterwards, checks);
    }

    /** This plan with {@code rows} as its check table. */
    public Plan withChecks(List<CheckResult> rows) {
        return new Plan(changes, reason, facts, result, afterwards, rows);
    }

    /** This plan, adding that {@code probe} answers {@code answer} once it is applied (see {@link #afterwards}). */
    public Plan withProbeAfterwards(List<String> probe, ProbeResult answer) {
        Map<List<String>, ProbeResult> more = new java.util.LinkedHashMap<>(afterwards);
        more.put(List.copyOf(probe), answer);
        return new Plan(changes, reason, facts, result, more, checks);
    }
}
