package dev.provision.modules.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Optionally implemented by a {@link TaskModule} whose check is an act of several hosts at once: a
 * collective between two nodes, an RDMA pair. The module still never runs anything: it names, round
 * by round, which commands must start on which hosts at the same time ({@link Round}), and the engine
 * starts them over its own connections, bounds each round by the round's deadline and hands back what
 * every command answered ({@link Round.Outcome}). One host's failure stays that host's (or that
 * gang's) outcome, never a hung task.
 *
 * <p>Contract: after the task has run on every host of the batch, the engine calls
 * {@link #nextRound} with each host's {@link Plan#result()} (hosts whose task was skipped, failed
 * before planning or that were unreachable are absent) and the rounds run so far, runs the round it
 * returns, and asks again, until it returns empty or {@link #MAX_ROUNDS} rounds ran. Then it calls
 * {@link #conclude} once and merges each host's {@link Findings} into that host's result; a host with
 * a {@link Verdict#FAIL} row fails the task. Both methods are pure functions of their arguments: no
 * I/O, no state kept between calls (the history is the state), called on one thread. Check mode
 * does not change any of this: the commands must be read-only measurements, like a probe.
 */
public interface CrossHostCheck {
    /** The most rounds the engine runs for one task, whatever {@link #nextRound} asks for. */
    int MAX_ROUNDS = 8;

    /** The next round to run, empty when the check has what it needs. */
    Optional<Round> nextRound(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done);

    /** Per host, the rows and values to add to its result; hosts absent get nothing. */
    Map<String, Findings> conclude(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done);

    /**
     * What the cross-host step adds to one host's result.
     *
     * @param rows check rows that join the host's table
     * @param values extra result values (figures for the JSON report and the readiness page)
     */
    record Findings(List<CheckResult> rows, Map<String, Object> values) {
        public Findings {
            rows = List.copyOf(rows);
            values = Map.copyOf(values);
        }
    }
}
