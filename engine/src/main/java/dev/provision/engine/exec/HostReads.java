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
    /** What the host's next tasks read together, this one's included ({@link ReadAhead}). */
    private final ReadAhead ahead;

    HostReads() {
        this(new ReadAhead());
    }

    HostReads(ReadAhead ahead) {
        this.ahead = java.util.Objects.requireNonNull(ahead, "ahead cannot be null");
    }

    ReadAhead ahead() {
        return ahead;
    }

    /** Reads are about to go through {@code connection}; what came through another one is dropped. */
    void readingFrom(Connection connection) {
        // each item's time limit and environment are its own; the host is the same
        connection = connection.target().host();
        if (source != connection) {
            forget();
            source = connection;
        }
    }

    void forget() {
        stats.clear();
        contents.clear();
    }

    /**
     * What a plan that was just applied wrote, known without reading it back: each file it put whole
     * with its mode, owner and group all given (an existing file's are kept, so a module planning
     * one has them), unless a later command of the plan replaces, removes or links that path. The
     * next item of a loop that edits the same file (twelve sysctl items, one drop-in) then plans
     * against it without a round trip. A program the plan runs is trusted not to rewrite a file the
     * same plan just wrote (it would write the content it wants instead).
     */
    void wrote(dev.provision.modules.spi.Plan plan) {
        java.util.List<dev.provision.modules.spi.Command> commands = plan.changes().stream()
                .flatMap(c -> c.commands().stream()).toList();
        for (int i = 0; i < commands.size(); i++) {
            if (!(commands.get(i) instanceof dev.provision.modules.spi.Command.PutFile put)) {
                continue;
            }
            String path = put.path();
            boolean touchedLater = commands.subList(i + 1, commands.size()).stream().anyMatch(c -> switch (c) {
                case dev.provision.modules.spi.Command.PutFile p -> p.path().equals(path);
                case dev.provision.modules.spi.Command.UploadFile u -> u.path().equals(path);
                case dev.provision.modules.spi.Command.Remove r -> path.equals(r.path()) || path.startsWith(r.path() + "/");
                case dev.provision.modules.spi.Command.Symlink l -> l.path().equals(path);
                case dev.provision.modules.spi.Command.HardLink h -> h.path().equals(path);
                case dev.provision.modules.spi.Command.CopyFile f -> f.path().equals(path);
                case dev.provision.modules.spi.Command.SetAttributes a -> a.path().equals(path);
                default -> false;
            });
            dev.provision.modules.spi.Command.Attributes a = put.attributes();
            if (touchedLater || a.mode().isEmpty() || a.owner().isEmpty() || a.group().isEmpty()
                    || !a.mode().get().matches("0?[0-7]{3,4}")
                    || a.owner().get().matches("\\d+") || a.group().get().matches("\\d+")) { // stat says names
                continue;
            }
            byte[] content = put.content();
            stats.put(path, Optional.of(new FileStat(FileStat.Type.FILE, Integer.parseInt(a.mode().get(), 8), a.owner().get(),
                    a.group().get(), content.length, "")));
            contents.put(path, content);
        }
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
