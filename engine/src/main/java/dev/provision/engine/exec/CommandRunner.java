package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
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
    private CommandRunner() {
    }

    /** The result of a user program; empty for file-system commands. */
    static Optional<ExecResult> run(Connection c, Command command) throws ConnectionException, CommandFailedException {
        switch (command) {
            case Command.Exec e -> {
                return Optional.of(c.exec(ExecRequest.argv(e.argv()).withStdin(e.stdin())));
            }
            case Command.Shell s -> {
                return Optional.of(c.exec(ExecRequest.shell(s.script())));
            }
            case Command.PutFile p -> c.put(p);
            case Command.MakeDirectory d -> check(c, "mkdir -p -- " + ShellWords.quote(d.path())
                    + attributes(d.path(), d.attributes()), "create directory " + d.path());
            case Command.Remove r -> check(c, "rm -rf -- " + ShellWords.quote(r.path()), "remove " + r.path());
            case Command.SetAttributes a -> check(c, "true" + attributes(a.path(), a.attributes()),
                    "set attributes of " + a.path());
            case Command.Symlink l -> check(c, "ln -sfn -- " + ShellWords.quote(l.target()) + " " + ShellWords.quote(l.path()),
                    "link " + l.path());
        }
        return Optional.empty();
    }

    private static String attributes(String path, Command.Attributes a) {
        List<String> parts = new ArrayList<>();
        String p = ShellWords.quote(path);
        a.owner().ifPresent(o -> parts.add("chown -h -- " + ShellWords.quote(o) + " " + p));
        a.group().ifPresent(g -> parts.add("chgrp -h -- " + ShellWords.quote(g) + " " + p));
        a.mode().ifPresent(m -> parts.add("chmod -- " + ShellWords.quote(m) + " " + p));
        return parts.isEmpty() ? "" : " && " + String.join(" && ", parts);
    }

    private static void check(Connection c, String commandLine, String what) throws ConnectionException, CommandFailedException {
        ExecResult r = c.exec(ExecRequest.shell(commandLine));
        if (r.exitCode() != 0) {
            throw new CommandFailedException("could not " + what + ": " + r.stderrText().strip());
        }
    }

    /** A file-system step of a plan failed on the host. */
    static final class CommandFailedException extends Exception {
        CommandFailedException(String message) {
            super(message);
        }
    }
}
