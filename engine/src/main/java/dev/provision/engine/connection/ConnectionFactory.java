package dev.provision.engine.connection;

import java.util.Map;

/**
 * Opens the one connection a run keeps per host, choosing local or SSH from the host's variables
 * ({@code ansible_connection}, {@code ansible_host}, {@code ansible_port}, {@code ansible_user},
 * {@code ansible_ssh_private_key_file}, ...). Thread-safe: the executor opens hosts in parallel.
 */
public interface ConnectionFactory extends AutoCloseable {
    /**
     * @param hostName the inventory name
     * @param hostVars the host's variables after inventory merging
     * @throws UnreachableException when the host cannot be reached or authenticated
     */
    Connection open(String hostName, Map<String, Object> hostVars) throws UnreachableException;

    @Override
    default void close() {
    }
}
