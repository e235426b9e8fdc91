package dev.provision.engine.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --profile}: after the recap, where the run's time went, task by task: how many hosts ran
 * it, the median and the slowest host's time, and the round trips it took per host (median and most:
 * every command run, file written or read on the host is one, and at least one process started
 * there). On a slow node the round trips, not the controller, are what a task costs.
 */
public final class ProfileReport implements RunListener {
    private final PrintStream out;
    /** By where the task is written (two tasks may share a name), with the name shown. */
    private final Map<String, List<TaskResult>> byTask = new LinkedHashMap<>();
    private final Map<String, String> names = new LinkedHashMap<>();
    private String current = "";

    public ProfileReport(PrintStream out) {
        this.out = out;
    }

    @Override
    public synchronized void taskStarted(String name, String position, boolean handler) {
        current = (handler ? "handler " : "") + position + " " + name;
        names.putIfAbsent(current, (handler ? "handler " : "") + (name.isEmpty() ? position : name));
        byTask.putIfAbsent(current, new ArrayList<>());
    }

    @Override
    public synchronized void hostResult(TaskResult result) {
        byTask.computeIfAbsent(current, k -> new ArrayList<>()).add(result);
    }

    @Override
    public synchronized void recap(Map<String, HostStats> stats, String retryHint) {
        out.println();
        out.println("PROFILE (per task: hosts, time median/max, round trips per host median/max) ****************");
        long totalTrips = 0;
        int hostTasks = 0;
        for (Map.Entry<String, List<TaskResult>> e : byTask.entrySet()) {
            List<TaskResult> results = e.getValue();
            if (results.isEmpty()) {
                continue;
            }
            long[] ms = results.stream().mapToLong(r -> r.duration().toMillis()).sorted().toArray();
            int[] trips = results.stream().mapToInt(TaskResult::roundTrips).sorted().toArray();
            for (int t : trips) {
                totalTrips += t;
            }
            hostTasks += trips.length;
            String shown = names.getOrDefault(e.getKey(), e.getKey());
            String name = shown.length() > 50 ? shown.substring(0, 49) + "…" : shown;
            out.println(String.format(Locale.ROOT, "%-50s %5d hosts %7d ms %7d ms %4d %4d", name, results.size(),
                    ms[ms.length / 2], ms[ms.length - 1], trips[trips.length / 2], trips[trips.length - 1]));
        }
        out.println(String.format(Locale.ROOT, "%d round trips over %d host-tasks (%.2f each)", totalTrips, hostTasks,
                hostTasks == 0 ? 0.0 : (double) totalTrips / hostTasks));
    }
}
