package dev.provision.modules.spi;

import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The SHA-256 of a controller file, read in parts (never the whole file in memory) and computed once
 * per run for a given path, size, modification time and inode: a large {@code copy} to a thousand
 * hosts hashes its source once, and the plan, the write's check on each host and a saved plan all
 * use that one digest. Thread-safe; a file being hashed by one thread is waited for by the others.
 */
public final class ControllerFileDigests {
    private record Version(Path path, long size, long modifiedMillis, Object fileKey) {
    }

    private static final ConcurrentMap<Version, String> KNOWN = new ConcurrentHashMap<>();
    private static final int MAX_FILES = 1024;
    /**
     * From this size a file is hashed by the controller's own program where it has one: the JVM
     * runs with the C1 compiler only (start-up), whose SHA-256 has no CPU instructions and makes
     * ~150 MB/s; OpenSSL's uses them (SHA-NI: ~1 GB/s), coreutils' is C (~350 MB/s). A 256 MiB copy
     * waited 1.75 s for Java's digest.
     */
    static final long NATIVE_FROM = 4L << 20;
    /** The programs, best first; each prints the digest first, then the name. */
    private static final List<List<String>> NATIVE = List.of(
            List.of("/usr/bin/openssl", "dgst", "-sha256", "-r"),
            List.of("/usr/bin/sha256sum", "-b"));
    private static final java.util.regex.Pattern HEX = java.util.regex.Pattern.compile("[0-9a-f]{64}");
    /**
     * A shell command that prints the SHA-256 of its standard input as {@link #sameDigest} reads it,
     * on a host: OpenSSL's where the host has it (the CPU's SHA instructions: 256 MiB in 0.2 s), else
     * {@code sha256sum}'s. For large files only: OpenSSL starts slower than sha256sum.
     */
    public static final String HOST_SHA256_OF_STDIN =
            "if command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r; else sha256sum; fi";

    private ControllerFileDigests() {
    }

    /** The digest in lower-case hex, as {@code sha256sum} prints it. */
    public static String sha256(Path file) throws ModuleException {
        Version version;
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            version = new Version(file.toAbsolutePath().normalize(), attributes.size(),
                    attributes.lastModifiedTime().toMillis(), attributes.fileKey());
        } catch (IOException e) {
            throw new ModuleException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (KNOWN.size() >= MAX_FILES) {
            KNOWN.clear();
        }
        try {
            return KNOWN.computeIfAbsent(version, v -> hash(v.path(), v.size()));
        } catch (UncheckedIOException e) {
            throw new ModuleException("cannot read " + file + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * {@link #sha256} on a thread of its own, for a caller that waits on the host meanwhile; fails
     * with the {@link ModuleException} that says why the file could not be read.
     */
    public static java.util.concurrent.CompletableFuture<String> inBackground(Path file) {
        java.util.concurrent.CompletableFuture<String> digest = new java.util.concurrent.CompletableFuture<>();
        Thread.ofVirtual().name("provision-digest").start(() -> {
            try {
                digest.complete(sha256(file));
            } catch (ModuleException | RuntimeException e) {
                digest.completeExceptionally(e);
            }
        });
        return digest;
    }

    /**
     * The digest by {@code program} (the file's absolute path last: it starts with a slash, so it is
     * never taken for an option); empty where the program is missing, fails or says anything else.
     */
    static Optional<String> natively(List<String> program, Path file) {
        if (!Files.isExecutable(Path.of(program.getFirst()))) {
            return Optional.empty();
        }
        List<String> argv = new java.util.ArrayList<>(program);
        argv.add(file.toAbsolutePath().toString());
        try {
            Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            if (p.waitFor() != 0) {
                return Optional.empty();
            }
            String first = out.strip().split("\\s+", 2)[0].toLowerCase(java.util.Locale.ROOT);
            return HEX.matcher(first).matches() ? Optional.of(first) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Whether {@code sha256sum FILE}'s answer names {@code digest}. */
    public static boolean sameDigest(ProbeResult sha256sum, String path, String digest) throws ModuleException {
        if (!sha256sum.ok()) {
            throw new ModuleException("cannot checksum " + path + ": " + sha256sum.stderr().strip());
        }
        return sha256sum.stdout().strip().split("\\s+", 2)[0].equalsIgnoreCase(digest);
    }

    private static String hash(Path file, long size) {
        if (size >= NATIVE_FROM) {
            for (List<String> program : NATIVE) {
                Optional<String> digest = natively(program, file);
                if (digest.isPresent()) {
                    return digest.get();
                }
            }
        }
        MessageDigest digest = Sha256.digest();
        byte[] buffer = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
