package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/** A loaded playbook: its file (directory = base for relative paths) and its plays in order. */
public record Playbook(Path file, List<Play> plays) {
    public Playbook {
        requireNonNull(file, "file cannot be null");
        plays = List.copyOf(plays);
    }

    public Path directory() {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of(".") : parent;
    }
}
