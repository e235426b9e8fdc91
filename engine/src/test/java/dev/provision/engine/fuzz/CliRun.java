package dev.provision.engine.fuzz;

import dev.provision.engine.cli.ProvisionCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The real entry point, {@link ProvisionCommand#execute}, in this JVM, with captured output and a time bound. */
final class CliRun {
    private CliRun() {
    }

    /** What one run printed and returned; {@code timedOut} when it did not return within its bound. */
    record Outcome(int exitCode, String out, String err, long millis, boolean timedOut) {
        String all() {
            return out + err;
        }
    }

    static Outcome run(List<String> args, Duration timeout) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        FutureTask<Integer> run = new FutureTask<>(() -> ProvisionCommand.execute(args.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        Thread thread = new Thread(run, "fuzz-case");
        thread.setDaemon(true); // a hung case must not keep the test JVM alive
        long started = System.nanoTime();
        thread.start();
        int exitCode;
        boolean timedOut = false;
        try {
            exitCode = run.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            thread.interrupt();
            exitCode = -1;
            timedOut = true;
        } catch (ExecutionException e) {
            // execute() itself threw: as bad as a crash; the trace is the finding
            exitCode = -2;
            e.getCause().printStackTrace(new PrintStream(err, true, StandardCharsets.UTF_8));
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return new Outcome(exitCode, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                millis, timedOut);
    }
}
