package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A module that waits for the host's connection instead of planning anything
 * ({@code wait_for_connection}): the engine, which owns connections, does the waiting, opening the
 * host's connection again as often as needed within the timeout; the task is {@code ok} when the host
 * answers, and the host unreachable when it does not. {@link TaskModule#plan} is not called.
 */
public interface ConnectionWait {
    /** How long to wait: first {@code delay}, then up to {@code timeout} for an answer. */
    record Timing(Duration delay, Duration timeout) {
        public Timing {
            requireNonNull(delay, "delay cannot be null");
            requireNonNull(timeout, "timeout cannot be null");
        }
    }

    Timing timing(Params params) throws ModuleException;
}
