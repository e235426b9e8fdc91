package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
import java.util.Map;
import java.util.Optional;

/**
 * The applying step of a run: a plan's commands carried out by {@link CommandRunner#apply} (the one
 * applier; saved plans use it too), with what the run keeps around it. What was read of the host is
 * forgotten (it is about to change); the write also reads what the host's next task reads first,
 * unless this task's outcome can change what that is; a restart is awaited and the task's connection
 * made again.
 */
final class ItemApplying {
    private final Connections connections;
    private final TaskInputs inputs;

    ItemApplying(Connections connections, TaskInputs inputs) {
        this.connections = connections;
        this.inputs = inputs;
    }

    /** What applying {@code plan} came to: the last program's result, or why a command failed. */
    ItemOutcome.Applied apply(Task task, HostState host, TaskModule module, Plan plan, Connection connection,
                              Map<String, Object> vars, boolean handler, HostReads reads) throws UnreachableException {
        reads.forget();
        reads.ahead().invalidate();
        boolean alone = task.loop().isPresent() || task.until().isPresent() || handler || ReadAheadPlanner.setsVariables(task, module)
                || task.timeoutSeconds().isPresent();
        Connection applying = alone ? connection : reads.ahead().readingAfter(connection);
        try {
            Optional<ExecResult> last = CommandRunner.apply(applying, plan, reboot -> {
                reads.ahead().invalidate(); // what was read before the restart is gone with it
                HostReturn.awaitRestartOf(task, connections, host, reboot);
                try {
                    return inputs.connection(task, host, vars, reads.exchanges);
                } catch (TemplateException e) {
                    throw new CommandRunner.CommandFailedException(e.getMessage());
                }
            });
            if (last.isEmpty() || last.get().exitCode() == 0) {
                reads.wrote(plan);
            }
            return new ItemOutcome.Applied(last, null);
        } catch (UnreachableException e) {
            throw e;
        } catch (ConnectionException | CommandRunner.CommandFailedException e) {
            return new ItemOutcome.Applied(Optional.empty(), e.getMessage());
        }
    }
}
