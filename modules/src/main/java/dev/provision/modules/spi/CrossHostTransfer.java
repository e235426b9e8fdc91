package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Optionally implemented by a {@link TaskModule} whose change is an act of several hosts at once: a
 * data set handed from node to node. Each host's {@link Plan} is the forecast of its part (what it
 * lacks, with the local preparation as commands); the module never runs anything. When the task
 * applies (never under {@code --check}, which stops at the plans), the engine asks round by round
 * which commands start on which hosts at once ({@link Round}), runs them over its own connections,
 * bounded by the round's deadline, and hands back what each answered, as for a {@link CrossHostCheck}.
 *
 * <p>Contract: after the task has run on every host of the batch, and only when it is not in check
 * mode, the engine calls {@link #nextRound} with each host's {@link Plan#result()} (hosts skipped,
 * failed or unreachable before are absent) and the rounds run so far, until it returns empty or
 * {@link #MAX_ROUNDS} rounds ran; then {@link #conclude} once. A host lost during a round is
 * unreachable. Both methods are pure functions of their arguments, called on one thread.
 */
public interface CrossHostTransfer {
    /** The most rounds the engine runs for one task, whatever {@link #nextRound} asks for. */
    int MAX_ROUNDS = 32;

    /** The next round to run, empty when every host that can be served was. */
    Optional<Round> nextRound(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done);

    /** Per host, how its part ended; hosts absent keep the result their plan gave. */
    Map<String, HostOutcome> conclude(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done);

    /**
     * One host's part, once the rounds ran.
     *
     * @param failure why the host did not reach the state its plan promised; empty when it did
     * @param message the host's line when it did not fail (empty: the line its plan gave)
     * @param values result values to add (what it received, the root hash it verified)
     */
    record HostOutcome(Optional<String> failure, String message, Map<String, Object> values) {
        public HostOutcome {
            requireNonNull(failure, "failure cannot be null");
            requireNonNull(message, "message cannot be null");
            values = Map.copyOf(values);
        }
    }
}
