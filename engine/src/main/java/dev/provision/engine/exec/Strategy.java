package dev.provision.engine.exec;

import dev.provision.engine.playbook.Task;
import java.util.List;

/**
 * How the active hosts of a batch go through a run of tasks, each already selected (tags,
 * {@code --start-at-task}). Either way, each task's results reach the {@link ResultRecorder} in
 * host order, task by task, so the output is the same; what differs is whether a host waits for
 * the others between tasks.
 */
sealed interface Strategy permits LinearStrategy, RunAheadStrategy {
    void run(List<Task> tasks, List<HostState> hosts);
}
