package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Round;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Round.Feed} running: its command on the controller, its standard output going into a
 * FIFO in a private temporary directory, which the launch's connection streams to the host as the
 * command's standard input ({@code ExecRequest.withStdinFile}): the bytes pass through the
 * connection provision already holds, never through a file of the data set's size. The command
 * runs without a shell of ours ({@code sh -c 'exec "$@" > "$0"' FIFO ARGV...}: every value a
 * positional parameter); {@link #close} ends it however the launch ended.
 */
final class ControllerFeed implements AutoCloseable {
    /** How long a feed may go on after its launch ended before it is killed (it normally ended first). */
    private static final long GRACE_MILLIS = 2000;
    private static final int SAID_LIMIT = 2000;

    private final Path dir;
    private final Path stream;
    private final Process process;
    private final String name;
    private boolean killed;

    private ControllerFeed(Path dir, Path stream, Process process, String name) {
        this.dir = dir;
        this.stream = stream;
        this.process = process;
        this.name = name;
    }

    /** Starts {@code feed}'s command; it blocks until the launch's connection opens {@link #stream()}. */
    static ControllerFeed start(Round.Feed feed) throws IOException {
        requireNonNull(feed, "feed cannot be null");
        if (!feed.present()) {
            throw new IllegalArgumentException("no feed to start");
        }
        Path dir = Files.createTempDirectory("provision-feed-");
        try {
            Path input = Files.writeString(dir.resolve("input"), feed.input(), StandardCharsets.UTF_8);
            Path stream = dir.resolve("stream");
            Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", "--", stream.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!waitFor(mkfifo, 10_000) || mkfifo.exitValue() != 0) {
                mkfifo.destroyForcibly();
                throw new IOException("mkfifo " + stream + " failed");
            }
            List<String> argv = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" > \"$0\"", stream.toString()));
            argv.addAll(feed.argv());
            Process process = new ProcessBuilder(argv).directory(dir.toFile())
                    .redirectInput(input.toFile())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(dir.resolve("stderr").toFile())
                    .start();
            return new ControllerFeed(dir, stream, process, feed.argv().get(0));
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    /** The FIFO that carries the command's standard output. */
    Path stream() {
        return stream;
    }

    /**
     * Ends the command (it had until the grace period's end to finish) and says what it said, for
     * the launch's answer: empty when it exited 0 and wrote nothing on standard error.
     */
    String finish() {
        if (!waitFor(process, GRACE_MILLIS)) {
            killed = true;
            process.destroyForcibly();
            waitFor(process, GRACE_MILLIS);
        }
        unblockReader();
        String err;
        try {
            err = Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            err = "";
        }
        if (err.length() > SAID_LIMIT) {
            err = err.substring(0, SAID_LIMIT) + "...";
        }
        int code = process.isAlive() ? -1 : process.exitValue();
        if (killed) {
            return "controller: the feed was stopped after the host's command ended" + (err.isEmpty() ? "" : ": " + err);
        }
        return code == 0 && err.isEmpty() ? "" : "controller: " + name + " exited " + code + (err.isEmpty() ? "" : ": " + err);
    }

    /**
     * Where the command died before it opened the FIFO, a reader that waits in open() would wait
     * forever: opening it for reading and writing never blocks on Linux and lets such a reader go.
     */
    private void unblockReader() {
        try (FileChannel ignored = FileChannel.open(stream, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // opened and closed: a waiting reader sees end of file
        } catch (IOException e) {
            // gone already: nobody can be waiting on it
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            waitFor(process, GRACE_MILLIS);
            unblockReader();
        }
        deleteTree(dir);
    }

    private static boolean waitFor(Process p, long millis) {
        try {
            return p.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
