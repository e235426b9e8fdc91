package dev.provision.engine.connection;

import dev.provision.modules.text.Sha256;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The SHA-256 that {@link FileTransfer#put} sends with a file's content, remembered per path for
 * the last larger content written there, so that a file every host gets the same ({@code
 * ssh_known_hosts} of a thousand nodes: 100 KB) is hashed once per run instead of once per host.
 * A content is taken to be the remembered one only when its bytes are equal (compared in full), so
 * the digest is always that of the bytes being sent.
 *
 * <p>Why: at a thousand hosts hashing those uploads was 5% of the controller's CPU on a converge
 * (SHA-256 under the C1 compiler runs at about 140 MB/s; comparing two arrays is a vectorized
 * intrinsic). Thread-safe; process-wide, bounded by {@value #MAX_PATHS} paths of at most
 * {@value #MAX_SIZE} bytes each, so that a large {@code copy} is not held for the rest of the run.
 */
final class UploadDigests {
    /** Below this a content is hashed each time: the hash costs less than what is kept. */
    static final int MIN_SIZE = 8 * 1024;
    static final int MAX_SIZE = 4 * 1024 * 1024;
    static final int MAX_PATHS = 256;

    private record Known(byte[] content, String digest) {
    }

    private static final ConcurrentMap<String, Known> LAST_BY_PATH = new ConcurrentHashMap<>();

    private UploadDigests() {
    }

    /** The SHA-256 of {@code content} in lower-case hex, as {@code sha256sum} prints it. */
    static String of(String path, byte[] content) {
        if (content.length < MIN_SIZE || content.length > MAX_SIZE) {
            return Sha256.hex(content);
        }
        Known last = LAST_BY_PATH.get(path);
        if (last != null && Arrays.equals(last.content(), content)) {
            return last.digest();
        }
        String digest = Sha256.hex(content);
        if (LAST_BY_PATH.size() >= MAX_PATHS) {
            LAST_BY_PATH.clear();
        }
        // a copy: the caller's array is not ours to keep unchanged
        LAST_BY_PATH.put(path, new Known(content.clone(), digest));
        return digest;
    }
}
