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
    /**
     * What a path would be: present with content/stat, or removed; a host-side copy whose source the
     * forecast does not hold reads its content from that source on the host ({@code copiedFrom}).
     */
    private record Entry(Optional<byte[]> content, Optional<FileStat> stat, Optional<String> copiedFrom, boolean ownerGuessed) {
        Entry(Optional<byte[]> content, Optional<FileStat> stat) {
            this(content, stat, Optional.empty(), false);
        }

        Entry(Optional<byte[]> content, Optional<FileStat> stat, Optional<String> copiedFrom) {
            this(content, stat, copiedFrom, false);
        }
    }

    /**
     * A run's plan read the owner of a file an earlier task of the same plan makes, as a user whose
     * group the forecast cannot name: the task is planned again in its turn, against the host.
     */
    static final class OwnerUnknown extends RuntimeException {
        OwnerUnknown(String path) {
            super("the owner of " + path + " is known once it is made", null, false, false);
        }
    }

    private final Map<String, Entry> paths = new ConcurrentHashMap<>();
    private final Map<List<String>, ProbeResult> probes = new ConcurrentHashMap<>();
    /** How often it was told of a command or of what probes answer afterwards: what it answers changes only with this. */
    private final java.util.concurrent.atomic.AtomicInteger version = new java.util.concurrent.atomic.AtomicInteger();

    /** Whether what the commands make is root's (group root); else their owner is a guess, which a run must not read. */
    private final boolean makesAsRoot;

    /**
     * Check mode's forecast: a file an earlier task would make is forecast root's, as the commands
     * of a run as root make it (for another user, the dry run shows contents rightly, owners not).
     */
    Forecast() {
        this(true);
    }

    private Forecast(boolean makesAsRoot) {
        this.makesAsRoot = makesAsRoot;
    }

    /**
     * The forecast a run plans consecutive changes against before applying them together: a file
     * that one of them makes has the owner {@code runsAsRoot} says (root, group root); as another
     * user its owner is not known, and a plan that reads it is {@link OwnerUnknown} (a lineinfile
     * after a copy would otherwise give the file to root, or fail to).
     */
    static Forecast forRun(boolean runsAsRoot) {
        return new Forecast(runsAsRoot);
    }

    /**
     * Records what {@code plan} would have done, not applied: each command's effect on the paths it
     * touches (their state now read through {@code view}), then what its probes would answer.
     */
    void record(Plan plan, ConnectionHostView view) throws dev.provision.engine.connection.UnreachableException {
        for (dev.provision.modules.spi.Change change : plan.changes()) {
            for (Command command : change.commands()) {
                String path = switch (command) {
                    case Command.SetAttributes a -> a.path();
                    case Command.PutFile p -> p.path();
                    case Command.UploadFile u -> u.path();
                    case Command.MakeDirectory d -> d.path();
                    case Command.HardLink h -> h.target();
                    case Command.CopyFile f -> f.source();
                    default -> "";
                };
                Optional<dev.provision.modules.spi.FileStat> current = Optional.empty();
                if (!path.isEmpty()) {
                    try {
                        current = view.stat(path);
                    } catch (dev.provision.modules.spi.ModuleException e) {
                        current = Optional.empty();
                    }
                }
                record(command, current);
            }
        }
        record(plan);
    }

    /** Records what probes answer once a plan that was not applied would have been (see {@link Plan#afterwards}). */
    void record(Plan plan) {
        if (!plan.afterwards().isEmpty()) {
            version.incrementAndGet();
            probes.putAll(plan.afterwards());
        }
    }

    /** The forecast answer of a probe: empty when the forecast knows nothing of it. */
    Optional<ProbeResult> probe(List<String> argv) {
        return Optional.ofNullable(probes.get(argv));
    }

    /** Whether it holds nothing: no plan recorded changed a path or said what a probe answers afterwards. */
    boolean isEmpty() {
        return paths.isEmpty() && probes.isEmpty();
    }

    /** A number that changes whenever what it answers may (see {@link #version}). */
    int version() {
        return version.get();
    }

    /** Whether an earlier task of this run would change {@code path} or anything under it (the host does not hold it yet). */
    boolean changes(String path) {
        String under = path.endsWith("/") ? path : path + "/";
        return paths.containsKey(path) || paths.keySet().stream().anyMatch(k -> k.startsWith(under));
    }

    /** Records the effect of a command that was planned but not applied. */
    void record(Command command, Optional<FileStat> current) {
        version.incrementAndGet();
        switch (command) {
            case Command.PutFile p -> {
                Optional<FileStat> existing = current.filter(s -> s.type() == FileStat.Type.FILE);
                FileStat base = existing.orElse(new FileStat(FileStat.Type.FILE, 0644, "root", "root", 0, ""));
                paths.put(p.path(), new Entry(Optional.of(p.content()), Optional.of(withAttributes(
                        new FileStat(FileStat.Type.FILE, base.mode(), base.owner(), base.group(), p.content().length, ""), p.attributes())),
                        Optional.empty(), guessed(existing, p.attributes())));
            }
            case Command.MakeDirectory d -> {
                Optional<FileStat> existing = current.filter(s -> s.type() == FileStat.Type.DIRECTORY);
                FileStat base = existing.orElse(new FileStat(FileStat.Type.DIRECTORY, 0755, "root", "root", 4096, ""));
                paths.put(d.path(), new Entry(Optional.empty(), Optional.of(withAttributes(base, d.attributes())), Optional.empty(),
                        guessed(existing, d.attributes())));
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
                    Optional.of(new FileStat(FileStat.Type.LINK, 0777, "root", "root", l.target().length(), l.target())),
                    Optional.empty(), !makesAsRoot));
            case Command.HardLink h -> {
                // current: the stat of the link's target; the new name is that file
                Entry source = paths.get(h.target());
                paths.put(h.path(), source != null ? source
                        : new Entry(Optional.empty(), current, Optional.of(h.target())));
            }
            case Command.CopyFile f -> {
                // current: the stat of the copy's source
                Entry source = paths.get(f.source());
                long size = source != null ? source.content().map(b -> (long) b.length).orElse(0L)
                        : current.map(FileStat::size).orElse(0L);
                FileStat stat = withAttributes(new FileStat(FileStat.Type.FILE, 0644, "root", "root", size, ""), f.attributes());
                boolean ownerGuessed = guessed(Optional.empty(), f.attributes());
                paths.put(f.path(), source != null && source.copiedFrom().isEmpty()
                        ? new Entry(source.content(), Optional.of(stat), Optional.empty(), ownerGuessed)
                        : new Entry(Optional.empty(), Optional.of(stat),
                                Optional.of(source != null ? source.copiedFrom().orElseThrow() : f.source()), ownerGuessed));
            }
            case Command.UploadFile u -> {
                // a large file's bytes are not held: its size and attributes are forecast, its content is not
                Optional<FileStat> existing = current.filter(s -> s.type() == FileStat.Type.FILE);
                FileStat base = existing.orElse(new FileStat(FileStat.Type.FILE, 0644, "root", "root", 0, ""));
                paths.put(u.path(), new Entry(Optional.empty(), Optional.of(withAttributes(
                        new FileStat(FileStat.Type.FILE, base.mode(), base.owner(), base.group(), u.size(), ""), u.attributes())),
                        Optional.empty(), guessed(existing, u.attributes())));
            }
            case Command.Exec e -> { }
            case Command.Shell s -> { }
            case Command.AwaitReboot r -> { }
            case Command.ControllerFile f -> { }
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

    /** The host path whose content a forecast copy holds: empty when the path is no such copy. */
    Optional<String> copiedFrom(String path) {
        Entry e = paths.get(path);
        return e == null ? Optional.empty() : e.copiedFrom();
    }

    /**
     * A directory listing of the host made forecast: what earlier tasks would create below
     * {@code dir} added (with any parent directory that a {@code mkdir -p} makes), what they would
     * remove dropped.
     */
    java.util.SortedMap<String, FileStat> below(String dir, java.util.SortedMap<String, FileStat> listing) {
        String under = dir.endsWith("/") ? dir : dir + "/";
        java.util.SortedMap<String, FileStat> merged = new java.util.TreeMap<>(listing);
        // Shorter paths first: a removal drops what a later entry may put back below it.
        List<String> keys = paths.keySet().stream().filter(k -> k.startsWith(under) && k.length() > under.length())
                .sorted(java.util.Comparator.comparingInt(String::length).thenComparing(java.util.Comparator.naturalOrder())).toList();
        for (String key : keys) {
            Optional<FileStat> stat = paths.get(key).stat();
            if (stat.isEmpty()) {
                merged.remove(key);
                merged.keySet().removeIf(k -> k.startsWith(key + "/"));
                continue;
            }
            merged.put(key, stat.get());
            for (String p = key.substring(0, key.lastIndexOf('/')); p.length() > under.length() - 1 && p.startsWith(under); p = p.substring(0, p.lastIndexOf('/'))) {
                merged.putIfAbsent(p, new FileStat(FileStat.Type.DIRECTORY, 0755, "root", "root", 4096, ""));
            }
        }
        return merged;
    }

    /** The forecast stat of a path: empty when the forecast knows nothing of it. */
    Optional<Optional<FileStat>> stat(String path) {
        Entry e = paths.get(path);
        if (e != null && e.ownerGuessed()) {
            throw new OwnerUnknown(path);
        }
        return e == null ? Optional.empty() : Optional.of(e.stat());
    }

    /** Whether the owner of what a command makes is a guess: a new path, not made as root, its owner or group not given. */
    private boolean guessed(Optional<FileStat> existing, Command.Attributes given) {
        return existing.isEmpty() && !makesAsRoot && (given.owner().isEmpty() || given.group().isEmpty());
    }

    private static FileStat withAttributes(FileStat s, Command.Attributes a) {
        int mode = a.mode().map(m -> Integer.parseInt(m, 8)).orElse(s.mode());
        return s.withAttributes(mode, a.owner().orElse(s.owner()), a.group().orElse(s.group()));
    }
}
