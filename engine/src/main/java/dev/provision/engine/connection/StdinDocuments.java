package dev.provision.engine.connection;

import com.google.common.base.Suppliers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * How a command's standard input travels to a {@link RemoteShell}: a here-document of its base64
 * that the shell decodes into the file {@code $__pv_d/i} (0600). A larger input sent a second time
 * in a run (the same {@code ssh_known_hosts} of a thousand nodes to every node: 100 KB) is sent
 * gzip-compressed, where the host has {@code gzip}, and its document is built once for all hosts.
 *
 * <p>Why: at a thousand hosts the converge's uploads were a fifth of the controller's CPU, spent
 * on base64 and on encrypting a third more bytes than the file holds (ChaCha20-Poly1305 under the
 * C1 compiler: ~140 MB/s). Compressing each upload once per host cost more than it saved
 * (1.1 ms for those 100 KB); compressed once per content and reused, the known-hosts file goes to
 * each host as 55 KB of text instead of 133 KB. An input seen once is not compressed, so a file
 * that differs per host costs what it did. What arrives is checked by its receiver
 * ({@link FileTransfer#put} compares size and SHA-256), compressed or not.
 *
 * <p>Thread-safe; process-wide, bounded by {@value #MAX_KEPT} inputs of at most {@value #MAX_SIZE}
 * bytes each.
 */
final class StdinDocuments {
    /** Below this an input is encoded each time: compressing or keeping it costs more than it saves. */
    static final int MIN_SIZE = 8 * 1024;
    static final int MAX_SIZE = 4 * 1024 * 1024;
    static final int MAX_KEPT = 64;
    /** Ends every here-document: a line base64 text never is. */
    static final String END = "__PROVISION_STDIN_END__";

    private static final byte[] PLAIN_HEAD = head("exec base64 -d");
    private static final byte[] GZIP_HEAD = head("base64 -d | exec gzip -dc");
    private static final byte[] TAIL = ("\n" + END + "\n").getBytes(StandardCharsets.US_ASCII);

    /** An input seen before, found by its length and then compared in full (a vectorized intrinsic). */
    private record Seen(byte[] content, Supplier<byte[]> gzipDocument) {
    }

    private static final ConcurrentMap<Integer, Seen> SEEN_BY_LENGTH = new ConcurrentHashMap<>();

    private StdinDocuments() {
    }

    /**
     * The shell script that writes {@code stdin} to {@code $__pv_d/i}: a here-document, ending in a
     * newline. {@code gzip} says whether the host can decompress.
     */
    static byte[] of(byte[] stdin, boolean gzip) {
        if (!gzip || stdin.length < MIN_SIZE || stdin.length > MAX_SIZE) {
            return document(PLAIN_HEAD, stdin);
        }
        Seen seen = SEEN_BY_LENGTH.get(stdin.length);
        if (seen != null && Arrays.equals(seen.content(), stdin)) {
            return seen.gzipDocument().get(); // built by the first host to need it; others wait for it
        }
        if (SEEN_BY_LENGTH.size() >= MAX_KEPT) {
            SEEN_BY_LENGTH.clear();
        }
        byte[] kept = stdin.clone(); // the caller's array is not ours to keep unchanged
        SEEN_BY_LENGTH.put(stdin.length, new Seen(kept, Suppliers.memoize(() -> document(GZIP_HEAD, gzipped(kept)))));
        return document(PLAIN_HEAD, stdin);
    }

    /** Forgets every input seen; for tests. */
    static void forget() {
        SEEN_BY_LENGTH.clear();
    }

    private static byte[] head(String decoder) {
        // 0600: the input may be a become password or a secret file's content.
        return ("(umask 077 && " + decoder + " >\"$__pv_d/i\") <<'" + END + "'\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] document(byte[] head, byte[] content) {
        byte[] base64 = Base64.getMimeEncoder(76, new byte[] {'\n'}).encode(content);
        byte[] document = Arrays.copyOf(head, head.length + base64.length + TAIL.length);
        System.arraycopy(base64, 0, document, head.length, base64.length);
        System.arraycopy(TAIL, 0, document, head.length + base64.length, TAIL.length);
        return document;
    }

    private static byte[] gzipped(byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length / 2);
        try (GZIPOutputStream gzip = new GZIPOutputStream(out, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            gzip.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }
}
