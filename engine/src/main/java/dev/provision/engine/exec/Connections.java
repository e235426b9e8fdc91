package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Task;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The run's connections: one per host, opened once and kept for the whole run, plus the ones that
 * {@code delegate_to} needs (localhost or another inventory host), opened on first use.
 */
final class Connections implements AutoCloseable {
    private final ConnectionFactory factory;
    private final Inventory inventory;
    private final Map<String, Connection> delegates = new ConcurrentHashMap<>();

    Connections(ConnectionFactory factory, Inventory inventory) {
        this.factory = factory;
        this.inventory = inventory;
    }

    Connection open(HostState host) throws UnreachableException {
        Connection c = factory.open(host.name(), host.host.vars());
        host.connected(c);
        return c;
    }

    Connection forTask(Task task, HostState host) throws UnreachableException {
        if (task.delegateTo().isEmpty() || task.delegateTo().get().equals(host.name())) {
            return host.connection().orElseThrow(() -> new UnreachableException("no connection to " + host.name()));
        }
        String target = task.delegateTo().get();
        Connection existing = delegates.get(target);
        if (existing != null) {
            return existing;
        }
        Map<String, Object> vars = inventory.host(target).map(h -> h.vars())
                .orElse(target.equals("localhost") || target.equals("127.0.0.1")
                        ? Map.of("ansible_connection", "local") : Map.of());
        Connection opened = factory.open(target, vars);
        Connection raced = delegates.putIfAbsent(target, opened);
        if (raced != null) {
            opened.close();
            return raced;
        }
        return opened;
    }

    @Override
    public void close() {
        delegates.values().forEach(Connection::close);
        delegates.clear();
    }
}
