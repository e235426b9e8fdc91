package dev.provision.modules.spi;

import java.util.Map;
import java.util.Optional;

/**
 * Read-only access to a target host. Implementations are bound to one host and one run; calls may
 * travel over the network, so modules should read what they need once.
 */
public interface HostView {

    /** The inventory name of the host. */
    String name();

    /** Facts read once per host per run: hostname, os, addresses, cpus, memory, mounts. */
    Map<String, Object> facts();

    /**
     * Runs a command that must not change the host (a probe: {@code sysctl -n}, {@code dpkg-query}).
     * The argument vector is passed without a shell, so values can never inject shell syntax.
     */
    ProbeResult probe(String... argv) throws ModuleException;

    /** Reads a whole file; empty when it does not exist. */
    Optional<byte[]> readFile(String path) throws ModuleException;

    /** Describes a path without following a final symlink; empty when it does not exist. */
    Optional<FileStat> stat(String path) throws ModuleException;
}
