package dev.provision.engine.exec;

import dev.provision.engine.connection.BecomeConnection;
import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Task;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The run's connections: one per host, opened once and kept for the whole run, plus the ones that
 * {@code delegate_to} needs (localhost or another inventory host), opened on first use.
 *
 * <p>Become is decided here, per task, not when a host is connected: the task's (or its block's)
 * {@code become}/{@code become_user}, else the play's, else the host's {@code ansible_become}/
 * {@code ansible_become_user} (default user root). When become is on and that user is not the login
 * user, the task runs through a {@link BecomeConnection} over the host's one connection. The sudo
 * password is the host's {@code ansible_become_password}, else the run's ({@code -K} or
 * {@code PROVISION_BECOME_PASSWORD}), else none ({@code sudo -n}).
 */
final class Connections implements AutoCloseable {
    private final ConnectionFactory factory;
    private final Inventory inventory;
    private final char[] becomePassword;
    private final String localUser = System.getProperty("user.name", "");
    private final Map<String, Connection> delegates = new ConcurrentHashMap<>();
    /** Become wrappers by connection and user; never closed one by one, as closing one closes the host's connection. */
    private final Map<BecomeKey, BecomeConnection> becomes = new ConcurrentHashMap<>();

    Connections(ConnectionFactory factory, Inventory inventory) {
        this(factory, inventory, new char[0]);
    }

    /** @param becomePassword the run's sudo password, copied; empty for none */
    Connections(ConnectionFactory factory, Inventory inventory, char[] becomePassword) {
        this.factory = factory;
        this.inventory = inventory;
        this.becomePassword = becomePassword.clone();
    }

    Connection open(HostState host) throws UnreachableException {
        Connection c = factory.open(host.name(), host.host.vars());
        host.connected(c);
        return c;
    }

    /**
     * Lets the host's connection go (it is restarting, or lost): closed, and forgotten together with
     * the become wrappers over it, so that the next {@link #open} starts afresh.
     */
    void drop(HostState host) {
        host.connection().ifPresent(c -> {
            becomes.keySet().removeIf(k -> k.connection() == c);
            c.close();
        });
        host.connected(null);
    }

    /** The connection {@code task} runs through on {@code host}: the host's (or its delegate's), with become applied. */
    Connection forTask(Task task, Play play, HostState host) throws UnreachableException {
        if (task.delegateTo().isEmpty() || task.delegateTo().get().equals(host.name())) {
            Connection base = host.connection().orElseThrow(() -> new UnreachableException("no connection to " + host.name()));
            return become(task, play, base, host.host.vars());
        }
        String target = task.delegateTo().get();
        Map<String, Object> vars = delegateVars(target);
        Connection existing = delegates.get(target);
        if (existing != null) {
            return become(task, play, existing, vars);
        }
        Connection opened = factory.open(target, vars);
        Connection raced = delegates.putIfAbsent(target, opened);
        if (raced != null) {
            opened.close();
            return become(task, play, raced, vars);
        }
        return become(task, play, opened, vars);
    }

    private Map<String, Object> delegateVars(String target) {
        return inventory.host(target).map(h -> h.vars())
                .orElse(target.equals("localhost") || target.equals("127.0.0.1")
                        ? Map.of("ansible_connection", "local") : Map.of());
    }

    /**
     * Whether {@code task}'s commands on {@code host} (not delegated) run as root: the become user
     * when become is on, else the login user. Files they make are then root's, group root.
     */
    boolean runsAsRoot(Task task, Play play, HostState host) {
        Map<String, Object> vars = host.host.vars();
        return becomeUser(task, play, vars).orElseGet(() -> loginUser(vars)).equals("root");
    }

    /** The user {@code task} becomes on a host with {@code targetVars}: empty when become is off. */
    private Optional<String> becomeUser(Task task, Play play, Map<String, Object> targetVars) {
        boolean become = task.become().or(play::become).orElseGet(() -> bool(targetVars.get("ansible_become")));
        if (!become) {
            return Optional.empty();
        }
        return Optional.of(task.becomeUser().or(play::becomeUser).or(() -> text(targetVars, "ansible_become_user")).orElse("root"));
    }

    private Connection become(Task task, Play play, Connection base, Map<String, Object> targetVars) {
        Optional<String> wanted = becomeUser(task, play, targetVars);
        if (wanted.isEmpty()) {
            return base;
        }
        String user = wanted.get();
        if (user.equals(loginUser(targetVars))) {
            return base; // already that user: sudo would only add a password prompt
        }
        Optional<String> hostPassword = text(targetVars, "ansible_become_password").or(() -> text(targetVars, "ansible_become_pass"));
        return becomes.computeIfAbsent(new BecomeKey(base, user), key -> {
            if (hostPassword.isPresent()) {
                return new BecomeConnection(base, user, hostPassword.get().toCharArray());
            }
            return becomePassword.length > 0 ? new BecomeConnection(base, user, becomePassword)
                    : new BecomeConnection(base, user);
        });
    }

    /** Who a host's connection logs in as: the local user for local connections, else {@code ansible_user}. */
    private String loginUser(Map<String, Object> vars) {
        boolean local = text(vars, "ansible_connection").map(c -> c.toLowerCase(Locale.ROOT).equals("local")).orElse(false);
        if (local) {
            return localUser;
        }
        return text(vars, "ansible_user").or(() -> text(vars, "ansible_ssh_user")).orElse(localUser);
    }

    private static Optional<String> text(Map<String, Object> vars, String name) {
        Object value = vars.get(name);
        String text = value == null ? "" : value.toString().strip();
        return text.isEmpty() ? Optional.empty() : Optional.of(text);
    }

    private static boolean bool(Object value) {
        if (value instanceof Boolean b) {
            return b;
        }
        return value != null && List.of("true", "yes", "on", "1").contains(value.toString().strip().toLowerCase(Locale.ROOT));
    }

    @Override
    public void close() {
        delegates.values().forEach(Connection::close);
        delegates.clear();
        // Closing a wrapper wipes its copy of the password (and closes the wrapped connection, which
        // is harmless: closing twice is allowed, and the host's own close follows).
        becomes.values().forEach(BecomeConnection::close);
        becomes.clear();
        Arrays.fill(becomePassword, '\0');
    }

    /** Identity of the wrapped connection, not equality: one wrapper per open connection and user. */
    private record BecomeKey(Connection connection, String user) {
        @Override
        public boolean equals(Object o) {
            return o instanceof BecomeKey k && k.connection == connection && k.user.equals(user);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(connection) * 31 + user.hashCode();
        }
    }
}
