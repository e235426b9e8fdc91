package dev.provision.modules.testing;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A host held in memory: files with their stat entries, probe answers keyed by argv, and facts.
 * {@link #apply} carries out a plan's file commands, so that a test can plan, apply and plan again
 * (the plan must then be empty). Adding a file or directory adds its missing parents, as root-owned
 * directories with mode 0755. Every file has its own inode unless {@link #hardLink} made two names
 * of one; {@link #walk} lists what the map holds, and {@code sha256sum -z} probes are answered from
 * the contents. An {@code Exec} does nothing unless the test says what it does with
 * {@link #onExec} (typically: answer a probe differently afterwards, as a real {@code sysctl -w}
 * changes what {@code sysctl -n} prints). Not thread-safe; one per test.
 */
public final class FakeHost implements HostView {
    private final Map<String, byte[]> contents = new HashMap<>();
    private final Map<String, FileStat> stats = new HashMap<>();
    private final Map<List<String>, ProbeResult> probes = new HashMap<>();
    private final Map<String, Object> facts = new LinkedHashMap<>();
    private final List<List<String>> probesRun = new ArrayList<>();
    private final Map<List<String>, Consumer<FakeHost>> execEffects = new HashMap<>();
    private final List<List<String>> execsRun = new ArrayList<>();
    private final List<String> pending = new ArrayList<>();
    private long nextInode = 100;
    private final Map<List<String>, ProbeResult> pendingAnswers = new HashMap<>();

    public FakeHost() {
        stats.put("/", stat(FileStat.Type.DIRECTORY, "0755", "root", "root", 0, ""));
    }

    public FakeHost file(String path, String content) {
        return file(path, content, "0644", "root", "root");
    }

    public FakeHost file(String path, String content, String mode, String owner, String group) {
        return bytes(path, content.getBytes(StandardCharsets.UTF_8), mode, owner, group);
    }

    public FakeHost bytes(String path, byte[] content, String mode, String owner, String group) {
        parents(path);
        contents.put(path, content.clone());
        stats.put(path, stat(FileStat.Type.FILE, mode, owner, group, content.length, ""));
        return this;
    }

    public FakeHost directory(String path) {
        return directory(path, "0755", "root", "root");
    }

    public FakeHost directory(String path, String mode, String owner, String group) {
        parents(path);
        stats.put(path, stat(FileStat.Type.DIRECTORY, mode, owner, group, 4096, ""));
        return this;
    }

    /** A second name for the file at {@code target}: one inode, two links, one content. */
    public FakeHost hardLink(String path, String target) {
        parents(path);
        FileStat t = stats.get(target);
        FileStat shared = new FileStat(t.type(), t.mode(), t.owner(), t.group(), t.size(), "", t.device(), t.inode(), t.links() + 1);
        stats.replaceAll((p, s) -> s.sameFileAs(t) ? shared : s);
        stats.put(path, shared);
        contents.put(path, contents.get(target));
        return this;
    }

    public FakeHost link(String path, String target) {
        parents(path);
        stats.put(path, stat(FileStat.Type.LINK, "0777", "root", "root", target.length(), target));
        return this;
    }

    public FakeHost probe(List<String> argv, ProbeResult result) {
        probes.put(List.copyOf(argv), result);
        return this;
    }

    /** Shorthand for {@link #probe(List, ProbeResult)}. */
    public FakeHost probe(int exitCode, String stdout, String stderr, String... argv) {
        return probe(List.of(argv), new ProbeResult(exitCode, stdout, stderr));
    }

    /** What applying an {@code Exec} with exactly this argv does to the host. */
    public FakeHost onExec(List<String> argv, Consumer<FakeHost> effect) {
        execEffects.put(List.copyOf(argv), effect);
        return this;
    }

    /** The argv of every {@code Exec} applied so far, in order. */
    public List<List<String>> execsRun() {
        return List.copyOf(execsRun);
    }

    public FakeHost fact(String name, Object value) {
        facts.put(name, value);
        return this;
    }

    /** As in a dry run where an earlier task changes {@code path} (see {@link HostView#changesPending}). */
    public FakeHost pending(String path) {
        pending.add(path);
        return this;
    }

    /**
     * As in a dry run where an earlier task's plan says what this probe answers once applied (see
     * {@link HostView#pendingAnswer}); {@link #probe} answers the same.
     */
    public FakeHost pendingProbe(List<String> argv, ProbeResult result) {
        pendingAnswers.put(List.copyOf(argv), result);
        return probe(argv, result);
    }

    @Override
    public Optional<ProbeResult> pendingAnswer(List<String> probe) {
        return Optional.ofNullable(pendingAnswers.get(List.copyOf(probe)));
    }

    @Override
    public boolean changesPending(String path) {
        return pending.stream().anyMatch(p -> p.equals(path) || p.startsWith(path.endsWith("/") ? path : path + "/"));
    }

    /** The file's content as UTF-8, for assertions. */
    public Optional<String> text(String path) {
        return Optional.ofNullable(contents.get(path)).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    public List<List<String>> probesRun() {
        return List.copyOf(probesRun);
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public Map<String, Object> facts() {
        return Map.copyOf(facts);
    }

    @Override
    public ProbeResult probe(String... argv) throws ModuleException {
        List<String> key = List.of(argv);
        probesRun.add(key);
        if (key.size() > 3 && key.subList(0, 3).equals(List.of("sha256sum", "-z", "--")) && !probes.containsKey(key)) {
            StringBuilder out = new StringBuilder();
            for (String f : key.subList(3, key.size())) {
                byte[] c = contents.get(follow(f));
                if (c == null) {
                    return new ProbeResult(1, "", "sha256sum: " + f + ": No such file or directory\n");
                }
                out.append(sha256(c)).append("  ").append(f).append('\0');
            }
            return new ProbeResult(0, out.toString(), "");
        }
        ProbeResult result = probes.get(key);
        if (result == null) {
            throw new ModuleException("fake host has no answer for probe " + key);
        }
        return result;
    }

    @Override
    public java.util.SortedMap<String, FileStat> walk(String directory) throws ModuleException {
        FileStat dir = stats.get(directory);
        if (dir == null || dir.type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("cannot list " + directory + ": not a directory");
        }
        String under = directory.endsWith("/") ? directory : directory + "/";
        java.util.SortedMap<String, FileStat> below = new java.util.TreeMap<>();
        stats.forEach((p, s) -> {
            if (p.startsWith(under)) {
                below.put(p, s);
            }
        });
        return below;
    }

    @Override
    public Optional<byte[]> readFile(String path) {
        String real = follow(path);
        return Optional.ofNullable(contents.get(real)).map(byte[]::clone);
    }

    @Override
    public Optional<FileStat> stat(String path) {
        return Optional.ofNullable(stats.get(path));
    }

    /**
     * Carries out the commands of a plan the way the engine would; an {@code Exec} runs its
     * {@link #onExec} effect, if any; {@code Shell} is ignored.
     */
    public FakeHost apply(Plan plan) {
        plan.changes().forEach(change -> change.commands().forEach(this::apply));
        return this;
    }

    private void apply(Command command) {
        switch (command) {
            case Command.PutFile put -> {
                FileStat old = stats.get(put.path());
                Attributes a = put.attributes();
                String mode = a.mode().orElse("0644");
                bytes(put.path(), put.content(), mode, a.owner().orElse("root"), a.group().orElse("root"));
                if (old != null && old.type() == FileStat.Type.FILE && a.mode().isEmpty()) {
                    stats.put(put.path(), withAttributes(stats.get(put.path()), old.octalMode(), old.owner(), old.group()));
                }
            }
            case Command.UploadFile upload -> {
                Attributes a = upload.attributes();
                try {
                    bytes(upload.path(), java.nio.file.Files.readAllBytes(upload.source()), a.mode().orElse("0644"),
                            a.owner().orElse("root"), a.group().orElse("root"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            case Command.MakeDirectory dir -> directory(dir.path(), dir.attributes().mode().orElse("0755"),
                    dir.attributes().owner().orElse("root"), dir.attributes().group().orElse("root"));
            case Command.Remove remove -> {
                stats.keySet().removeIf(p -> p.equals(remove.path()) || p.startsWith(remove.path() + "/"));
                contents.keySet().removeIf(p -> p.equals(remove.path()) || p.startsWith(remove.path() + "/"));
            }
            case Command.SetAttributes set -> {
                // chown -h and chgrp -h change a link itself; chmod changes what it points to
                String real = set.attributes().mode().isEmpty() ? set.path() : follow(set.path());
                FileStat old = stats.get(real);
                FileStat now = withAttributes(old, set.attributes().mode().orElse(old.octalMode()),
                        set.attributes().owner().orElse(old.owner()), set.attributes().group().orElse(old.group()));
                stats.replaceAll((p, s) -> s.sameFileAs(old) ? now : s);
                stats.put(real, now);
            }
            case Command.HardLink hard -> {
                stats.remove(hard.path());
                contents.remove(hard.path());
                hardLink(hard.path(), hard.target());
            }
            case Command.CopyFile copy -> {
                FileStat old = stats.get(copy.path());
                Attributes a = copy.attributes();
                boolean keep = old != null && old.type() == FileStat.Type.FILE;
                bytes(copy.path(), contents.get(follow(copy.source())),
                        a.mode().orElse(keep ? old.octalMode() : "0644"), a.owner().orElse(keep ? old.owner() : "root"),
                        a.group().orElse(keep ? old.group() : "root"));
            }
            case Command.Symlink link -> {
                contents.remove(link.path());
                link(link.path(), link.target());
            }
            case Command.Exec exec -> {
                execsRun.add(exec.argv());
                Consumer<FakeHost> effect = execEffects.get(exec.argv());
                if (effect != null) {
                    effect.accept(this);
                }
            }
            case Command.Shell shell -> {
            }
            case Command.AwaitReboot reboot -> {
            }
            case Command.ControllerFile file -> {
            }
        }
    }

    private String follow(String path) {
        FileStat s = stats.get(path);
        if (s != null && s.type() == FileStat.Type.LINK) {
            String t = s.linkTarget();
            return t.startsWith("/") ? t : path.substring(0, path.lastIndexOf('/') + 1) + t;
        }
        return path;
    }

    private void parents(String path) {
        int slash = path.lastIndexOf('/');
        if (slash <= 0) {
            return;
        }
        String parent = path.substring(0, slash);
        if (!stats.containsKey(parent)) {
            parents(parent);
            stats.put(parent, stat(FileStat.Type.DIRECTORY, "0755", "root", "root", 4096, ""));
        }
    }

    private static FileStat withAttributes(FileStat s, String mode, String owner, String group) {
        return s.withAttributes(Integer.parseInt(mode, 8), owner, group);
    }

    private FileStat stat(FileStat.Type type, String mode, String owner, String group, long size, String target) {
        return new FileStat(type, Integer.parseInt(mode, 8), owner, group, size, target, 1, nextInode++, 1);
    }

    private static String sha256(byte[] content) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(content));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
