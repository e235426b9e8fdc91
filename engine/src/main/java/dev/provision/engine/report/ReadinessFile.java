package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A file made from the run's check rows ({@link ReadinessGrid}: every task's {@code result.checks},
 * the fleet steps' rows, unreachable hosts), written at the recap, atomically (temp file and
 * rename): {@link HtmlReport}'s page and {@link DrainFile}'s drain lines are two renderings of it.
 */
abstract class ReadinessFile implements RunListener {
    private final Path file;
    private final ReadinessGrid grid = new ReadinessGrid();
    private String title = "provision";
    private String task = "";
    private IOException failure;

    ReadinessFile(Path file) {
        this.file = requireNonNull(file, "file cannot be null");
    }

    /** The file's text, from the run's grid and the last play's title. */
    abstract String render(ReadinessGrid grid, String title);

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        title = name + (check ? " (check mode)" : "");
        grid.hosts(hosts);
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        task = name;
    }

    @Override
    public void hostResult(TaskResult result) {
        grid.add(task, result);
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        stats.forEach((host, s) -> {
            if (s.unreachable() > 0) {
                grid.unreachable(host);
            }
        });
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path tmp = Files.createTempFile(parent, ".provision-", ".tmp");
            Files.writeString(tmp, render(grid, title), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** Why the file could not be written, if it could not. */
    public Optional<IOException> failure() {
        return Optional.ofNullable(failure);
    }
}
