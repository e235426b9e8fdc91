package dev.provision.engine.exec;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where each host is in a run of consecutive tasks that hosts go through without waiting for each
 * other (see {@code Executor.PlayRun#runAhead}). One host may read another's state through
 * {@code hostvars}; {@link #awaitCaughtUp} makes that read wait until the other host has finished
 * every task before the reader's, so that it sees what the linear strategy would have shown it
 * (what the other host registered or set before); {@link #stillInPlay} does the same for
 * {@code play_hosts}. Waits only ever point at an earlier task, so they cannot form a cycle.
 */
final class RunAhead {
    private final Set<String> hosts;
    private final Map<String, Integer> running = new HashMap<>();
    private final Map<String, Integer> finished = new HashMap<>();
    private final Set<String> stopped = new HashSet<>();
    private final Map<String, Integer> failedAt = new HashMap<>();

    RunAhead(Set<String> hosts) {
        this.hosts = Set.copyOf(hosts);
    }

    synchronized void starting(String host, int task) {
        running.put(host, task);
    }

    synchronized void finished(String host, int task) {
        finished.put(host, task + 1);
        notifyAll();
    }

    /** The host failed (or became unreachable) in {@code task}; {@link #stopped} follows. */
    synchronized void failed(String host, int task) {
        failedAt.put(host, task);
    }

    /** The host runs no further task of this run (done, failed or unreachable). */
    synchronized void stopped(String host) {
        stopped.add(host);
        notifyAll();
    }

    /** Waits until {@code target} finished the tasks before the one {@code reader} is running, or stopped. */
    synchronized void awaitCaughtUp(String reader, String target) {
        Integer readerAt = running.get(reader);
        if (readerAt == null || reader.equals(target) || !hosts.contains(target)) {
            return;
        }
        try {
            while (finished.getOrDefault(target, 0) < readerAt && !stopped.contains(target)) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@code candidates} less the hosts that failed before the task {@code reader} is running, once
     * every one of them has caught up: {@code play_hosts} as the linear strategy would show it.
     */
    List<String> stillInPlay(String reader, List<String> candidates) {
        candidates.forEach(c -> awaitCaughtUp(reader, c));
        synchronized (this) {
            Integer readerAt = running.get(reader);
            if (readerAt == null) {
                return candidates;
            }
            return candidates.stream().filter(c -> failedAt.getOrDefault(c, Integer.MAX_VALUE) >= readerAt).toList();
        }
    }
}
