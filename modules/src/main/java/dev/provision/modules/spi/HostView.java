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

    /**
     * Every path below {@code directory} (the directory itself left out), in path order, each with
     * what {@link #stat} says of it: symlinks are listed, never followed nor descended into. In a dry
     * run the listing is the forecast one: what earlier tasks of this run would create below the
     * directory is in it, what they would remove is not. The default lists through the
     * {@link FileTree} probe.
     *
     * @throws ModuleException when the directory cannot be listed (missing, not a directory, unreadable)
     */
    default java.util.SortedMap<String, FileStat> walk(String directory) throws ModuleException {
        ProbeResult listing = probe(FileTree.argv(directory).toArray(String[]::new));
        if (!listing.ok()) {
            throw new ModuleException("cannot list " + directory + ": " + listing.stderr().strip());
        }
        try {
            return FileTree.parse(directory, listing.stdout());
        } catch (IllegalArgumentException e) {
            throw new ModuleException("cannot list " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether an earlier task of this run changes {@code path} (or, for a directory, anything under
     * it) and the host does not hold that change
     * yet (a dry run): {@link #readFile} already answers with the new content, but a tool that reads
     * the file itself (a probe) still sees the old one. A module whose probe depends on such a file
     * plans from what the file will say, not from what the tool answers now.
     */
    default boolean changesPending(String path) {
        return false;
    }

    /**
     * What {@code probe} answers once an earlier plan of this run is applied, when the host does not
     * hold that change yet (a dry run; see {@link Plan#afterwards}); empty otherwise. {@link #probe}
     * answers the same; this asks without touching the host.
     */
    default Optional<ProbeResult> pendingAnswer(java.util.List<String> probe) {
        return Optional.empty();
    }

    /**
     * Whether the host's regular file {@code path} holds exactly the bytes of the controller file
     * {@code source}, asked without bringing the host's file over: its SHA-256 computed on the host
     * against the source's ({@link ControllerFileDigests}). A connection to the controller itself
     * may compare the two files directly.
     */
    default boolean holdsControllerFile(String path, java.nio.file.Path source) throws ModuleException {
        return ControllerFileDigests.sameDigest(probe("sha256sum", "--", path), path, ControllerFileDigests.sha256(source));
    }

    /**
     * A hint, given before reading {@code path}: the module expects the file to hold the same bytes on
     * every host of the task (a cluster-wide file such as {@code ssh_known_hosts}, not one with each
     * host's own lines), so the engine may ask a host for the file's digest even before another host
     * has sent the file. What the reads answer is the same either way; a wrong hint costs a host a
     * second read. The default does nothing.
     */
    default void expectSameOnEveryHost(String path) {
    }
}
