package dev.provision.modules.stage;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a data set is: per regular file its SHA-256, size, mode and mtime, in path order. Planning
 * lists the source without reading a file's data ({@code manifest.sh}, {@link ControllerManifest}):
 * every hash is then {@link #UNHASHED}, a <em>listing</em>. The node that reads the source fills in
 * the hashes from the bytes it read (or from its own record where that vouches for a file), and that
 * complete manifest travels to every other node as it is; its own SHA-256 is the root hash that every
 * node that verified the set agrees on. A node's record is always complete.
 */
record Manifest(String text, List<Entry> entries) {
    /** The hash field of a file whose data nobody has read yet. */
    static final String UNHASHED = "-";

    Manifest {
        requireNonNull(text, "text cannot be null");
        entries = List.copyOf(entries);
    }

    /**
     * One file.
     *
     * @param mode octal permission bits as find prints them ({@code 644})
     * @param mtime whole seconds since the epoch
     */
    record Entry(String sha256, long size, String mode, long mtime, String path) {
        Entry {
            requireNonNull(sha256, "sha256 cannot be null");
            requireNonNull(mode, "mode cannot be null");
            requireNonNull(path, "path cannot be null");
        }

        /** Whether the hash is known (not {@link #UNHASHED}). */
        boolean hashed() {
            return !sha256.equals(UNHASHED);
        }

        /** Size, mode, mtime and path: what a listing says of the file, the hash left out. */
        String metadata() {
            return size + "\t" + mode + "\t" + mtime + "\t" + path;
        }

        /** The line as the manifest (and a node's record) holds it. */
        String line() {
            return sha256 + "\t" + size + "\t" + mode + "\t" + mtime + "\t" + path;
        }
    }

    /** Parses a manifest or a listing ({@code manifest.sh}'s output); refuses a line of any other shape. */
    static Manifest parse(String text) {
        List<Entry> entries = new ArrayList<>();
        for (String line : text.lines().toList()) {
            String[] f = line.split("\t", 5);
            if (f.length != 5 || !(f[0].matches("[0-9a-f]{64}") || f[0].equals(UNHASHED)) || !f[1].matches("[0-9]+") || !f[2].matches("[0-7]{1,4}")
                    || !f[3].matches("-?[0-9]+") || f[4].isEmpty()) {
                throw new IllegalArgumentException("not a manifest line: " + line);
            }
            entries.add(new Entry(f[0], Long.parseLong(f[1]), f[2], Long.parseLong(f[3]), f[4]));
        }
        return new Manifest(text, entries);
    }

    /** Whether every file's hash is known: a manifest, not a listing. */
    boolean complete() {
        return entries.stream().allMatch(Entry::hashed);
    }

    byte[] bytes() {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The SHA-256 of the manifest's text, hex: what {@code sha256sum} of a node's record prints. Only
     * a {@link #complete()} manifest has a root hash.
     */
    String rootHash() {
        if (!complete()) {
            throw new IllegalStateException("a listing has no root hash: its files are not hashed yet");
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    long totalBytes() {
        return entries.stream().mapToLong(Entry::size).sum();
    }
}
