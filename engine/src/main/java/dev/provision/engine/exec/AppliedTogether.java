package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.Steps;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.modules.spi.Command;
import java.util.List;
import java.util.Optional;

/**
 * The commands of several items (a loop's, or a run of a host's tasks) applied in one exchange
 * ({@link CommandRunner#together}), then read back item by item in their order: what applying each
 * item's part came to, and whether the sequence stopped there (its first failed write or program
 * ends it; a connection lost fails every part).
 */
final class AppliedTogether {
    /** One item's part: what applying it came to, and whether the sequence stopped in it. */
    record Part(ItemOutcome.Applied applied, boolean stopped) {
    }

    private final Steps done;
    /** Why the exchange did not finish (the connection dropped), or null. */
    private final String lost;
    private int next;

    private AppliedTogether(Steps done, String lost) {
        this.done = done;
        this.lost = lost;
    }

    /** Nothing applied: every part is empty. */
    static AppliedTogether nothing() {
        return new AppliedTogether(new Steps(List.of(), Optional.empty()), null);
    }

    /** Applies {@code commands} (each {@link CommandRunner#inOneExchange}) in one exchange. */
    static AppliedTogether apply(Connection connection, List<Command> commands) throws UnreachableException {
        try {
            return new AppliedTogether(CommandRunner.together(connection, commands), null);
        } catch (UnreachableException e) {
            throw e;
        } catch (ConnectionException e) {
            return new AppliedTogether(new Steps(List.of(), Optional.empty()), e.getMessage());
        }
    }

    /** The next item's part: its {@code commands} commands, after those of the items read before it. */
    Part next(int commands) {
        Steps mine = done.part(next, commands);
        next += commands;
        boolean stopped = lost != null || mine.stopped(commands);
        return new Part(new ItemOutcome.Applied(mine.lastProgram(),
                lost != null ? lost : mine.failedWrite().map(Throwable::getMessage).orElse(null)), stopped);
    }
}
