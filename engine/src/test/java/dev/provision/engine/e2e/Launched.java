package dev.provision.engine.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A child process the tests launch, read and bounded in time at once: its output is drained in the
 * background while the test waits for its end, so a child that hangs with its stdout open (or a
 * grandchild that keeps it) fails the test at the time limit instead of hanging the build.
 */
public final class Launched {
    /** Exit status and output (stdout and stderr as the builder redirected them). */
    public record Output(int exitCode, String stdout, String stderr) {
    }

    private Launched() {
    }

    /**
     * Starts {@code builder} with stdin closed and waits at most {@code limit}.
     *
     * @throws AssertionError when it runs past the limit (it is killed with its descendants; the
     *     message holds what it printed so far)
     */
    public static Output run(ProcessBuilder builder, Duration limit) throws IOException, InterruptedException {
        Process process = builder.start();
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Void> outDone = CompletableFuture.runAsync(() -> drain(process.getInputStream(), out));
        CompletableFuture<Void> errDone = CompletableFuture.runAsync(() -> drain(process.getErrorStream(), err));
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", builder.command()) + " did not finish within " + limit.toSeconds()
                    + " s; its output so far:\n" + text(out));
        }
        // The child is gone; a descendant that still holds the pipes gets a moment, not forever.
        try {
            CompletableFuture.allOf(outDone, errDone).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }
        return new Output(process.exitValue(), text(out), text(err));
    }

    private static void drain(InputStream in, ByteArrayOutputStream into) {
        byte[] buffer = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                synchronized (into) {
                    into.write(buffer, 0, n);
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    private static String text(ByteArrayOutputStream bytes) {
        synchronized (bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
