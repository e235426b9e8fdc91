package dev.provision.modules.stage;

import java.util.List;
import java.util.Optional;

/**
 * What a node holds of a data set that {@code stage} verified there, as the readiness check
 * {@code dataset} reads it: the node's record (the manifest it verified last, whose SHA-256 is the
 * set's root hash) and the files under the destination now. The format of both belongs to staging;
 * this is its one public reading.
 *
 * @param files files the record lists
 * @param bytes their total size
 * @param rootHash the record's SHA-256; empty where the node has no record
 * @param changed files of the record that are gone, or whose size, mode or mtime is no longer what
 *                was verified (first ones only; {@code changedCount} counts them all)
 * @param stray files under the destination that the record does not list (first ones only;
 *              {@code strayCount} counts them all): a job that reads the directory reads them too
 */
public record StagedSet(long files, long bytes, Optional<String> rootHash, List<String> changed, int changedCount,
                        List<String> stray, int strayCount) {
    /** How many changed files a result names. */
    static final int NAMED = 5;

    public StagedSet {
        changed = List.copyOf(changed);
        stray = List.copyOf(stray);
    }

    /** The read-only command that reads it (the same survey {@code stage} plans from). */
    public static List<String> command(String dest) {
        return StageModule.surveyArgv(dest);
    }

    /** Reads what {@link #command} printed; refuses output of another shape. */
    public static StagedSet parse(String output) {
        NodeHoldings holdings = NodeHoldings.parse(output);
        StringBuilder record = new StringBuilder();
        output.lines().filter(l -> l.startsWith("verified\t")).forEach(l -> record.append(l, "verified\t".length(), l.length()).append('\n'));
        if (record.isEmpty()) {
            return new StagedSet(0, 0, Optional.empty(), List.of(), 0, List.of(), 0);
        }
        Manifest verified = Manifest.parse(record.toString());
        if (!verified.complete()) {
            throw new IllegalArgumentException("the record lists files without a hash: not one staging wrote");
        }
        List<Manifest.Entry> gone = holdings.needs(verified).missing();
        List<String> stray = holdings.notIn(verified);
        return new StagedSet(verified.entries().size(), verified.totalBytes(), Optional.of(verified.rootHash()),
                gone.stream().limit(NAMED).map(Manifest.Entry::path).toList(), gone.size(),
                stray.stream().limit(NAMED).toList(), stray.size());
    }
}
