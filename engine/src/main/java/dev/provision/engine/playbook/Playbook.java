package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * A loaded playbook: its file (directory = base for relative paths), its plays in order, and what
 * loaded but may fail when it runs, each at file:line:column (printed before the run).
 */
public record Playbook(Path file, List<Play> plays, List<String> warnings) {
    public Playbook {
        requireNonNull(file, "file cannot be null");
        plays = List.copyOf(plays);
        warnings = List.copyOf(warnings);
    }

    public Playbook(Path file, List<Play> plays) {
        this(file, plays, List.of());
    }

    public Path directory() {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of(".") : parent;
    }
}
