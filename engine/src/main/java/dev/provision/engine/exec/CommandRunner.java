package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.Steps;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.Command;
import dev.provision.modules.text.ShellWords;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Carries out a plan's commands on a connection. The only place where a {@link Command} becomes an
 * action on a host. File-system commands that fail raise {@link CommandFailedException}; the
 * outcome of a user's program ({@link Command.Exec}, {@link Command.Shell}) is returned for the task
 * to judge (its {@code failed_when} may accept a non-zero exit).
 */
final class CommandRunner {
    // A new name beside the target, renamed over it: whatever was there is replaced atomically.
    private static final String HARD_LINK_SCRIPT = """
            tmp="${target%/*}/.provision-link-$$"
            ln -- "$src" "$tmp" || exit 1
            mv -f -T -- "$tmp" "$target" || { rm -f -- "$tmp"; exit 1; }
            """;

    // As FileTransfer's put, with cp on the host instead of the controller's bytes: temp file beside
    // the target, attributes given or kept from the target (0666 under the umask for a new one), rename.
    private static final String COPY_SCRIPT = """
            dir="${target%/*}"; [ -n "$dir" ] || dir=/
            if [ -d "$target" ] && [ ! -L "$target" ]; then echo "$target is a directory" >&2; exit 1; fi
            tmp=$(mktemp "$dir/.provision-XXXXXX") || exit 1
            fail() { rm -f -- "$tmp"; exit 1; }
            trap fail HUP INT TERM PIPE
            cp -- "$src" "$tmp" || fail
            if [ -e "$target" ] && [ ! -L "$target" ]; then chown --reference="$target" -- "$tmp" 2>/dev/null || :; fi
            if [ -n "$owner" ]; then chown -- "$owner" "$tmp" || fail; fi
            if [ -n "$group" ]; then chgrp -- "$group" "$tmp" || fail; fi
            if [ -n "$mode" ]; then chmod -- "$mode" "$tmp" || fail
            elif [ -e "$target" ] && [ ! -L "$target" ]; then chmod --reference="$target" -- "$tmp" || fail
            else chmod -- "$(printf '%o' $(( 0666 & ~$(umask) )))" "$tmp" || fail
            fi
            mv -f -T -- "$tmp" "$target" || fail
            """;

    private CommandRunner() {
    }

    private static String assign(String variable, String value) {
        return variable + "=" + ShellWords.quote(value) + "\n";
    }

    /** What a plan's {@link Command.AwaitReboot} does: waits for the host and gives the connection to go on with. */
    interface Reboots {
        Connection await(Command.AwaitReboot reboot) throws UnreachableException, CommandFailedException;
    }

    /**
     * Applies {@code plan} on {@code connection}: its commands in order across its changes (a write in
     * one change and the program that applies it in the next, sysctl's drop-in then its live value,
     * still go together), consecutive writes and programs in one exchange, a restart awaited through
     * {@code reboots}; the first failed program ends it. The run and saved plans both apply through here.
     *
     * @return the result of the last program that ran, if any did
     */
    static Optional<ExecResult> apply(Connection connection, Plan plan, Reboots reboots)
            throws ConnectionException, CommandFailedException {
        Optional<ExecResult> last = Optional.empty();
        List<Command> commands = plan.changes().stream().flatMap(c -> c.commands().stream()).toList();
        for (int i = 0; i < commands.size(); i++) {
            Command command = commands.get(i);
            if (command instanceof Command.AwaitReboot reboot) {
                connection = reboots.await(reboot);
                continue;
            }
            // writes and the programs that apply them (sysctl -w after the drop-in): one exchange
            int run = 0;
            while (i + run < commands.size() && inOneExchange(commands.get(i + run))) {
                run++;
            }
            if (run >= 2) {
                List<Command> steps = commands.subList(i, i + run);
                Steps done = together(connection, steps);
                if (done.failedWrite().isPresent()) {
                    throw done.failedWrite().get();
                }
                if (done.lastProgram().isPresent()) {
                    last = done.lastProgram();
                }
                i += run - 1;
                if (done.stopped(run)) {
                    return last;
                }
                continue;
            }
            Optional<ExecResult> r = run(connection, command);
            if (r.isPresent()) {
                last = r;
                if (r.get().exitCode() != 0) {
                    return last; // a failed program stops the plan, like a failed shell step
                }
            }
        }
        return last;
    }

    /** Whether {@code command} can run with others in one exchange ({@link Connection#inOneExchange}). */
    static boolean inOneExchange(Command command) {
        return command instanceof Command.PutFile || command instanceof Command.Exec e && e.stdin().length == 0
                || fileSystemStep(command).isPresent();
    }

    /**
     * Runs {@code commands} (each {@link #inOneExchange}) in order in one exchange: the file-system
     * steps as the engine's shell lines of that exchange, each one that fails reported as a failed
     * write, with the reason it gives when it runs alone ({@code could not create directory ...}).
     * The run's loops and runs of tasks applied together, and a plan's consecutive steps, go through here.
     */
    static Steps together(Connection connection, List<Command> commands) throws ConnectionException {
        List<Command> steps = commands.stream()
                .map(c -> fileSystemStep(c).<Command>map(f -> new Command.Shell(f.script())).orElse(c)).toList();
        Steps done = connection.inOneExchange(steps);
        List<Optional<ExecResult>> ran = new ArrayList<>();
        for (int i = 0; i < done.ran().size(); i++) {
            Optional<FileSystemStep> step = fileSystemStep(commands.get(i));
            if (step.isEmpty()) {
                ran.add(done.ran().get(i));
                continue;
            }
            ExecResult r = done.ran().get(i).orElseThrow();
            if (r.exitCode() != 0) {
                return new Steps(ran, Optional.of(new ConnectionException(step.get().failure(r))));
            }
            ran.add(Optional.empty()); // as a write: no program's result
        }
        return new Steps(ran, done.failedWrite());
    }

    /** A file-system command as the shell lines that carry it out, and what it does, for its error. */
    private record FileSystemStep(String script, String what) {
        String failure(ExecResult r) {
            return "could not " + what + ": " + r.stderrText().strip();
        }
    }

    /** The file-system command {@code command} as shell lines; empty for writes, programs and what the engine does itself. */
    private static Optional<FileSystemStep> fileSystemStep(Command command) {
        return Optional.ofNullable(switch (command) {
            case Command.MakeDirectory d -> new FileSystemStep("mkdir -p -- " + ShellWords.quote(d.path())
                    + attributes(d.path(), d.attributes()), "create directory " + d.path());
            case Command.Remove r -> new FileSystemStep("rm -rf -- " + ShellWords.quote(r.path()), "remove " + r.path());
            case Command.SetAttributes a -> new FileSystemStep("true" + attributes(a.path(), a.attributes()),
                    "set attributes of " + a.path());
            case Command.Symlink l -> new FileSystemStep("ln -sfn -- " + ShellWords.quote(l.target()) + " " + ShellWords.quote(l.path()),
                    "link " + l.path());
            case Command.HardLink h -> new FileSystemStep(assign("src", h.target()) + assign("target", h.path()) + HARD_LINK_SCRIPT,
                    "hard link " + h.path() + " to " + h.target());
            case Command.CopyFile f -> new FileSystemStep(assign("src", f.source()) + assign("target", f.path())
                    + assign("mode", f.attributes().mode().orElse("")) + assign("owner", f.attributes().owner().orElse(""))
                    + assign("group", f.attributes().group().orElse("")) + COPY_SCRIPT, "copy " + f.source() + " to " + f.path());
            default -> null;
        });
    }

    /** The result of a user program; empty for file-system commands. */
    private static Optional<ExecResult> run(Connection c, Command command) throws ConnectionException, CommandFailedException {
        switch (command) {
            case Command.Exec e -> {
                return Optional.of(c.exec(ExecRequest.argv(e.argv()).withStdin(e.stdin())));
            }
            case Command.Shell s -> {
                return Optional.of(c.exec(ExecRequest.shell(s.script())));
            }
            case Command.PutFile p -> c.put(p);
            case Command.UploadFile u -> c.upload(u);
            case Command.MakeDirectory d -> check(c, fileSystemStep(d).orElseThrow());
            case Command.Remove r -> check(c, fileSystemStep(r).orElseThrow());
            case Command.SetAttributes a -> check(c, fileSystemStep(a).orElseThrow());
            case Command.Symlink l -> check(c, fileSystemStep(l).orElseThrow());
            case Command.HardLink h -> check(c, fileSystemStep(h).orElseThrow());
            case Command.CopyFile f -> check(c, fileSystemStep(f).orElseThrow());
            case Command.ControllerFile f -> writeOnController(f);
            case Command.AwaitReboot r -> throw new IllegalStateException("a reboot is awaited by the engine (HostReturn), not run on a connection");
        }
        return Optional.empty();
    }

    /** Temp file beside the target, then a rename: a reader never sees half a fetched file. */
    private static void writeOnController(Command.ControllerFile f) throws CommandFailedException {
        java.nio.file.Path target = java.nio.file.Path.of(f.path());
        java.nio.file.Path temp = null;
        try {
            java.nio.file.Path dir = target.toAbsolutePath().getParent();
            java.nio.file.Files.createDirectories(dir);
            temp = java.nio.file.Files.createTempFile(dir, ".provision-", ".tmp");
            java.nio.file.Files.write(temp, f.content());
            java.nio.file.Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (java.io.IOException | RuntimeException e) {
            if (temp != null) {
                try {
                    java.nio.file.Files.deleteIfExists(temp);
                } catch (java.io.IOException ignored) {
                    // the write failed already; that is the error to report
                }
            }
            throw new CommandFailedException("cannot write " + f.path() + " on the controller: " + e.getMessage());
        }
    }

    private static String attributes(String path, Command.Attributes a) {
        List<String> parts = new ArrayList<>();
        String p = ShellWords.quote(path);
        a.owner().ifPresent(o -> parts.add("chown -h -- " + ShellWords.quote(o) + " " + p));
        a.group().ifPresent(g -> parts.add("chgrp -h -- " + ShellWords.quote(g) + " " + p));
        a.mode().ifPresent(m -> parts.add("chmod -- " + ShellWords.quote(m) + " " + p));
        return parts.isEmpty() ? "" : " && " + String.join(" && ", parts);
    }

    private static void check(Connection c, FileSystemStep step) throws ConnectionException, CommandFailedException {
        ExecResult r = c.exec(ExecRequest.shell(step.script()));
        if (r.exitCode() != 0) {
            throw new CommandFailedException(step.failure(r));
        }
    }

    /** A file-system step of a plan failed on the host. */
    static final class CommandFailedException extends Exception {
        CommandFailedException(String message) {
            super(message);
        }
    }
}
