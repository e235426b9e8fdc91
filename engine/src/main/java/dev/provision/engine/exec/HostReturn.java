package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Task;
import dev.provision.modules.spi.Command;
import java.time.Duration;

/**
 * A host that goes away and comes back: after a restart ({@code reboot}, {@link Command.AwaitReboot})
 * and for {@code wait_for_connection}. The host's one connection is let go and opened again, attempt
 * after attempt (each bounded by the connection's own connect timeout), until the host answers or the
 * time given is spent; then the host is unreachable, never waited for without end.
 */
final class HostReturn {
    /** Between two attempts: short enough to notice a fast boot, long enough not to hammer sshd. */
    static final Duration PAUSE = Duration.ofSeconds(2);

    private HostReturn() {
    }

    /**
     * {@code task}'s host restarting ({@code AwaitReboot}), awaited as {@link #awaitReboot} does; refused
     * where the task is delegated to another host, whose connection is not the one that restarts.
     * The run and a saved plan's apply both go through here.
     */
    static void awaitRestartOf(Task task, Connections connections, HostState host, Command.AwaitReboot reboot)
            throws CommandRunner.CommandFailedException, UnreachableException {
        if (task.delegateTo().isPresent() && !task.delegateTo().get().equals(host.name())) {
            throw new CommandRunner.CommandFailedException("a restart cannot be awaited through delegate_to; "
                    + "run the task on the host that restarts");
        }
        awaitReboot(connections, host, reboot);
    }

    /**
     * Waits until the host has booted again (its boot id differs from the one before), lets it settle,
     * and runs the test command over the new connection, which the host keeps for the rest of the run.
     */
    static void awaitReboot(Connections connections, HostState host, Command.AwaitReboot reboot)
            throws UnreachableException, CommandRunner.CommandFailedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(reboot.timeoutSeconds()).toNanos();
        String last = "no answer yet";
        connections.drop(host);
        while (true) {
            pause(PAUSE, deadline);
            if (System.nanoTime() - deadline >= 0) {
                throw new UnreachableException(host.name() + " did not come back from its restart within "
                        + reboot.timeoutSeconds() + " s (" + last + ")");
            }
            try {
                Connection c = connections.open(host);
                ExecResult id = c.exec(ExecRequest.argv(reboot.bootIdProbe()));
                String now = id.stdoutText().strip();
                if (id.exitCode() == 0 && !now.isEmpty() && !now.equals(reboot.bootIdBefore())) {
                    break;
                }
                last = id.exitCode() != 0 ? "its boot id cannot be read: " + firstLine(id) : "still the boot before the restart";
                connections.drop(host);
            } catch (ConnectionException e) {
                last = e.getMessage();
                connections.drop(host);
            }
        }
        sleep(Duration.ofSeconds(reboot.settleSeconds()));
        try {
            ExecResult test = host.connection().orElseThrow().exec(ExecRequest.argv(reboot.testCommand()));
            if (test.exitCode() != 0) {
                throw new CommandRunner.CommandFailedException("back from its restart, but the test command "
                        + String.join(" ", reboot.testCommand()) + " failed: " + firstLine(test));
            }
        } catch (ConnectionException e) {
            throw new UnreachableException(host.name() + " was lost again right after its restart: " + e.getMessage());
        }
    }

    /**
     * {@code wait_for_connection}: the host's connection answers {@code true}, opening it again as
     * often as needed within {@code timeout}.
     *
     * @return how long it took
     */
    static Duration awaitConnection(Connections connections, HostState host, Duration delay, Duration timeout)
            throws UnreachableException {
        long started = System.nanoTime();
        sleep(delay);
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (true) {
            try {
                Connection c = host.connection().isPresent() ? host.connection().get() : connections.open(host);
                ExecResult r = c.exec(ExecRequest.argv(java.util.List.of("true")));
                if (r.exitCode() == 0) {
                    return Duration.ofNanos(System.nanoTime() - started);
                }
                last = "true exited " + r.exitCode();
            } catch (ConnectionException e) {
                last = e.getMessage();
            }
            connections.drop(host);
            pause(PAUSE, deadline);
            if (System.nanoTime() - deadline >= 0) {
                throw new UnreachableException(host.name() + " did not answer within " + timeout.toSeconds() + " s (" + last + ")");
            }
        }
    }

    private static String firstLine(ExecResult r) {
        String text = r.stderrText().isBlank() ? r.stdoutText() : r.stderrText();
        return text.strip().lines().findFirst().orElse("exit " + r.exitCode());
    }

    private static void pause(Duration pause, long deadline) {
        long left = deadline - System.nanoTime();
        sleep(Duration.ofNanos(Math.max(0, Math.min(pause.toNanos(), left))));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
