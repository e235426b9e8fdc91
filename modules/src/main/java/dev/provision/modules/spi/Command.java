package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * Plain-data instructions the engine carries out on a host. Modules build them; only the engine runs
 * them. Paths are absolute; argument vectors are never passed through a shell unless the command is
 * a {@link Shell} the user wrote.
 */
public sealed interface Command {

    /** Runs a program. A non-zero exit fails the task unless {@code failed_when} says otherwise. */
    record Exec(List<String> argv, byte[] stdin) implements Command {
        public Exec {
            argv = List.copyOf(argv);
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("argv cannot be empty");
            }
            stdin = stdin == null ? new byte[0] : stdin.clone();
        }

        public static Exec of(String... argv) {
            return new Exec(List.of(argv), new byte[0]);
        }

        @Override
        public byte[] stdin() {
            return stdin.clone();
        }
    }

    /**
     * The host has been told to restart: the engine lets its connection go, then connects again until
     * {@code bootIdProbe} prints something other than {@code bootIdBefore} (a new boot, not the old
     * system still shutting down), waits {@code settleSeconds}, and runs {@code testCommand}, which must
     * succeed; all within {@code timeoutSeconds}, else the host is unreachable. Later commands of the
     * plan run over the new connection.
     */
    record AwaitReboot(List<String> bootIdProbe, String bootIdBefore, int timeoutSeconds, int settleSeconds,
                       List<String> testCommand) implements Command {
        public AwaitReboot {
            bootIdProbe = List.copyOf(bootIdProbe);
            requireNonNull(bootIdBefore, "bootIdBefore cannot be null");
            testCommand = List.copyOf(testCommand);
            if (bootIdProbe.isEmpty() || testCommand.isEmpty()) {
                throw new IllegalArgumentException("bootIdProbe and testCommand cannot be empty");
            }
            if (timeoutSeconds < 1 || settleSeconds < 0) {
                throw new IllegalArgumentException("timeoutSeconds must be at least 1 and settleSeconds not negative");
            }
        }
    }

    /**
     * Writes a whole file on the controller (not the host), atomically: what {@code fetch} brought
     * back. The engine creates missing parent directories.
     */
    record ControllerFile(String path, byte[] content) implements Command {
        public ControllerFile {
            requireNonNull(path, "path cannot be null");
            content = content.clone();
        }

        @Override
        public byte[] content() {
            return content.clone();
        }
    }

    /** Runs a user-written shell script with {@code /bin/sh -c} (the {@code shell} module only). */
    record Shell(String script) implements Command {
        public Shell {
            requireNonNull(script, "script cannot be null");
        }
    }

    /**
     * Writes a whole file atomically: temp file beside the target, attributes set, rename.
     *
     * @param validate a program that must accept the new content before it replaces the target
     *     ({@code visudo -cf %s}): an argument vector in which {@code %s} stands for the temp file;
     *     when it exits non-zero, the target is left as it was and the command fails with the
     *     program's output. Empty for none.
     * @param backup keep a copy of the target as it was, named as Ansible names backups
     *     ({@code path.PID.YYYY-MM-DD@HH:MM:SS~}), before replacing it; nothing when there was no target
     */
    record PutFile(String path, byte[] content, Attributes attributes, List<String> validate, boolean backup)
            implements Command {
        public PutFile {
            requireNonNull(path, "path cannot be null");
            content = content.clone();
            requireNonNull(attributes, "attributes cannot be null");
            validate = List.copyOf(validate);
            if (!validate.isEmpty() && validate.stream().noneMatch(w -> w.contains("%s"))) {
                throw new IllegalArgumentException("validate must contain %s: " + validate);
            }
        }

        public PutFile(String path, byte[] content, Attributes attributes) {
            this(path, content, attributes, List.of(), false);
        }

        /** This write, checked by {@code validate} and keeping a backup when {@code backup}. */
        public PutFile checked(List<String> validate, boolean backup) {
            return new PutFile(path, content, attributes, validate, backup);
        }

        @Override
        public byte[] content() {
            return content.clone();
        }
    }

    /** Creates a directory and its missing parents ({@code mkdir -p}), then sets attributes. */
    record MakeDirectory(String path, Attributes attributes) implements Command {
        public MakeDirectory {
            requireNonNull(path, "path cannot be null");
            requireNonNull(attributes, "attributes cannot be null");
        }
    }

    /** Removes a path; directories recursively. */
    record Remove(String path) implements Command {
        public Remove {
            requireNonNull(path, "path cannot be null");
        }
    }

    /** Sets mode, owner and group of an existing path. */
    record SetAttributes(String path, Attributes attributes) implements Command {
        public SetAttributes {
            requireNonNull(path, "path cannot be null");
            requireNonNull(attributes, "attributes cannot be null");
        }
    }

    /** Creates (or replaces) a symbolic link at {@code path} pointing to {@code target}. */
    record Symlink(String path, String target) implements Command {
        public Symlink {
            requireNonNull(path, "path cannot be null");
            requireNonNull(target, "target cannot be null");
        }
    }

    /**
     * Makes {@code path} a hard link to the existing file {@code target} (both absolute), replacing
     * whatever file is at {@code path} atomically (a new link beside it, renamed over it).
     */
    record HardLink(String path, String target) implements Command {
        public HardLink {
            requireNonNull(path, "path cannot be null");
            requireNonNull(target, "target cannot be null");
        }
    }

    /**
     * Writes a large controller file to {@code path} as {@link PutFile} does (temp file beside it,
     * checked, attributes, rename), its bytes streamed from {@code source} and never held in memory.
     * {@code size} and {@code modifiedMillis} are what the plan saw: a source that changed since is
     * refused, not written.
     */
    record UploadFile(String path, java.nio.file.Path source, long size, long modifiedMillis, Attributes attributes)
            implements Command {
        public UploadFile {
            requireNonNull(path, "path cannot be null");
            requireNonNull(source, "source cannot be null");
            requireNonNull(attributes, "attributes cannot be null");
        }
    }

    /**
     * Copies the host's regular file {@code source} to {@code path} on the same host, without the
     * content passing through the controller: a temp file beside the target, attributes set, rename
     * (as {@link PutFile}). Attributes not given are those of a new file ({@code 0644}, the
     * connection's user), never the source's.
     */
    record CopyFile(String source, String path, Attributes attributes) implements Command {
        public CopyFile {
            requireNonNull(source, "source cannot be null");
            requireNonNull(path, "path cannot be null");
            requireNonNull(attributes, "attributes cannot be null");
        }
    }

    /**
     * Ownership and permissions; each part optional.
     *
     * @param mode octal permission bits such as {@code 0644}
     */
    record Attributes(Optional<String> mode, Optional<String> owner, Optional<String> group) {
        public static final Attributes NONE = new Attributes(Optional.empty(), Optional.empty(), Optional.empty());

        public Attributes {
            requireNonNull(mode, "mode cannot be null");
            requireNonNull(owner, "owner cannot be null");
            requireNonNull(group, "group cannot be null");
        }

        public boolean isEmpty() {
            return mode.isEmpty() && owner.isEmpty() && group.isEmpty();
        }
    }
}
