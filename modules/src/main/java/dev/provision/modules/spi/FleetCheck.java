package dev.provision.modules.spi;

import java.util.List;
import java.util.Map;

/**
 * Optionally implemented by a {@link TaskModule} whose verdict needs every host's result: clocks
 * within a spread, one image digest everywhere, one CUDA stack, slow-node detection against the fleet
 * median. Per-host checks cannot see each other; this is the aggregation step after them.
 *
 * <p>Contract: after the task has run on every host of the batch, the engine calls {@link #compare}
 * once, on one thread, with each host's {@link Plan#result()} (hosts whose task was skipped, failed
 * before planning, or that were unreachable are absent). It returns, per host, extra
 * {@link CheckResult} rows, which join the host's table; a host with a {@link Verdict#FAIL} row fails
 * the task. It must not block or do I/O: everything it needs (thresholds, measured values) must be in
 * the results.
 */
public interface FleetCheck {
    Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost);
}
