package dev.provision.engine.report;

import java.util.List;
import java.util.Map;

/**
 * Observes a run. Every method has a no-op default. Contract: methods are called from worker
 * threads but never concurrently for one run (the executor serialises events); they must be fast and
 * must not throw (a listener's failure is swallowed so it can never break a run).
 */
public interface RunListener {

    default void playStarted(String name, List<String> hosts, boolean check) {
    }

    default void noHostsMatched(String pattern) {
    }

    /** A task begins on every host of the batch; {@code handler} for {@code RUNNING HANDLER}. */
    default void taskStarted(String name, String position, boolean handler) {
    }

    /**
     * Live progress of the current step ({@code Gathering Facts}, a task or a handler): {@code done}
     * of {@code total} hosts have finished it. Called as hosts finish, before their
     * {@link #hostResult} events; calls are serialised like every other event.
     */
    default void progress(String step, int done, int total) {
    }

    /**
     * {@link #progress(String, int, int)} with what the step moves, measured as it runs
     * ({@code 12.3 MB received, 4.1 MB/s, 230 files/s}): a transfer's rounds call it every few
     * seconds. A listener that draws no rates keeps the default, which drops {@code rate}.
     */
    default void progress(String step, int done, int total, String rate) {
        progress(step, done, total);
    }

    /** One host's result for the current task, in host order. */
    default void hostResult(TaskResult result) {
    }

    /** The run ended: per-host counters in inventory order, and the retry hint (empty when none). */
    default void recap(Map<String, HostStats> stats, String retryHint) {
    }

    /** A warning for the operator (pattern matched nothing, deprecated form, ...). */
    default void warning(String message) {
    }
}
