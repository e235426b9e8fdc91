package dev.provision.engine.connection;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of the run's connections: command deadlines and keepalives. What falls due runs on
 * a virtual thread of its own (it may block on a host), so that the timer's thread only keeps time.
 *
 * <p>Why not a sleeping virtual thread per command, as before: at a thousand hosts, ten thousand
 * commands each started, parked and unparked a watchdog thread that nearly never woke for real.
 */
final class ConnectionTimer {
    private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, task -> {
        Thread timer = new Thread(task, "provision-timer");
        timer.setDaemon(true);
        return timer;
    });

    static {
        TIMER.setRemoveOnCancelPolicy(true); // a command that ends in time leaves nothing queued
    }

    private ConnectionTimer() {
    }

    /** Runs {@code task} on a virtual thread once {@code nanos} have passed, unless cancelled first. */
    static ScheduledFuture<?> after(long nanos, String name, Runnable task) {
        return TIMER.schedule(() -> Thread.ofVirtual().name(name).start(task), nanos, TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} on the timer's thread every {@code seconds}; it must not block. */
    static ScheduledFuture<?> every(int seconds, Runnable task) {
        return TIMER.scheduleWithFixedDelay(task, seconds, seconds, TimeUnit.SECONDS);
    }
}
