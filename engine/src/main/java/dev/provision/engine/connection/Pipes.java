package dev.provision.engine.connection;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The three standard streams of a running command, each served by its own (virtual) thread: a
 * command that fills its stdout pipe while we are still writing its stdin, or that writes megabytes
 * to stderr before stdout, can never deadlock against us.
 */
final class Pipes {
    private final CompletableFuture<Void> stdinWritten;
    private final CompletableFuture<byte[]> stdout;
    private final CompletableFuture<byte[]> stderr;

    private Pipes(CompletableFuture<Void> stdinWritten, CompletableFuture<byte[]> stdout, CompletableFuture<byte[]> stderr) {
        this.stdinWritten = stdinWritten;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts writing {@code input} (then closing {@code stdin}: end of file) and reading both outputs. */
    static Pipes start(OutputStream stdin, byte[] input, InputStream stdout, InputStream stderr) {
        return new Pipes(feed(stdin, input, java.util.Optional.empty()), drain(stdout), drain(stderr));
    }

    /** As {@link #start(OutputStream, byte[], InputStream, InputStream)}, the request's input file streamed after its bytes. */
    static Pipes start(OutputStream stdin, ExecRequest request, InputStream stdout, InputStream stderr) {
        return new Pipes(feed(stdin, request.stdin(), request.stdinFile()), drain(stdout), drain(stderr));
    }

    /**
     * Waits until both outputs reached end of file.
     *
     * @throws TimeoutException when they did not within {@code millis}
     */
    Outputs await(long millis) throws IOException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
        byte[] out = get(stdout, deadline);
        byte[] err = get(stderr, deadline);
        // A command may exit without reading its input: the broken pipe that follows is not an error.
        stdinWritten.cancel(false);
        return new Outputs(out, err);
    }

    record Outputs(byte[] stdout, byte[] stderr) {
    }

    private static <T> T get(CompletableFuture<T> future, long deadlineNanos)
            throws IOException, TimeoutException, InterruptedException {
        try {
            return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            throw new IOException(e.getCause());
        }
    }

    private static CompletableFuture<Void> feed(OutputStream target, byte[] input, java.util.Optional<java.nio.file.Path> file) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().name("provision-stdin").start(() -> {
            try (target) {
                target.write(input);
                if (file.isPresent()) {
                    // a file that cannot be read ends the input early: the command's check of what it received fails
                    java.nio.file.Files.copy(file.get(), target);
                }
                target.flush();
            } catch (IOException e) {
                // The command closed its input early (it did not want it); its exit status says the rest.
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    static CompletableFuture<byte[]> drain(InputStream source) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Thread.ofVirtual().name("provision-output").start(() -> {
            try (source) {
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                source.transferTo(buffer);
                result.complete(buffer.toByteArray());
            } catch (IOException e) {
                result.completeExceptionally(new UncheckedIOException(e));
            }
        });
        return result;
    }
}
