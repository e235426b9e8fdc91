package dev.provision.engine.exec;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Check mode's memory of what earlier tasks of this run would have done to one host's files (and to
 * the state its probes read, as the plans declare it), so
 * that later tasks plan against the forecast state (a file a template would create, a directory a
 * file task would make), as they would plan against the real state when applying. Without it, a
 * dry run of a fresh host would fail or mislead at the first dependent task.
 */
final class Forecast {
    /** What a path would be: present with content/stat, or removed. */
    private record Entry(Optional<byte[]> content, Optional<FileStat> stat) {
    }

    private final Map<String, Entry> paths = new ConcurrentHashMap<>();
    private final Map<List<String>, ProbeResult> probes = new ConcurrentHashMap<>();

    /** Records what probes answer once a plan that was not applied would have been (see {@link Plan#afterwards}). */
    void record(Plan plan) {
        probes.putAll(plan.afterwards());
    }

    /** The forecast answer of a probe: empty when the forecast knows nothing of it. */
    Optional<ProbeResult> probe(List<String> argv) {
        return Optional.ofNullable(probes.get(argv));
    }

    /** Whether an earlier task of this run would change {@code path} or anything under it (the host does not hold it yet). */
    boolean changes(String path) {
        String under = path.endsWith("/") ? path : path + "/";
        return paths.containsKey(path) || paths.keySet().stream().anyMatch(k -> k.startsWith(under));
    }

    /** Records the effect of a command that was planned but not applied. */
    void record(Command command, Optional<FileStat> current) {
        switch (command) {
            case Command.PutFile p -> {
                FileStat base = current.filter(s -> s.type() == FileStat.Type.FILE)
                        .orElse(new FileStat(FileStat.Type.FILE, 0644, "root", "root", 0, ""));
                paths.put(p.path(), new Entry(Optional.of(p.content()), Optional.of(withAttributes(
                        new FileStat(FileStat.Type.FILE, base.mode(), base.owner(), base.group(), p.content().length, ""), p.attributes()))));
            }
            case Command.MakeDirectory d -> {
                FileStat base = current.filter(s -> s.type() == FileStat.Type.DIRECTORY)
                        .orElse(new FileStat(FileStat.Type.DIRECTORY, 0755, "root", "root", 4096, ""));
                paths.put(d.path(), new Entry(Optional.empty(), Optional.of(withAttributes(base, d.attributes()))));
            }
            case Command.SetAttributes a -> current.ifPresent(s -> {
                Entry old = paths.get(a.path());
                paths.put(a.path(), new Entry(old == null ? Optional.empty() : old.content(), Optional.of(withAttributes(s, a.attributes()))));
            });
            case Command.Remove r -> {
                paths.keySet().removeIf(k -> k.startsWith(r.path() + "/"));
                paths.put(r.path(), new Entry(Optional.empty(), Optional.empty()));
            }
            case Command.Symlink l -> paths.put(l.path(), new Entry(Optional.empty(),
                    Optional.of(new FileStat(FileStat.Type.LINK, 0777, "root", "root", l.target().length(), l.target()))));
            case Command.Exec e -> { }
            case Command.Shell s -> { }
        }
    }

    /** The forecast content of a file: empty when the forecast knows nothing of it. */
    Optional<Optional<byte[]>> content(String path) {
        Entry e = paths.get(path);
        if (e == null) {
            return Optional.empty();
        }
        return Optional.of(e.stat().isEmpty() ? Optional.empty() : e.content());
    }

    /** The forecast stat of a path: empty when the forecast knows nothing of it. */
    Optional<Optional<FileStat>> stat(String path) {
        Entry e = paths.get(path);
        return e == null ? Optional.empty() : Optional.of(e.stat());
    }

    private static FileStat withAttributes(FileStat s, Command.Attributes a) {
        int mode = a.mode().map(m -> Integer.parseInt(m, 8)).orElse(s.mode());
        return new FileStat(s.type(), mode, a.owner().orElse(s.owner()), a.group().orElse(s.group()), s.size(), s.linkTarget());
    }
}
