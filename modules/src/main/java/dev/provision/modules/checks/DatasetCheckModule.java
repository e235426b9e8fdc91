package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.stage.StagedSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code dataset}: the data set that {@code stage} put in {@code dest} is still there as it was
 * verified (every file of the node's record, with the size, mode and mtime it had; read, not hashed
 * again), and, across the fleet, every node holds the same set (one root hash: the SHA-256 of the
 * manifest each node verified). With {@code expected_root_hash} each node is also checked against it
 * (the root hash {@code stage} reported). Files under {@code dest} that the set does not list
 * (the source dropped them, or someone put them there) are a warning: a job that reads the
 * directory reads them too. Result: {@code dataset_root}, {@code dataset_files}, {@code dataset_bytes}.
 */
public final class DatasetCheckModule implements TaskModule, FleetCheck {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("dest", Type.STRING)
            .optional("expected_root_hash", Type.STRING)
            .build();

    public DatasetCheckModule() {
    }

    @Override
    public String name() {
        return "dataset";
    }

    @Override
    public String description() {
        return """
                Checks that the data set stage verified in dest is still there as verified (every file of the
                node's record with its size, mode and mtime; read, not hashed again) and that every node holds
                the same set (one root hash, the SHA-256 of the manifest each node verified). expected_root_hash:
                the root hash stage reported, checked on each node too. Files under dest that the set does not
                list are a warning (stage's delete: true removes them).""";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String dest = params.string("dest");
        if (!dest.startsWith("/") || dest.contains("\n")) {
            throw new ModuleException("dest must be an absolute path on one line, not '" + dest + "'");
        }
        Optional<String> expected = Probes.expectation(params, "expected_root_hash");
        CheckReport report = new CheckReport(name());
        ProbeResult r = context.host().probe(StagedSet.command(dest).toArray(String[]::new));
        StagedSet set;
        try {
            if (!r.ok()) {
                throw new IllegalArgumentException(Probes.firstLine(r));
            }
            set = StagedSet.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            return report.add(CheckResult.fail("dataset.verified", "unreadable", "a staged data set", "cannot read " + dest
                    + ": " + e.getMessage() + "; check the path and the disk")).plan();
        }
        if (set.rootHash().isEmpty()) {
            return report.add(CheckResult.fail("dataset.verified", "none", "a staged data set", "no data set staged in " + dest
                    + ": stage it (provision -i INV playbooks/stage.yml -e source=... -e dest=" + dest + ")")).plan();
        }
        String root = set.rootHash().get();
        report.measured("dataset_root", root).measured("dataset_files", set.files()).measured("dataset_bytes", set.bytes());
        String held = set.files() + " files, " + set.bytes() + " bytes";
        report.add(set.changedCount() == 0
                ? CheckResult.pass("dataset.verified", held, "as verified")
                : CheckResult.fail("dataset.verified", set.changedCount() + " of " + set.files() + " files changed or gone",
                        "as verified", "changed since staging: " + named(set.changed(), set.changedCount())
                                + "; stage again (it fetches only those files)"));
        expected.ifPresent(e -> report.add(CheckResult.of(e.strip().equalsIgnoreCase(root), "dataset.root_hash", root, e,
                "another data set (or another version of it) than the one expected: stage the expected one")));
        if (set.strayCount() > 0) {
            report.add(CheckResult.warn("dataset.no_stray_files", set.strayCount() + " files not in the set", "only the set's files",
                    "under " + dest + ": " + named(set.stray(), set.strayCount()) + "; a job that reads the directory reads them too: stage with delete: true"
                            + " (-e stage_delete=true) to remove them, or move them elsewhere"));
        }
        return report.plan();
    }

    /** The first files of {@code count}, with "..." where there are more. */
    private static String named(List<String> first, int count) {
        return String.join(", ", first) + (count > first.size() ? ", ..." : "");
    }

    /** The fleet step: one root hash on every node; nodes that hold another set are named. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        return Fleet.sameEverywhere("dataset.same_root", resultsByHost, r -> Fleet.text(r, "dataset_root"));
    }
}
