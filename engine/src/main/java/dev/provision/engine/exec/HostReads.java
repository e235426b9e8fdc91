package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.modules.spi.FileStat;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a task has read of one host (file stats, small files' contents), kept while nothing has
 * changed the host: the items of a loop share it (eight {@code sysctl} items read their drop-in
 * file once), and it is forgotten as soon as an item applies a change, before a retry of
 * {@code until}, and when the connection changes ({@code delegate_to} an item's host).
 */
final class HostReads {
    /** The exchanges the task has had with the host (all items), for the report's {@code round_trips}. */
    final java.util.concurrent.atomic.AtomicInteger exchanges = new java.util.concurrent.atomic.AtomicInteger();
    private Connection source;
    private final Map<String, Optional<FileStat>> stats = new HashMap<>();
    private final Map<String, byte[]> contents = new HashMap<>();
    /**
     * Probe answers read ahead for a loop's items ({@link dev.provision.modules.spi.TaskModule#prefetch}):
     * each is taken once, by the item that asks it; a change applied by an earlier item does not
     * drop them (the module vouched that no other item changes them).
     */
    private final Map<java.util.List<String>, dev.provision.modules.spi.ProbeResult> prefetched = new HashMap<>();

    /** Reads are about to go through {@code connection}; what came through another one is dropped. */
    void readingFrom(Connection connection) {
        // each item's time limit and environment are its own; the host is the same
        if (connection instanceof dev.provision.engine.connection.TimeLimitedConnection bounded) {
            connection = bounded.wrapped();
        }
        if (connection instanceof dev.provision.engine.connection.EnvironmentConnection withVariables) {
            connection = withVariables.wrapped();
        }
        if (connection instanceof dev.provision.engine.connection.CountingConnection counted) {
            connection = counted.wrapped();
        }
        if (source != connection) {
            forget();
            source = connection;
        }
    }

    void forget() {
        stats.clear();
        contents.clear();
    }

    void prefetched(Map<java.util.List<String>, dev.provision.modules.spi.ProbeResult> answers) {
        prefetched.putAll(answers);
    }

    /** The answer read ahead for {@code probe}, taken (a second ask runs it again); null when none. */
    dev.provision.modules.spi.ProbeResult takePrefetched(java.util.List<String> probe) {
        return prefetched.remove(probe);
    }

    /** Null when not read yet. */
    Optional<FileStat> stat(String path) {
        return stats.get(path);
    }

    void stat(String path, Optional<FileStat> stat) {
        stats.put(path, stat);
    }

    /** Null when not read yet. */
    byte[] content(String path) {
        return contents.get(path);
    }

    void content(String path, byte[] content) {
        contents.put(path, content);
    }
}
