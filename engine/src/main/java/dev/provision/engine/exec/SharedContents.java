package dev.provision.engine.exec;

import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.text.Sha256;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>Hosts that plan ahead all at once (the first reads of a run) would each send the content, none
 * being kept yet. Of a file the module expects the same on every host
 * ({@code HostView.expectSameOnEveryHost}: not {@code /etc/hosts}, whose own lines would make every
 * host that guessed read twice), the first host to plan a read {@linkplain #claim claims} it, the
 * others ask for the digest meanwhile, and a digest that arrives before the claimed content waits
 * for it (for that one exchange, never for another host's turn: see {@link Claim}).
 * Thread-safe; lives as long as its task's step.
 */
final class SharedContents {
    static final int MIN_SIZE = 8 * 1024;
    static final int PER_PATH = 4;

    private record Known(String digest, byte[] content) {
    }

    /** How long a digest waits for the claimed content at most (the claimer's exchange is bounded by its own limits). */
    private static final long CLAIM_WAIT_SECONDS = 60;

    /** One path's contents seen so far, and how often a host's digest was not among them. */
    private static final class PathContents {
        final List<Known> known = new CopyOnWriteArrayList<>();
        final AtomicInteger misses = new AtomicInteger();
        /** The first read of the path's content, once claimed (one per step: a claim that brought nothing is not retried). */
        volatile Claim claim;

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

    /**
     * A host's read of a path's content in an exchange under way, that the task's other hosts rely on
     * meanwhile. Its owner {@linkplain #arrived offers} what the exchange brought and {@linkplain
     * #release releases} it when the exchange ended, in every case. A claim is made only where its
     * owner waits for no other claim before releasing it ({@code ReadAheadPlanner}: a host's first
     * exchange of reads ahead, whose answers are offered as soon as they arrive), so no two hosts
     * wait for each other.
     */
    final class Claim {
        private final String path;
        private final CountDownLatch released = new CountDownLatch(1);

        private Claim(String path) {
            this.path = path;
        }

        /** The exchange answered the stat that claimed the path ({@link StatProbe}): its content is offered. */
        void arrived(ExecResult answer) {
            try {
                StatProbe.parse(path, answer).content().ifPresent(content -> offer(path, content));
            } catch (ModuleException e) {
                // the host's own turn reads the answer again and says what is wrong
            }
        }

        void release() {
            released.countDown();
        }

        boolean underWay() {
            return released.getCount() > 0;
        }

        private void await() {
            try {
                released.await(CLAIM_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The first read of {@code path}'s content, claimed for the caller; null where a claim was made
     * already, a content is known, or the path's hosts have differed too often.
     */
    Claim claim(String path) {
        PathContents contents = byPath.computeIfAbsent(path, p -> new PathContents());
        synchronized (contents) {
            if (contents.claim != null || !contents.known.isEmpty() || contents.misses.get() >= PER_PATH) {
                return null;
            }
            contents.claim = new Claim(path);
            return contents.claim;
        }
    }

    /**
     * Whether a stat of {@code path} should ask for the digest instead of the content: a content is
     * kept, or ({@code speculate}: the module expects the file the same on every host) one is on its way.
     */
    boolean wantsDigest(String path, boolean speculate) {
        PathContents contents = byPath.get(path);
        if (contents == null || contents.misses.get() >= PER_PATH) {
            return false;
        }
        Claim claim = contents.claim;
        return !contents.known.isEmpty() || speculate && claim != null && claim.underWay();
    }

    /**
     * The content a host's file with this digest holds, or null (a miss, counted). With {@code mayWait}
     * (the caller holds no claim of its own), a digest asked while the first content was on its way
     * waits for that exchange.
     */
    byte[] content(String path, String digest, boolean mayWait) {
        PathContents contents = byPath.get(path);
        if (contents == null) {
            return null;
        }
        byte[] kept = contents.find(digest);
        Claim claim = contents.claim;
        if (kept == null && mayWait && claim != null && claim.underWay()) {
            claim.await();
            kept = contents.find(digest);
        }
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
