package dev.provision.modules.stage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
     * What this node lacks of {@code manifest}.
     *
     * @param missing files to fetch (absent, or another size, mode or mtime)
     * @param unverified files with the manifest's size, mode and mtime that the record does not vouch
     *     for: hashed, not fetched
     * @param recordCurrent whether the node's record is this manifest exactly
     */
    record Needs(List<Manifest.Entry> missing, List<Manifest.Entry> unverified, boolean recordCurrent) {
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

    Needs needs(Manifest manifest) {
        List<Manifest.Entry> missing = new ArrayList<>();
        List<Manifest.Entry> unverified = new ArrayList<>();
        for (Manifest.Entry e : manifest.entries()) {
            String have = files.get(e.path());
            if (!(e.size() + "\t" + e.mode() + "\t" + e.mtime()).equals(have)) {
                missing.add(e);
            } else if (!verified.contains(e.line())) {
                unverified.add(e);
            }
        }
        boolean current = verified.size() == manifest.entries().size()
                && manifest.entries().stream().allMatch(e -> verified.contains(e.line()));
        return new Needs(missing, unverified, current);
    }
}
