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

    /** @param forecast in check mode, the host's forecast state, consulted before the real one */
    ConnectionHostView(String name, Connection connection, Map<String, Object> facts, Optional<Forecast> forecast) {
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

    @Override
    public ProbeResult probe(String... argv) throws ModuleException {
        ExecResult r = exec(ExecRequest.argv(argv));
        return new ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText());
    }

    @Override
    public Optional<byte[]> readFile(String path) throws ModuleException {
        Optional<Optional<byte[]>> forecast = this.forecast.flatMap(f -> f.content(path));
        if (forecast.isPresent()) {
            return forecast.get();
        }
        try {
            return connection.read(path);
        } catch (ConnectionException e) {
            throw new ModuleException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<FileStat> stat(String path) throws ModuleException {
        Optional<Optional<FileStat>> forecast = this.forecast.flatMap(f -> f.stat(path));
        if (forecast.isPresent()) {
            return forecast.get();
        }
        String p = ShellWords.quote(path);
        String script = "if [ -e " + p + " ] || [ -L " + p + " ]; then stat -c '%F|%a|%U|%G|%s' -- " + p
                + " && { [ -L " + p + " ] && readlink -- " + p + " || true; }; else exit 3; fi";
        ExecResult r = exec(ExecRequest.shell(script));
        if (r.exitCode() == 3) {
            return Optional.empty();
        }
        if (r.exitCode() != 0) {
            throw new ModuleException("cannot stat " + path + ": " + r.stderrText().strip());
        }
        return Optional.of(parseStat(r.stdoutText()));
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
