package dev.provision.engine.e2e.ansible;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One row of the differential table: what the case directory holds at the start, one task (module
 * and arguments, {@code @/} standing for the case directory), the controller-side file a
 * {@code copy src} or {@code template} reads, and, for an intended difference, why.
 */
record DiffCase(String id, String module, List<Start> start, Map<String, Object> args,
                Optional<ControllerFile> controllerFile, Optional<String> intended) {
    DiffCase {
        requireNonNull(id, "id cannot be null");
        requireNonNull(module, "module cannot be null");
        start = List.copyOf(start);
        args = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(args));
        requireNonNull(controllerFile, "controllerFile cannot be null");
        requireNonNull(intended, "intended cannot be null");
    }

    /**
     * A path in the case directory at the start: a file (content, mode), a directory (mode), a
     * symlink (target) or a hard link (the path of the file it is another name of, in the case directory).
     */
    record Start(String path, Kind kind, String content, String mode) {
        enum Kind { FILE, DIRECTORY, LINK, HARD_LINK }
    }

    /** A file under the controller's {@code files/} or {@code templates/} directory. */
    record ControllerFile(String name, String content, String mode) {
    }

    static Start file(String path, String content) {
        return new Start(path, Start.Kind.FILE, content, "0644");
    }

    static Start file(String path, String content, String mode) {
        return new Start(path, Start.Kind.FILE, content, mode);
    }

    static Start dir(String path) {
        return new Start(path, Start.Kind.DIRECTORY, "", "0755");
    }

    static Start dir(String path, String mode) {
        return new Start(path, Start.Kind.DIRECTORY, "", mode);
    }

    /** Another name for the file {@code existing} (a path in the case directory, listed before). */
    static Start hardLink(String path, String existing) {
        return new Start(path, Start.Kind.HARD_LINK, existing, "");
    }

    /** A symlink; a target starting with {@code @/} points into the case directory. */
    static Start link(String path, String target) {
        return new Start(path, Start.Kind.LINK, target, "");
    }

    static Builder of(String module, String id) {
        return new Builder(module, id);
    }

    /** The same case with another start and id: a table runs one operation over several start files. */
    DiffCase startingWith(String suffix, List<Start> otherStart) {
        return new DiffCase(id + " " + suffix, module, otherStart, args, controllerFile, intended);
    }

    DiffCase intendedBecause(String reason) {
        return new DiffCase(id, module, start, args, controllerFile, Optional.of(reason));
    }

    static final class Builder {
        private final String module;
        private final String id;
        private final List<Start> start = new ArrayList<>();
        private Optional<ControllerFile> controllerFile = Optional.empty();

        private Builder(String module, String id) {
            this.module = module;
            this.id = module + ": " + id; // task names must be unique across modules too
        }

        Builder with(Start... entries) {
            start.addAll(List.of(entries));
            return this;
        }

        Builder controller(String name, String content, String mode) {
            controllerFile = Optional.of(new ControllerFile(name, content, mode));
            return this;
        }

        /** The task's arguments as name, value pairs. */
        DiffCase args(Object... pairs) {
            Map<String, Object> args = new LinkedHashMap<>();
            for (int i = 0; i < pairs.length; i += 2) {
                args.put((String) pairs[i], pairs[i + 1]);
            }
            return new DiffCase(id, module, start, args, controllerFile, Optional.empty());
        }
    }
}
