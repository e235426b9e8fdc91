package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.inventory.Host;
import dev.provision.engine.report.HostStats;
import dev.provision.engine.report.TaskResult;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One host's state during a run: its connection, facts, run-time variables (register, set_fact),
 * notified handlers and counters. Mutated by one worker at a time (the executor hands a host to one
 * task at a time), read by others through {@link #runtimeVars()} snapshots.
 */
final class HostState {
    final Host host;
    final HostStats stats = new HostStats();
    /** Check mode: what earlier tasks would have done to this host's files. */
    final Forecast forecast = new Forecast();
    private Connection connection;
    private Map<String, Object> facts = Map.of();
    private final Map<String, Object> runtimeVars = new LinkedHashMap<>();
    /** The copy {@link #runtimeVars()} hands out until the next {@link #setVar}: read far more often than set. */
    private Map<String, Object> runtimeSnapshot = Map.of();
    private final Set<String> notified = new LinkedHashSet<>();
    private volatile boolean failed;
    private volatile boolean unreachable;
    /** {@code meta: end_host}/{@code end_play}: done with the current play, neither failed nor lost. */
    private volatile boolean endedPlay;

    HostState(Host host) {
        this.host = host;
    }

    String name() {
        return host.name();
    }

    synchronized Optional<Connection> connection() {
        return Optional.ofNullable(connection);
    }

    synchronized void connected(Connection c) {
        this.connection = c;
    }

    synchronized Map<String, Object> facts() {
        return facts;
    }

    synchronized void facts(Map<String, Object> gathered) {
        this.facts = Map.copyOf(gathered);
    }

    synchronized Map<String, Object> runtimeVars() {
        if (runtimeSnapshot == null) {
            runtimeSnapshot = Map.copyOf(runtimeVars);
        }
        return runtimeSnapshot;
    }

    synchronized void setVar(String name, Object value) {
        runtimeVars.put(name, value);
        runtimeSnapshot = null;
    }

    synchronized void notify(String handler) {
        notified.add(handler);
    }

    synchronized Set<String> takeNotified() {
        Set<String> copy = new LinkedHashSet<>(notified);
        notified.clear();
        return copy;
    }

    boolean active() {
        return !failed && !unreachable && !endedPlay;
    }

    /** Ends (true) or starts again (false, a new play) the host's part in the current play. */
    void endedPlay(boolean value) {
        endedPlay = value;
    }

    boolean failed() {
        return failed;
    }

    void failed(boolean value) {
        failed = value;
    }

    boolean unreachable() {
        return unreachable;
    }

    void markUnreachable() {
        unreachable = true;
    }

    /**
     * A task's result on this host, as the run and a saved plan's apply both take it: counted in the
     * host's stats, and a failure or a lost host marks the host (it drops out of the play).
     */
    void took(TaskResult result) {
        stats.count(result.status());
        switch (result.status()) {
            case FAILED -> failed(true);
            case UNREACHABLE -> markUnreachable();
            default -> {
            }
        }
    }

    synchronized void closeConnection() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
