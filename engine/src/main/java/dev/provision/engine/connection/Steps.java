package dev.provision.engine.connection;

import java.util.List;
import java.util.Optional;

/**
 * What a sequence of writes and programs run in one exchange did ({@link Connection#inOneExchange}):
 * for each step that ran, in order, the program's result (empty for a write). The sequence stops
 * at the first program that exits non-zero (its result is the last one) or at the first write that
 * fails ({@link #failedWrite}, the steps before it having run).
 */
public record Steps(List<Optional<ExecResult>> ran, Optional<ConnectionException> failedWrite) {
    public Steps {
        ran = List.copyOf(ran);
    }

    /** Whether the sequence of {@code steps} steps ended before its end: a step failed or did not finish. */
    public boolean stopped(int steps) {
        return failedWrite.isPresent() || ran.size() < steps
                || !ran.isEmpty() && ran.getLast().isPresent() && ran.getLast().get().exitCode() != 0;
    }

    /**
     * What steps {@code from} to {@code from + count} (one item's, of a loop's steps run together) did:
     * those of them that ran, and the failed write where it was one of them.
     */
    public Steps part(int from, int count) {
        int end = Math.min(from + count, ran.size());
        boolean failedHere = ran.size() >= from && ran.size() < from + count;
        return new Steps(ran.subList(Math.min(from, end), end), failedHere ? failedWrite : Optional.empty());
    }

    /** The result of the last program that ran, if any program ran. */
    public Optional<ExecResult> lastProgram() {
        for (int i = ran.size() - 1; i >= 0; i--) {
            if (ran.get(i).isPresent()) {
                return ran.get(i);
            }
        }
        return Optional.empty();
    }
}
