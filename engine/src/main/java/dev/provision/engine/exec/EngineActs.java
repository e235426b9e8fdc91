package dev.provision.engine.exec;

import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.modules.control.MetaModule;
import dev.provision.modules.spi.ConnectionWait;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskModule;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The modules the engine carries out itself instead of planning: {@code meta} (the play's own
 * control: the handlers run by the walker after the task, a host's or every host's end of the play)
 * and {@code wait_for_connection} (it waits for the host itself, in a dry run too).
 */
final class EngineActs {
    private final PlayContext play;
    private final Connections connections;

    EngineActs(PlayContext play, Connections connections) {
        this.play = play;
        this.connections = connections;
    }

    /** Whether the engine carries out {@code module}'s tasks itself: nothing to plan or read ahead. */
    static boolean carriesOut(TaskModule module) {
        return module instanceof MetaModule || module instanceof ConnectionWait;
    }

    /** The item's result when {@code module} is one of them; empty for a module that plans. */
    Optional<TaskResult> carryOut(Task task, HostState host, TaskModule module, Params params, String label)
            throws UnreachableException {
        if (module instanceof MetaModule) {
            return Optional.of(meta(host, params.string("action"), label));
        }
        if (module instanceof ConnectionWait wait) {
            return Optional.of(awaitConnection(task, host, wait, params, label));
        }
        return Optional.empty();
    }

    private TaskResult meta(HostState host, String action, String label) {
        if (action.equals("end_host")) {
            host.endedPlay(true);
        } else if (action.equals("end_play")) {
            play.hosts.values().forEach(h -> h.endedPlay(true));
        }
        return TaskResult.builder(host.name(), TaskStatus.OK).itemLabel(label).message(switch (action) {
            case "end_host" -> "the play ends here for this host";
            case "end_play" -> "the play ends here for every host";
            case "flush_handlers" -> "the handlers notified so far run now";
            default -> "";
        }).build();
    }

    private TaskResult awaitConnection(Task task, HostState host, ConnectionWait wait, Params params, String label)
            throws UnreachableException {
        ConnectionWait.Timing timing;
        try {
            timing = wait.timing(params);
        } catch (ModuleException e) {
            return ItemOutcome.failure(host, task, ItemOutcome.positioned(task, e.getMessage())).withItemLabel(label);
        }
        Duration took = HostReturn.awaitConnection(connections, host, timing.delay(), timing.timeout());
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("elapsed", took.toSeconds());
        return TaskResult.builder(host.name(), TaskStatus.OK).message("answered after " + took.toSeconds() + " s")
                .itemLabel(label).output(output).build();
    }
}
