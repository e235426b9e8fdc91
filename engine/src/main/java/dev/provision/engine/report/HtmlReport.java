package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * {@code --report FILE.html}: the check rows of the run ({@code result.checks} of every task, the
 * fleet steps' rows included) as one self-contained page (see {@link ReadinessPage}), written at
 * the end of the run, atomically (temp file and rename). {@code no_log} results are left out.
 */
public final class HtmlReport extends ReadinessFile {
    private final Clock clock;

    public HtmlReport(Path file) {
        this(file, Clock.systemUTC());
    }

    HtmlReport(Path file, Clock clock) {
        super(file);
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

    @Override
    String render(ReadinessGrid grid, String title) {
        String generated = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").format(clock.instant().atOffset(ZoneOffset.UTC));
        return ReadinessPage.render(grid, title, generated);
    }
}
