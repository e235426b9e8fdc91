package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --report FILE.html}: the check rows of the run ({@code result.checks} of every task, the
 * fleet steps' rows included) as one self-contained page (see {@link ReadinessPage}), written at
 * the end of the run, atomically (temp file and rename). {@code no_log} results are left out.
 */
public final class HtmlReport implements RunListener {
    private final Path file;
    private final Clock clock;
    private final ReadinessGrid grid = new ReadinessGrid();
    private String title = "provision";
    private String task = "";
    private IOException failure;

    public HtmlReport(Path file) {
        this(file, Clock.systemUTC());
    }

    HtmlReport(Path file, Clock clock) {
        this.file = requireNonNull(file, "file cannot be null");
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

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
        String generated = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").format(clock.instant().atOffset(ZoneOffset.UTC));
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path tmp = Files.createTempFile(parent, ".provision-report", ".html");
            Files.writeString(tmp, ReadinessPage.render(grid, title, generated), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** Why the report could not be written, if it could not. */
    public Optional<IOException> failure() {
        return Optional.ofNullable(failure);
    }
}
