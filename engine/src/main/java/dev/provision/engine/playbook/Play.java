package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One play. Roles are already expanded: their tasks sit at the start of {@link #tasks} (after
 * {@link #preTasks} in run order) and their handlers in {@link #handlers}.
 *
 * @param hosts the host pattern as written ({@code gpu:&rack1:!node07})
 * @param hostsPosition where {@code hosts:} is written: a pattern's mistake is blamed there
 * @param vars play vars ({@code vars:}), values may hold {@code ${...}}
 * @param varsFiles files named by {@code vars_files:}, already read and merged in order
 * @param serial batch sizes: integers or percentages such as {@code "30%"}; empty = all hosts at once
 * @param maxFailPercentage abort the play when more than this percentage of a batch failed
 */
public record Play(
        String name,
        String hosts,
        Map<String, Object> vars,
        Map<String, Object> varsFiles,
        boolean gatherFacts,
        List<String> serial,
        Optional<Integer> maxFailPercentage,
        boolean anyErrorsFatal,
        Optional<Boolean> become,
        Optional<String> becomeUser,
        Set<String> tags,
        List<TaskNode> preTasks,
        List<TaskNode> tasks,
        List<TaskNode> postTasks,
        List<Task> handlers,
        SourcePosition position,
        SourcePosition hostsPosition) {

    public Play {
        requireNonNull(name, "name cannot be null");
        requireNonNull(hosts, "hosts cannot be null");
        vars = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(vars));
        varsFiles = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(varsFiles));
        serial = List.copyOf(serial);
        requireNonNull(maxFailPercentage, "maxFailPercentage cannot be null");
        requireNonNull(become, "become cannot be null");
        requireNonNull(becomeUser, "becomeUser cannot be null");
        tags = Set.copyOf(tags);
        preTasks = List.copyOf(preTasks);
        tasks = List.copyOf(tasks);
        postTasks = List.copyOf(postTasks);
        handlers = List.copyOf(handlers);
        requireNonNull(position, "position cannot be null");
        requireNonNull(hostsPosition, "hostsPosition cannot be null");
    }

    /** This play with {@code over} set above its own vars (an {@code import_playbook}'s {@code vars:}, as Ansible does). */
    public Play withVarsOver(Map<String, Object> over) {
        Map<String, Object> merged = new java.util.LinkedHashMap<>(vars);
        merged.putAll(over);
        return new Play(name, hosts, merged, varsFiles, gatherFacts, serial, maxFailPercentage, anyErrorsFatal, become, becomeUser,
                tags, preTasks, tasks, postTasks, handlers, position, hostsPosition);
    }
}
