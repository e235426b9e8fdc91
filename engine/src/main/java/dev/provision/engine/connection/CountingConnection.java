package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Command;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the exchanges with the host that pass through it: each command run, file written and file
 * read is one round trip (and at least one process started on the host). The run's report gives
 * each task's count ({@code round_trips}): where a task's time goes on a slow node.
 */
public final class CountingConnection implements Connection {
    private final Connection connection;
    private final AtomicInteger exchanges;

    private CountingConnection(Connection connection, AtomicInteger exchanges) {
        this.connection = requireNonNull(connection, "connection cannot be null");
        this.exchanges = requireNonNull(exchanges, "exchanges cannot be null");
    }

    /** {@code connection}, each exchange through it added to {@code exchanges}. */
    public static CountingConnection of(Connection connection, AtomicInteger exchanges) {
        return new CountingConnection(connection, exchanges);
    }

    @Override
    public boolean isController() {
        return connection.isController();
    }

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
        exchanges.incrementAndGet();
        return connection.exec(request);
    }

    // A write or a read is one exchange however the wrapped connection carries it out.
    @Override
    public void put(String path, byte[] content, Command.Attributes attributes) throws ConnectionException {
        exchanges.incrementAndGet();
        connection.put(path, content, attributes);
    }

    @Override
    public void put(Command.PutFile file) throws ConnectionException {
        exchanges.incrementAndGet();
        connection.put(file);
    }

    @Override
    public Steps inOneExchange(java.util.List<Command> steps) throws ConnectionException {
        exchanges.incrementAndGet();
        return connection.inOneExchange(steps);
    }

    @Override
    public void upload(Command.UploadFile file) throws ConnectionException {
        exchanges.incrementAndGet();
        connection.upload(file);
    }

    @Override
    public Optional<byte[]> read(String path) throws ConnectionException {
        exchanges.incrementAndGet();
        return connection.read(path);
    }

    @Override
    public void close() {
        // The run's connection outlives the task.
    }
}
