package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * A connection whose every command ends by one deadline: the time limit of a task on one host
 * ({@code timeout:}, else {@code --task-timeout}). Each command gets what is left of it as its own
 * limit, so the connection kills the one that runs past it (with its process group); a task that has
 * no time left fails at once. Closing it leaves the connection open: it is the run's, not the task's.
 */
public final class TimeLimitedConnection implements Connection {
    private final Connection connection;
    private final Duration limit;
    private final String setBy;
    private final long deadline;

    private TimeLimitedConnection(Connection connection, Duration limit, String setBy) {
        this.connection = requireNonNull(connection, "connection cannot be null");
        this.limit = requireNonNull(limit, "limit cannot be null");
        this.setBy = requireNonNull(setBy, "setBy cannot be null");
        this.deadline = System.nanoTime() + limit.toNanos();
    }

    /**
     * {@code connection} until {@code limit} from now.
     *
     * @param setBy where the limit comes from, for the message ({@code timeout: 30})
     */
    public static TimeLimitedConnection of(Connection connection, Duration limit, String setBy) {
        return new TimeLimitedConnection(connection, limit, setBy);
    }

    @Override
    public void upload(dev.provision.modules.spi.Command.UploadFile file) throws ConnectionException {
        // the put script needs no variables and bounds its own wait; the wrapped connection may carry it faster
        connection.upload(file);
    }

    @Override
    public boolean isController() {
        return connection.isController();
    }

    /** The same host, the same state: what was read through one holds for the other. */
    @Override
    public ExecTarget target() {
        return connection.target();
    }

    @Override
    public String hostName() {
        return connection.hostName();
    }

    @Override
    public ExecResult exec(ExecRequest request) throws ConnectionException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw timedOut();
        }
        Duration remaining = Duration.ofNanos(left);
        ExecRequest bounded = request.timeout().compareTo(remaining) <= 0 ? request : request.withTimeout(remaining);
        try {
            return connection.exec(bounded);
        } catch (UnreachableException e) {
            throw e;
        } catch (ConnectionException e) {
            if (System.nanoTime() - deadline >= 0) {
                throw timedOut();
            }
            throw e;
        }
    }

    private ConnectionException timedOut() {
        return new ConnectionException("timed out after " + Durations.human(limit) + " (" + setBy + "); its command was killed");
    }

    @Override
    public void close() {
        // The run's connection outlives the task.
    }
}
