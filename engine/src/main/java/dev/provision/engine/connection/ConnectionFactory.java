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

    /**
     * The host keys of a host as the controller verified (this run) or recorded them (earlier runs),
     * as OpenSSH writes them after the names ({@code ssh-ed25519 AAAA...}); empty for local hosts and
     * hosts never contacted. What the cluster's {@code ssh_known_hosts} is built from: never a blind
     * keyscan.
     */
    default java.util.List<String> hostKeys(String hostName, Map<String, Object> hostVars) {
        return java.util.List.of();
    }

    @Override
    default void close() {
    }
}
