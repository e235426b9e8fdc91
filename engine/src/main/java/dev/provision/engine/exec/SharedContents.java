package dev.provision.engine.exec;

import dev.provision.modules.text.Sha256;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The larger files one task has read from its hosts, by path and SHA-256, so that a host whose file
 * is the same as another's answers a stat with the file's digest instead of its content, and gets
 * the very bytes that other host sent (from which a module's derivations can be shared too).
 *
 * <p>Why: a cluster-wide file ({@code ssh_known_hosts} of a thousand nodes: 100 KB) is the same on
 * every converged node, and bringing it over from each one, decrypting and parsing it, was the
 * largest single cost of a no-op run at that size.
 *
 * <p>The digest is of the host's own file, computed on the host; the controller never tells a host
 * what another host's file holds or hashes to, and what it keeps it hashed itself. A path whose
 * hosts' files turn out to differ ({@code /etc/hosts} with each node's own line) goes back to
 * content with the stat after {@value #PER_PATH} misses, each of which cost a second read. Only
 * files of at least {@value #MIN_SIZE} bytes take part: below, the content costs less than a digest.
 * Thread-safe; lives as long as its task's step.
 */
final class SharedContents {
    static final int MIN_SIZE = 8 * 1024;
    static final int PER_PATH = 4;

    private record Known(String digest, byte[] content) {
    }

    /** One path's contents seen so far, and how often a host's digest was not among them. */
    private static final class PathContents {
        final List<Known> known = new CopyOnWriteArrayList<>();
        final AtomicInteger misses = new AtomicInteger();

        /** The content kept with this digest, or null. */
        byte[] find(String digest) {
            for (Known k : known) {
                if (k.digest().equals(digest)) {
                    return k.content();
                }
            }
            return null;
        }
    }

    private final ConcurrentMap<String, PathContents> byPath = new ConcurrentHashMap<>();

    /** Whether a stat of {@code path} should ask for the digest instead of the content. */
    boolean wantsDigest(String path) {
        PathContents contents = byPath.get(path);
        return contents != null && !contents.known.isEmpty() && contents.misses.get() < PER_PATH;
    }

    /** The content a host's file with this digest holds, or null (a miss, counted). */
    byte[] content(String path, String digest) {
        PathContents contents = byPath.get(path);
        if (contents == null) {
            return null;
        }
        byte[] kept = contents.find(digest);
        if (kept == null) {
            contents.misses.incrementAndGet();
        }
        return kept;
    }

    /**
     * A content read from a host in full; kept (hashed here) while the path has room. Returns the
     * bytes to use: an equal content kept already, so that hosts with the same file share one array.
     * An equal one is found by comparing the bytes (a memory compare, where the hosts that read
     * ahead at once all sent the same file: SHA-256 of each on the controller was 4.5 % of a
     * 500-node no-op's CPU); only a content not kept yet is hashed.
     */
    byte[] offer(String path, byte[] content) {
        if (content.length < MIN_SIZE) {
            return content;
        }
        PathContents contents = byPath.computeIfAbsent(path, p -> new PathContents());
        for (Known k : contents.known) {
            if (Arrays.equals(k.content(), content)) {
                return k.content();
            }
        }
        if (contents.known.size() >= PER_PATH || contents.misses.get() >= PER_PATH) {
            return content;
        }
        String digest = Sha256.hex(content);
        synchronized (contents) {
            byte[] kept = contents.find(digest);
            if (kept != null) {
                return kept;
            }
            if (contents.known.size() < PER_PATH) {
                contents.known.add(new Known(digest, content));
            }
        }
        return content;
    }
}
