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
    /** The paths the module expects to be the same on every host ({@link #expectSameOnEveryHost}). */
    private final java.util.Set<String> expectedSame = new java.util.HashSet<>(2);
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

    /**
     * How many reads it refused a plan made ahead (not read yet, or a probe refused): a module may
     * catch the refusal and go on with less than its turn will know.
     */
    private int refusals;

    /** How many reads it has refused so far (see {@link #refusals}). */
    int refusals() {
        return refusals;
    }

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
            refusals++;
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
        } catch (ReadAhead.NotReadYet e) {
            refusals++;
            throw new ReadAhead.PlanEnded();
        } catch (ConnectionException e) {
            throw new ModuleException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void expectSameOnEveryHost(String path) {
        expectedSame.add(path);
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
        // A small regular file's content comes along with its stat, a larger one's digest where the
        // task's other hosts had it in common, a missing path's parent: see StatProbe.
        // What was read ahead with the content is answered so; of a file the module expects the same
        // on every host, the first host to plan a read claims the content, and the others ask for the
        // digest meanwhile (SharedContents.Claim).
        ReadAhead ahead = reads.ahead();
        ExecRequest request = ExecRequest.shell(StatProbe.script(path, false, SharedContents.MIN_SIZE));
        if (!ahead.knows(connection, request)) {
            boolean sameEverywhere = expectedSame.contains(path);
            if (shared.wantsDigest(path, sameEverywhere)) {
                request = ExecRequest.shell(StatProbe.script(path, true, SharedContents.MIN_SIZE));
            } else if (sameEverywhere) {
                ahead.claimFirstRead(shared, path, request.commandLine());
            }
        }
        StatProbe.Answer said = StatProbe.parse(path, exec(request));
        said.parent().ifPresent(parent -> reads.stat(StatProbe.parentOf(path).orElseThrow(), parent));
        if (said.content().isPresent()) {
            reads.content(path, shared.offer(path, said.content().get()));
        } else if (said.digest().isPresent()) {
            byte[] content = shared.content(path, said.digest().get(), !ahead.holdsClaims());
            if (content != null && content.length == said.stat().orElseThrow().size()) { // else a later readFile reads it
                reads.content(path, content);
            }
        }
        reads.stat(path, said.stat());
        return said.stat();
    }

    private ExecResult exec(ExecRequest request) throws ModuleException {
        try {
            return connection.exec(request);
        } catch (ReadAhead.NotReadYet e) {
            refusals++;
            throw new ReadAhead.PlanEnded(); // ends a plan made ahead, for nearly every host and task: no stack to fill in
        } catch (ConnectionException e) {
            throw new ModuleException("connection to " + name + " failed: " + e.getMessage(), e);
        }
    }
}
