package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What runs a command sent through a connection, whatever wraps it: the connection to the host (as
 * its user: a become connection is a target of its own) and the environment variables set for the
 * command. Time limits and counters wrap a connection without changing its target, so reads made
 * through one serve another with the same target. Compared by the connection's identity.
 */
public record ExecTarget(Connection host, List<String> environment) {
    public ExecTarget {
        requireNonNull(host, "host cannot be null");
        environment = List.copyOf(environment);
    }

    /** This target with {@code variables} (words {@code NAME=value}) set before its own. */
    ExecTarget withEnvironment(List<String> variables) {
        List<String> all = new java.util.ArrayList<>(variables);
        all.addAll(environment);
        return new ExecTarget(host, all);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecTarget t && t.host == host && t.environment.equals(environment);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(host) * 31 + environment.hashCode();
    }
}
