package dev.provision.modules.stage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one node holds of a data set: the fact {@code survey.sh} reads (free space, the files under
 * the destination, the node's record of what it verified last) and its pure parser.
 *
 * @param freeBytes bytes free on the filesystem that holds (or will hold) the destination
 * @param freeInodes inodes free there; meaningful only when {@code totalInodes} is not 0
 * @param totalInodes 0 where the filesystem has no inode limit (btrfs)
 * @param notDirectory whether the destination exists and is not a directory
 * @param files per relative path: size, mode and mtime in whole seconds, as a record line holds them
 * @param verified the lines of the node's record
 */
record NodeHoldings(long freeBytes, long freeInodes, long totalInodes, boolean notDirectory, Map<String, String> files,
                    Set<String> verified) {
    NodeHoldings {
        files = Map.copyOf(files);
        verified = Set.copyOf(verified);
    }

    /** Parses what {@code survey.sh} printed. */
    static NodeHoldings parse(String output) {
        long free = -1;
        long inodes = 0;
        long totalInodes = 0;
        boolean notDirectory = false;
        Map<String, String> files = new LinkedHashMap<>();
        Set<String> verified = new LinkedHashSet<>();
        for (String line : output.lines().toList()) {
            String[] f = line.split("\t", 2);
            switch (f[0]) {
                case "space" -> {
                    String[] s = line.split("\t");
                    free = number(s[1]);
                    inodes = number(s[2]);
                    totalInodes = number(s[3]);
                }
                case "notdir" -> notDirectory = true;
                case "file" -> {
                    String[] s = line.split("\t", 5);
                    String mtime = s[3].contains(".") ? s[3].substring(0, s[3].indexOf('.')) : s[3];
                    files.put(s[4], s[1] + "\t" + s[2] + "\t" + mtime);
                }
                case "verified" -> verified.add(f[1]);
                default -> throw new IllegalArgumentException("unexpected line from the survey: " + line);
            }
        }
        if (free < 0) {
            throw new IllegalArgumentException("the survey printed no free space");
        }
        return new NodeHoldings(free, inodes, totalInodes, notDirectory, files, verified);
    }

    private static long number(String text) {
        return text.matches("[0-9]+") ? Long.parseLong(text) : 0;
    }

    /**
     * What this node lacks of {@code listing} (a listing or a complete manifest: the hashes are not
     * compared here, only what the record vouches for).
     *
     * @param missing files to fetch (absent, or another size, mode or mtime)
     * @param unverified files with the listing's size, mode and mtime that the record does not vouch
     *     for: hashed, not fetched (on the node that reads the source: compared with what it reads)
     * @param recordCurrent whether the node's record lists exactly these files with these sizes,
     *     modes and mtimes
     * @param record the node's record when it vouches for every file of the listing as it is held
     *     ({@link #complete()}): the manifest this node verified, whose root hash it holds
     */
    record Needs(List<Manifest.Entry> missing, List<Manifest.Entry> unverified, boolean recordCurrent, Optional<Manifest> record) {
        Needs {
            missing = List.copyOf(missing);
            unverified = List.copyOf(unverified);
        }

        boolean complete() {
            return missing.isEmpty() && unverified.isEmpty() && recordCurrent;
        }

        long missingBytes() {
            return missing.stream().mapToLong(Manifest.Entry::size).sum();
        }
    }

    /** The files under the destination that {@code listing} does not have (the source no longer has them), sorted. */
    List<String> notIn(Manifest listing) {
        Set<String> listed = new java.util.HashSet<>();
        listing.entries().forEach(e -> listed.add(e.path()));
        return files.keySet().stream().filter(path -> !listed.contains(path)).sorted().toList();
    }

    /**
     * A file is vouched for when the record holds a line with its path, size, mode and mtime (rsync's
     * quick check, as before a hash was ever compared): its hash is the record's.
     */
    Needs needs(Manifest listing) {
        Map<String, String> recorded = new java.util.HashMap<>();
        List<String> recordLines = new ArrayList<>(verified);
        for (String line : recordLines) {
            String[] f = line.split("\t", 2);
            if (f.length == 2) {
                recorded.put(f[1], line);
            }
        }
        List<Manifest.Entry> missing = new ArrayList<>();
        List<Manifest.Entry> unverified = new ArrayList<>();
        StringBuilder record = new StringBuilder();
        for (Manifest.Entry e : listing.entries()) {
            String have = files.get(e.path());
            String line = recorded.get(e.metadata());
            if (!(e.size() + "\t" + e.mode() + "\t" + e.mtime()).equals(have)) {
                missing.add(e);
            } else if (line == null || (e.hashed() && !line.equals(e.line()))) {
                unverified.add(e);
            } else {
                record.append(line).append('\n');
            }
        }
        boolean current = verified.size() == listing.entries().size()
                && listing.entries().stream().allMatch(e -> recorded.containsKey(e.metadata()));
        Optional<Manifest> vouched = Optional.empty();
        if (missing.isEmpty() && unverified.isEmpty() && current) {
            try {
                vouched = Optional.of(Manifest.parse(record.toString())).filter(Manifest::complete);
            } catch (IllegalArgumentException e) {
                vouched = Optional.empty(); // a damaged record vouches for nothing
            }
            if (vouched.isEmpty()) {
                return new Needs(missing, listing.entries(), false, Optional.empty());
            }
        }
        return new Needs(missing, unverified, current, vouched);
    }
}
