package dev.provision.modules.stage;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a data set is, made once at the source by {@code manifest.sh}: per regular file its SHA-256,
 * size, mode and mtime, in path order. The text travels to every node as it is; its own SHA-256 is
 * the root hash that every node that verified the set agrees on.
 */
record Manifest(String text, List<Entry> entries) {
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

        /** The line as the manifest (and a node's record) holds it. */
        String line() {
            return sha256 + "\t" + size + "\t" + mode + "\t" + mtime + "\t" + path;
        }
    }

    /** Parses what {@code manifest.sh} printed; refuses a line of any other shape. */
    static Manifest parse(String text) {
        List<Entry> entries = new ArrayList<>();
        for (String line : text.lines().toList()) {
            String[] f = line.split("\t", 5);
            if (f.length != 5 || !f[0].matches("[0-9a-f]{64}") || !f[1].matches("[0-9]+") || !f[2].matches("[0-7]{1,4}")
                    || !f[3].matches("-?[0-9]+") || f[4].isEmpty()) {
                throw new IllegalArgumentException("not a manifest line: " + line);
            }
            entries.add(new Entry(f[0], Long.parseLong(f[1]), f[2], Long.parseLong(f[3]), f[4]));
        }
        return new Manifest(text, entries);
    }

    byte[] bytes() {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The SHA-256 of the manifest's text, hex: what {@code sha256sum} of a node's record prints. */
    String rootHash() {
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
