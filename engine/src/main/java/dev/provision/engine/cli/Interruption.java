package dev.provision.engine.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) and SIGTERM during a run: the first asks the run to stop gracefully (no new task,
 * the running ones finish, then the recap and the --json report are written and provision exits
 * with {@link ExitCode#INTERRUPTED}); if the running tasks take longer than {@link #GRACE}, or on a
 * second signal, provision stops at once (exit 130). A write on a node is whole or absent either way
 * (it commits only what arrived complete). {@code sun.misc.Signal} because the JVM's shutdown hooks
 * cannot let the run finish and still choose the exit code.
 */
final class Interruption implements AutoCloseable {
    static final Duration GRACE = Duration.ofSeconds(30);
    private static final String[] SIGNALS = {"INT", "TERM"};

    private final SignalHandler[] previous = new SignalHandler[SIGNALS.length];

    private Interruption(Runnable stop, PrintStream err) {
        AtomicInteger received = new AtomicInteger();
        SignalHandler handler = signal -> {
            if (received.incrementAndGet() > 1) {
                err.println("\nprovision: stopped at once (second " + signal.getName() + ")");
                Runtime.getRuntime().halt(ExitCode.INTERRUPTED.code());
            }
            err.println("\nprovision: interrupted (SIG" + signal.getName() + "): no new tasks; waiting up to "
                    + GRACE.toSeconds() + " s for the running ones, then the recap (again to stop at once)");
            stop.run();
            Thread.ofPlatform().daemon().name("provision-grace").start(() -> {
                try {
                    Thread.sleep(GRACE);
                    err.println("provision: the running tasks did not end within " + GRACE.toSeconds() + " s; stopped");
                    Runtime.getRuntime().halt(ExitCode.INTERRUPTED.code());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        };
        for (int i = 0; i < SIGNALS.length; i++) {
            previous[i] = Signal.handle(new Signal(SIGNALS[i]), handler);
        }
    }

    /** Until {@link #close}, the signals call {@code stop} (once), as described above. */
    static Interruption forwardTo(Runnable stop, PrintStream err) {
        return new Interruption(stop, err);
    }

    @Override
    public void close() {
        for (int i = 0; i < SIGNALS.length; i++) {
            Signal.handle(new Signal(SIGNALS[i]), previous[i]);
        }
    }
}
