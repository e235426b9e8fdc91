package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.text.ShellWords;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The engine's read-only view of a host, over the run's one connection to it. */
final class ConnectionHostView implements HostView {
    private final String name;
    private final Connection connection;
    private final Map<String, Object> facts;
    private final Optional<Forecast> forecast;
    /** What was read already (contents come along with a stat): the state a plan starts from, read once. */
    private final HostReads reads;
    /** What the task's other hosts sent of their larger files: see {@link SharedContents}. */
    private final SharedContents shared;
    static final int CONTENT_WITH_STAT_MAX = 256 * 1024;
    /** One path's stat line, as {@link #parseStat} reads it (the size last: the script compares it as ${l##*|}). */
    private static final String STAT = "stat -c '%F|%a|%U|%G|%d|%i|%h|%s'";
    private static final byte[] CONTENT_MARKER = "\nCONTENT\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] DIGEST_MARKER = "\nDIGEST ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int DIGEST_LENGTH = 64;

    /** @param forecast in check mode, the host's forecast state, consulted before the real one */
    ConnectionHostView(String name, Connection connection, Map<String, Object> facts, Optional<Forecast> forecast) {
        this(name, connection, facts, forecast, new HostReads(), new SharedContents());
    }

    /**
     * @param reads shared by the items of a loop, see {@link HostReads}
     * @param shared shared by the hosts of a task, see {@link SharedContents}
     */
    ConnectionHostView(String name, Connection connection, Map<String, Object> facts, Optional<Forecast> forecast,
                       HostReads reads, SharedContents shared) {
        this.reads = requireNonNull(reads, "reads cannot be null");
        this.shared = requireNonNull(shared, "shared cannot be null");
        reads.readingFrom(connection);
        this.name = requireNonNull(name, "name cannot be null");
        this.connection = requireNonNull(connection, "connection cannot be null");
        this.facts = requireNonNull(facts, "facts cannot be null");
        this.forecast = requireNonNull(forecast, "forecast cannot be null");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Map<String, Object> facts() {
        return facts;
    }

    /** Whether {@link #probe} may run probes (planning ahead of a module that probes only in its turn: false). */
    private boolean probes = true;

    /** Probes are refused from now on: the module plans ahead only as far as its file reads go. */
    void refuseProbes() {
        probes = false;
    }

    @Override
    public ProbeResult probe(String... argv) throws ModuleException {
        Optional<ProbeResult> forecast = pendingAnswer(List.of(argv));
        if (forecast.isPresent()) {
            return forecast.get();
        }
        ProbeResult ahead = reads.takePrefetched(List.of(argv));
        if (ahead != null) {
            return ahead;
        }
        if (!probes) {
            throw new ModuleException("not probed ahead of the task's turn");
        }
        ExecResult r = exec(ExecRequest.argv(argv));
        return new ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText());
    }

    @Override
    public boolean holdsControllerFile(String path, java.nio.file.Path source) throws ModuleException {
        if (!connection.isController()) {
            // the source's digest on the controller while the host computes its own: the two take as long
            java.util.concurrent.CompletableFuture<String> ours = dev.provision.modules.spi.ControllerFileDigests.inBackground(source);
            // a large file (a copy's same-size target): the host's fastest digest
            ExecResult r = exec(ExecRequest.shell(dev.provision.modules.spi.ControllerFileDigests.HOST_SHA256_OF_STDIN + " <"
                    + ShellWords.quote(path)));
            ProbeResult sum = new ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText());
            String digest;
            try {
                digest = ours.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof ModuleException m ? m : new ModuleException("cannot hash " + source, e);
            }
            return dev.provision.modules.spi.ControllerFileDigests.sameDigest(sum, path, digest);
        }
        // the host is the controller: compare the two files (cmp stops at the first difference), no digest
        ProbeResult same = probe("cmp", "-s", "--", source.toAbsolutePath().toString(), path);
        if (same.exitCode() > 1) {
            throw new ModuleException("cannot compare " + path + " with " + source + ": " + same.stderr().strip());
        }
        return same.exitCode() == 0;
    }

    @Override
    public Optional<byte[]> readFile(String path) throws ModuleException {
        Optional<String> copiedFrom = this.forecast.flatMap(f -> f.copiedFrom(path));
        if (copiedFrom.isPresent()) {
            return readFile(copiedFrom.get());
        }
        Optional<Optional<byte[]>> forecast = this.forecast.flatMap(f -> f.content(path));
        if (forecast.isPresent()) {
            return forecast.get();
        }
        byte[] known = reads.content(path);
        if (known != null) {
            return Optional.of(known);
        }
        try {
            Optional<byte[]> content = connection.read(path).map(c -> shared.offer(path, c));
            content.ifPresent(c -> reads.content(path, c));
            return content;
        } catch (ConnectionException e) {
            throw new ModuleException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<ProbeResult> pendingAnswer(List<String> probe) {
        return forecast.flatMap(f -> f.probe(probe));
    }

    @Override
    public boolean changesPending(String path) {
        return forecast.map(f -> f.changes(path)).orElse(false);
    }

    @Override
    public java.util.SortedMap<String, FileStat> walk(String directory) throws ModuleException {
        ExecResult r = exec(ExecRequest.argv(dev.provision.modules.spi.FileTree.argv(directory)));
        if (r.exitCode() != 0) {
            if (forecast.isPresent() && forecast.get().changes(directory) && stat(directory).isPresent()) {
                return forecast.get().below(directory, new java.util.TreeMap<>()); // a directory the run would create
            }
            throw new ModuleException("cannot list " + directory + ": " + r.stderrText().strip());
        }
        java.util.SortedMap<String, FileStat> listing;
        try {
            listing = dev.provision.modules.spi.FileTree.parse(directory, r.stdoutText());
        } catch (IllegalArgumentException e) {
            throw new ModuleException("cannot list " + directory + ": " + e.getMessage(), e);
        }
        return forecast.isPresent() ? forecast.get().below(directory, listing) : listing;
    }

    @Override
    public Optional<FileStat> stat(String path) throws ModuleException {
        Optional<Optional<FileStat>> forecast = this.forecast.flatMap(f -> f.stat(path));
        if (forecast.isPresent()) {
            return forecast.get();
        }
        Optional<FileStat> known = reads.stat(path);
        if (known != null) {
            return known;
        }
        // A small regular file's content comes along (after a CONTENT line): a module that stats a
        // file nearly always reads it next, and one round trip is cheaper than two. Where the task's
        // other hosts had larger files in common, its digest comes instead (a DIGEST line).
        String script = statScript(path, false);
        // what was read ahead (before the task's other hosts had sent anything) comes with the content
        if (shared.wantsDigest(path) && !(connection instanceof ReadAhead.Serving ahead && ahead.knows(ExecRequest.shell(script)))) {
            script = statScript(path, true);
        }
        ExecResult r = exec(ExecRequest.shell(script));
        if (r.exitCode() == 3) {
            reads.stat(path, Optional.empty());
            parentOf(path).ifPresent(parent -> {
                String said = r.stdoutText();
                if (said.startsWith(PARENT)) {
                    reads.stat(parent, Optional.of(parseStat(said.substring(PARENT.length()))));
                } else if (said.startsWith(NO_PARENT)) {
                    reads.stat(parent, Optional.empty());
                }
            });
            return Optional.empty();
        }
        if (r.exitCode() != 0) {
            throw new ModuleException("cannot stat " + path + ": " + r.stderrText().strip());
        }
        byte[] out = r.stdout();
        int marker = marker(out, CONTENT_MARKER);
        int digest = marker < 0 ? marker(out, DIGEST_MARKER) : -1;
        int statEnd = marker >= 0 ? marker : digest >= 0 ? digest : out.length;
        FileStat stat = parseStat(new String(out, 0, statEnd, java.nio.charset.StandardCharsets.UTF_8));
        if (stat.type() == FileStat.Type.FILE && marker >= 0) {
            byte[] content = java.util.Arrays.copyOfRange(out, marker + CONTENT_MARKER.length, out.length);
            if (content.length == stat.size()) { // else it changed meanwhile: a later readFile reads it afresh
                reads.content(path, shared.offer(path, content));
            }
        } else if (stat.type() == FileStat.Type.FILE && digest >= 0) {
            int from = digest + DIGEST_MARKER.length;
            String sha256 = new String(out, from, Math.min(DIGEST_LENGTH, out.length - from), java.nio.charset.StandardCharsets.US_ASCII);
            byte[] content = shared.content(path, sha256);
            if (content != null && content.length == stat.size()) { // else a later readFile reads it
                reads.content(path, content);
            }
        } else if (stat.type() == FileStat.Type.FILE && stat.size() == 0) {
            reads.content(path, new byte[0]);
        }
        reads.stat(path, Optional.of(stat));
        return Optional.of(stat);
    }

    /** The stat of a path, with a small file's content (or, {@code digest}, a larger one's SHA-256) or a missing one's parent. */
    private static String statScript(String path, boolean digest) {
        String p = ShellWords.quote(path);
        String send = "printf 'CONTENT\\n'; cat -- " + p + " || true;";
        if (digest) {
            send = "if [ \"${l##*|}\" -ge " + SharedContents.MIN_SIZE + " ] && d=$(sha256sum -- " + p
                    + " 2>/dev/null); then printf 'DIGEST %." + DIGEST_LENGTH + "s\\n' \"$d\"; else " + send + " fi;";
        }
        return "if [ -e " + p + " ] || [ -L " + p + " ]; then l=$(" + STAT + " -- " + p
                + ") || exit 1; printf '%s\\n' \"$l\"; if [ -L " + p + " ]; then readlink -- " + p + " || true;"
                + " elif [ \"${l%%|*}\" = 'regular file' ] && [ \"${l##*|}\" -le " + CONTENT_WITH_STAT_MAX
                + " ] && [ -r " + p + " ]; then " + send + " fi; else " + parentStat(path) + " exit 3; fi";
    }

    private static final String PARENT = "PARENT ";
    private static final String NO_PARENT = "NO PARENT";

    /**
     * What a missing path's parent is, said in the same round trip: a module that finds its target
     * missing nearly always asks about the directory it would create it in next (copy, template,
     * lineinfile's create, file's directory), and one exchange is cheaper than two.
     */
    private static String parentStat(String path) {
        Optional<String> parent = parentOf(path);
        if (parent.isEmpty()) {
            return "";
        }
        String q = ShellWords.quote(parent.get());
        return "if [ -e " + q + " ] || [ -L " + q + " ]; then l=$(" + STAT + " -- " + q
                + ") && printf '" + PARENT + "%s\n' \"$l\" && { [ ! -L " + q + " ] || readlink -- " + q + " || true; };"
                + " else echo '" + NO_PARENT + "'; fi;";
    }

    /** The directory an absolute path is in; empty for {@code /} and for relative paths. */
    static Optional<String> parentOf(String path) {
        int slash = path.lastIndexOf('/');
        if (!path.startsWith("/") || path.equals("/") || path.endsWith("/") || path.contains("/./") || path.contains("/../")) {
            return Optional.empty();
        }
        return Optional.of(slash == 0 ? "/" : path.substring(0, slash));
    }

    /** Where the marker's line starts (at the end of the first line), or -1. */
    private static int marker(byte[] out, byte[] marker) {
        int lineEnd = 0;
        while (lineEnd < out.length && out[lineEnd] != '\n') {
            lineEnd++;
        }
        if (out.length - lineEnd < marker.length) {
            return -1;
        }
        for (int i = 0; i < marker.length; i++) {
            if (out[lineEnd + i] != marker[i]) {
                return -1;
            }
        }
        return lineEnd;
    }

    static FileStat parseStat(String out) {
        List<String> lines = out.lines().toList();
        String[] f = lines.get(0).split("\\|", -1);
        FileStat.Type type = switch (f[0]) {
            case "regular file", "regular empty file" -> FileStat.Type.FILE;
            case "directory" -> FileStat.Type.DIRECTORY;
            case "symbolic link" -> FileStat.Type.LINK;
            default -> FileStat.Type.OTHER;
        };
        String target = type == FileStat.Type.LINK && lines.size() > 1 ? lines.get(1) : "";
        if (f.length >= 8) { // the size last: the script compares it as ${l##*|}
            return new FileStat(type, Integer.parseInt(f[1], 8), f[2], f[3], Long.parseLong(f[7]), target,
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
        }
        return new FileStat(type, Integer.parseInt(f[1], 8), f[2], f[3], Long.parseLong(f[4]), target);
    }

    private ExecResult exec(ExecRequest request) throws ModuleException {
        try {
            return connection.exec(request);
        } catch (ConnectionException e) {
            throw new ModuleException("connection to " + name + " failed: " + e.getMessage(), e);
        }
    }
}
