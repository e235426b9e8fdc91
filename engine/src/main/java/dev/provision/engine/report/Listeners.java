package dev.provision.engine.report;

import java.util.List;
import java.util.Map;

/** Fans events out to several listeners; a listener that throws is ignored, never the run. */
public final class Listeners implements RunListener {
    private final List<RunListener> listeners;

    public Listeners(List<RunListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    private void each(java.util.function.Consumer<RunListener> event) {
        for (RunListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException ignored) {
                // a broken report must never break a run
            }
        }
    }

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        each(l -> l.playStarted(name, hosts, check));
    }

    @Override
    public void noHostsMatched(String pattern) {
        each(l -> l.noHostsMatched(pattern));
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        each(l -> l.taskStarted(name, position, handler));
    }

    @Override
    public void progress(String step, int done, int total) {
        each(l -> l.progress(step, done, total));
    }

    @Override
    public void progress(String step, int done, int total, String rate) {
        each(l -> l.progress(step, done, total, rate));
    }

    @Override
    public void hostResult(TaskResult result) {
        each(l -> l.hostResult(result));
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        each(l -> l.recap(stats, retryHint));
    }

    @Override
    public void warning(String message) {
        each(l -> l.warning(message));
    }
}
