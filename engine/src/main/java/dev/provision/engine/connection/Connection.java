package dev.provision.engine.connection;

import dev.provision.modules.spi.Command;
import java.util.Optional;

/**
 * An open, authenticated session with one host, kept for the whole run.
 *
 * <p>Thread safety: implementations must allow concurrent calls (the SSH one opens one channel per
 * call). Closing twice is harmless; calls after close throw {@link ConnectionException}.
 */
public interface Connection extends AutoCloseable {

    /** The inventory name of the host. */
    String hostName();

    /** Runs a command line with {@code /bin/sh -c} semantics and waits for it to end. */
    ExecResult exec(ExecRequest request) throws ConnectionException;

    /**
     * Writes a whole file atomically: a temporary file in the same directory, attributes set, then
     * renamed over {@code path}. The parent directory must exist. Readers see the old or the new
     * content, never a part. Every connection does it the same way, one {@link #exec} each
     * ({@code FileTransfer}), so that a decorator such as become applies to file writes too.
     */
    default void put(String path, byte[] content, Command.Attributes attributes) throws ConnectionException {
        FileTransfer.put(this, new Command.PutFile(path, content, attributes));
    }

    /**
     * Writes a file as {@link #put(String, byte[], Command.Attributes)} does, first running its
     * validator on the temp file and keeping a backup of the target where the command asks for them
     * ({@link Command.PutFile#validate}, {@link Command.PutFile#backup}). A plain write goes through
     * the three-argument form, so that a decorator overriding that one sees every write.
     */
    default void put(Command.PutFile file) throws ConnectionException {
        if (file.validate().isEmpty() && !file.backup()) {
            put(file.path(), file.content(), file.attributes());
        } else {
            FileTransfer.put(this, file);
        }
    }

    /**
     * Runs {@code steps}, writes ({@link Command.PutFile}, as {@link #put(Command.PutFile)} makes them),
     * programs without input ({@link Command.Exec}) and the engine's own shell lines ({@link
     * Command.Shell}, each in a subshell: never a user's script, whose errors would read otherwise), in
     * order, all in one {@link #exec}: a write and the program that applies it, or the changes of
     * consecutive tasks, in one round trip. Stops at the first step that exits non-zero or write that fails.
     */
    default Steps inOneExchange(java.util.List<Command> steps) throws ConnectionException {
        return FileTransfer.inOneExchange(this, steps);
    }

    /**
     * Writes a large controller file as {@link #put(Command.PutFile)} does, its bytes streamed from
     * the file; one {@link #exec}. The source must be as the plan saw it (size, modification time).
     */
    default void upload(Command.UploadFile file) throws ConnectionException {
        FileTransfer.upload(this, file);
    }

    /**
     * What runs the commands sent through this connection: itself, for a connection to a host.
     * Decorators that leave that unchanged (a time limit, a counter) answer their wrapped
     * connection's target; one that sets variables adds them.
     */
    default ExecTarget target() {
        return new ExecTarget(this, java.util.List.of());
    }

    /**
     * Whether the host is the controller itself, as this connection's user: a controller file can
     * then be copied rather than streamed ({@link #upload}). Decorators that keep the user answer
     * for the connection they wrap; become does not (its user may not read the file).
     */
    default boolean isController() {
        return false;
    }

    /** Reads a whole file; empty when it does not exist. One {@link #exec}, like {@link #put}. */
    default Optional<byte[]> read(String path) throws ConnectionException {
        return FileTransfer.read(this, path);
    }

    @Override
    void close();
}
