package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A task's {@code environment:} as a decorator: every command line runs as
 * {@code env NAME=VALUE... /bin/sh -c 'COMMAND'}, each word quoted, so a value can hold anything and
 * never becomes shell. Wrap the become connection with it, not the other way round: the variables
 * are then set inside sudo, which would otherwise drop them (its {@code env_reset}), as Ansible sets
 * them for the module it runs as the become user. Closing it leaves the connection open: it is the
 * run's, not the task's.
 */
public final class EnvironmentConnection implements Connection {
    private final Connection connection;
    private final List<String> prefix;

    private EnvironmentConnection(Connection connection, Map<String, String> variables) {
        this.connection = requireNonNull(connection, "connection cannot be null");
        List<String> words = new ArrayList<>();
        words.add("env");
        variables.forEach((name, value) -> {
            if (!ShellWords.isName(name)) {
                // a name such as "-i" or "a=b" would reach env as an option or change another variable
                throw new IllegalArgumentException("not an environment variable name: " + name);
            }
            if (value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("environment variable " + name + " holds a NUL byte");
            }
            words.add(name + "=" + value);
        });
        this.prefix = List.copyOf(words);
    }

    /** {@code connection} with {@code variables} set for every command; the connection itself when there are none. */
    public static Connection of(Connection connection, Map<String, String> variables) {
        return variables.isEmpty() ? connection : new EnvironmentConnection(connection, variables);
    }

    /** The variables this connection sets, as {@code env}'s words ({@code NAME=value}, in order). */
    public List<String> environment() {
        return prefix.subList(1, prefix.size());
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

    /** The same host, these variables set. */
    @Override
    public ExecTarget target() {
        return connection.target().withEnvironment(environment());
    }

    @Override
    public String hostName() {
        return connection.hostName();
    }

    @Override
    public ExecResult exec(ExecRequest request) throws ConnectionException {
        List<String> words = new ArrayList<>(prefix);
        words.add("/bin/sh");
        words.add("-c");
        words.add(request.commandLine());
        return connection.exec(request.withCommandLine(ShellWords.join(words)));
    }

    @Override
    public void close() {
        // The run's connection outlives the task.
    }
}
