package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code image_consistency}, the per-host part: the training image is present and its digest is
 * read ({@code podman image inspect}, or {@code docker}); the comparison across nodes is the
 * engine's fleet step over {@code result.image_digest}. With {@code expected_digest} the host is
 * also checked on its own (it matches the manifest digest or the image id, with or without
 * {@code sha256:}).
 *
 * <p>Parameters: {@code image} (required), {@code expected_digest}, {@code runtime}
 * ({@code podman} default, or {@code docker}). Result: {@code image_digest} (the manifest digest,
 * else the id for a locally built image) and {@code image_id}.
 */
public final class ImageConsistencyCheckModule implements TaskModule, FleetCheck {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("image", Type.STRING)
            .optional("expected_digest", Type.STRING)
            .choice("runtime", "podman", "podman", "docker")
            .build();

    public ImageConsistencyCheckModule() {
    }

    @Override
    public String name() {
        return "image_consistency";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** podman has {@code .Digest}; docker only {@code .RepoDigests} ({@code name@sha256:...}). */
    static List<String> command(String runtime, String image) {
        String format = runtime.equals("docker") ? "{{.Id}} {{range .RepoDigests}}{{.}} {{end}}" : "{{.Id}} {{.Digest}}";
        return List.of(runtime, "image", "inspect", "--format", format, image);
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String image = Probes.plainName("image", params.string("image"));
        String runtime = params.string("runtime");
        CheckReport report = new CheckReport(name());
        Optional<String> expected = Probes.expectation(params, "expected_digest");
        ProbeResult r = context.host().probe(command(runtime, image).toArray(String[]::new));
        String[] words = r.stdout().strip().split("\\s+");
        if (!r.ok() || words[0].isEmpty()) {
            String why = r.exitCode() == Probes.NOT_FOUND ? runtime + " not installed: install it (cluster.yml's container runtime)"
                    : "image " + image + " not present: " + Probes.firstLine(r) + ": pull it (cluster.yml's image task)";
            return report.add(CheckResult.fail("image.digest", "none", expected.orElse("present"), why)).plan();
        }
        String id = words[0];
        String digest = words.length > 1 ? afterAt(words[1]) : id;
        report.measured("image_id", id).measured("image_digest", digest);
        report.add(expected
                .map(e -> CheckResult.of(same(e, digest) || same(e, id), "image.digest", digest, e,
                        "another build of " + image + ": pull the expected digest again (cluster.yml's image task)"))
                .orElse(CheckResult.pass("image.digest", digest, "-")));
        return report.plan();
    }

    private static String afterAt(String repoDigest) {
        int at = repoDigest.indexOf('@');
        return at >= 0 ? repoDigest.substring(at + 1) : repoDigest;
    }

    private static boolean same(String expected, String measured) {
        return strip(expected).equalsIgnoreCase(strip(measured));
    }

    private static String strip(String digest) {
        String d = digest.strip();
        return d.startsWith("sha256:") ? d.substring("sha256:".length()) : d;
    }

    /** The fleet step: one digest on every node; nodes that differ from the majority are named. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        return Fleet.sameEverywhere("image.same_digest", resultsByHost, r -> Fleet.text(r, "image_digest"));
    }
}
