package dev.provision.modules.cluster;

import dev.provision.modules.spi.Facts;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code image}: a container image in the local store of podman or docker, idempotent on the
 * digest.
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code name}, required: the reference, e.g. {@code 10.213.0.1:5000/train:latest}.
 *   <li>{@code state}: {@code present} (default) or {@code absent}.
 *   <li>{@code engine}: {@code auto} (default: podman when the host has it, else docker),
 *       {@code podman} or {@code docker}.
 *   <li>{@code tls_verify} (default true): false adds {@code --tls-verify=false} to podman and
 *       skopeo (a plain-HTTP local registry); docker takes that from its daemon configuration
 *       ({@code insecure-registries}), so there the plan only mentions it.
 *   <li>{@code pull}: {@code missing} (default: pull only when the image is not in the store) or
 *       {@code always} (compare with the registry: with skopeo on the host,
 *       {@code skopeo inspect docker://NAME} gives the registry's digest and a pull is planned only
 *       when no local digest of the image equals it; without skopeo every run pulls, and the plan
 *       says why).
 * </ul>
 *
 * <p>The local digests are the image's repo digests ({@code image inspect} of
 * {@code .RepoDigests}), which hold the digest the registry serves for the reference (for a
 * multi-architecture image both the list's and the instance's digest), so they compare with the
 * registry and across nodes. {@code result.digest} carries the digest when it is known at planning
 * time: the local one when nothing is to be pulled, the registry's (asked read-only with skopeo,
 * when the host has it) when a pull will fetch it; a dry run then forecasts the pulled image. The
 * fact {@code image_digest} is set only when the plan is empty, because a fact from a plan with
 * changes would describe the host before they are applied (and under --check, never). So compare
 * digests across nodes in a later read-only task (a second {@code image} task or a check), not from
 * the run that pulls.
 */
public final class ImageModule implements TaskModule {
    // A leading '-' would be read as an option by podman, docker and skopeo.
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@+-]*");
    /** The files that say where and how the engines keep their images. */
    private static final List<String> STORE_CONFIGURATION = List.of("/etc/containers/storage.conf", "/etc/docker/daemon.json");
    static final String REPO_DIGESTS = "{{range .RepoDigests}}{{println .}}{{end}}";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING)
            .choice("state", "present", "present", "absent")
            .choice("engine", "auto", "auto", "podman", "docker")
            .withDefault("tls_verify", Type.BOOL, true)
            .choice("pull", "missing", "missing", "always")
            .build();

    public ImageModule() {
    }

    @Override
    public String name() {
        return "image";
    }

    /** podman (or docker) initialises its store when first asked: never before the task that configures it. */
    @Override
    public boolean probesAhead() {
        return false;
    }

    @Override
    public boolean setsVariables() {
        return true;
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = params.string("name");
        if (!NAME.matcher(name).matches()) {
            throw new ModuleException("name '" + name + "' is not an image reference");
        }
        HostView host = context.host();
        String engine = engine(host, params.string("engine"));
        boolean tlsVerify = params.bool("tls_verify");
        Optional<List<String>> local = localDigests(host, engine, name);
        if (params.string("state").equals("absent")) {
            if (local.isEmpty()) {
                return Plan.converged(name + " is not in the " + engine + " image store");
            }
            return Plan.of(Change.withDiff("remove image " + name, new Diff("image " + name, "present\n", "absent\n"),
                    Command.Exec.of(engine, "rmi", name)));
        }
        Optional<String> localDigest = local.flatMap(d -> preferred(d, name));
        if (local.isPresent() && params.string("pull").equals("missing")) {
            return converged(name + " is present" + localDigest.map(d -> " (" + d + ")").orElse(""), localDigest);
        }
        Optional<String> remoteDigest = Optional.empty();
        String why = "not in the " + engine + " image store";
        boolean skopeo = Facts.program("skopeo").read(host).isPresent();
        if (skopeo) {
            // Read-only, also for a missing image: the plan names the digest the pull will fetch.
            remoteDigest = Optional.of(registryDigest(host, name, tlsVerify));
        }
        if (local.isPresent()) {
            if (skopeo) {
                String remote = remoteDigest.get();
                if (local.get().stream().anyMatch(d -> d.endsWith("@" + remote))) {
                    return converged(name + " is up to date with the registry (" + remoteDigest.get() + ")", remoteDigest);
                }
                why = "the registry has " + remoteDigest.get();
            } else {
                why = "pull=always and no skopeo on the host to compare digests first";
            }
        }
        List<String> argv = new ArrayList<>(List.of(engine, "pull"));
        String note = "";
        if (!tlsVerify) {
            if (engine.equals("podman")) {
                argv.add("--tls-verify=false");
            } else {
                note = "; docker's daemon configuration decides TLS (insecure-registries)";
            }
        }
        argv.add(name);
        Plan plan = Plan.of(new Change("pull " + name + " (" + why + ")" + note,
                List.of(new Diff("image " + name, localDigest.orElse(local.isPresent() ? "present" : "absent") + "\n",
                        remoteDigest.orElse("pulled") + "\n")),
                List.of(new Command.Exec(argv, new byte[0]))));
        if (remoteDigest.isEmpty()) {
            return plan;
        }
        String pulled = repository(name) + "@" + remoteDigest.get() + "\n";
        return plan.withResult(Map.of("digest", remoteDigest.get()))
                .withProbeAfterwards(inspect(engine, name), new ProbeResult(0, pulled, ""));
    }

    private static List<String> inspect(String engine, String name) {
        return List.of(engine, "image", "inspect", "--format", REPO_DIGESTS, name);
    }

    private static Plan converged(String reason, Optional<String> digest) {
        Plan plan = Plan.converged(reason);
        return digest.map(d -> plan.withResult(Map.of("digest", d)).withFacts(Map.of("image_digest", d))).orElse(plan);
    }

    private static String engine(HostView host, String wanted) throws ModuleException {
        if (!wanted.equals("auto")) {
            return wanted;
        }
        return Facts.firstProgram("podman", "docker").read(host).map(Facts::baseName)
                .orElseThrow(() -> new ModuleException("neither podman nor docker is installed on this host"));
    }

    /** The image's repo digests ({@code repo@sha256:...}), empty list for a local build; empty when absent. */
    private static Optional<List<String>> localDigests(HostView host, String engine, String name) throws ModuleException {
        if (STORE_CONFIGURATION.stream().anyMatch(host::changesPending)) {
            // A dry run, and an earlier task configures the image store anew: asking the engine now
            // would read (and initialise) the old store. The run finds the new one empty.
            Optional<ProbeResult> pulled = host.pendingAnswer(inspect(engine, name));
            return pulled.map(p -> p.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
        }
        ProbeResult probe = host.probe(inspect(engine, name).toArray(String[]::new));
        if (!probe.ok()) {
            String err = probe.stderr().toLowerCase(Locale.ROOT);
            if (err.contains("no such image") || err.contains("image not known") || err.contains("not found")) {
                return Optional.empty();
            }
            throw new ModuleException(engine + " image inspect failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
        }
        return Optional.of(probe.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
    }

    /** The digest of the reference's own repository when there are several ({@code repo@sha256:...}). */
    private static Optional<String> preferred(List<String> repoDigests, String name) {
        String repository = repository(name);
        return repoDigests.stream().filter(d -> d.startsWith(repository + "@")).findFirst()
                .or(() -> repoDigests.stream().findFirst())
                .map(d -> d.substring(d.indexOf('@') + 1));
    }

    /** {@code host:5000/train:latest} -> {@code host:5000/train}; a digest reference loses its digest. */
    static String repository(String name) {
        String withoutDigest = name.contains("@") ? name.substring(0, name.indexOf('@')) : name;
        int slash = withoutDigest.lastIndexOf('/');
        int colon = withoutDigest.lastIndexOf(':');
        return colon > slash ? withoutDigest.substring(0, colon) : withoutDigest;
    }

    private static String registryDigest(HostView host, String name, boolean tlsVerify) throws ModuleException {
        List<String> argv = new ArrayList<>(List.of("skopeo", "inspect"));
        if (!tlsVerify) {
            argv.add("--tls-verify=false");
        }
        argv.addAll(List.of("--format", "{{.Digest}}", "docker://" + name));
        ProbeResult probe = host.probe(argv.toArray(String[]::new));
        String digest = probe.stdout().strip();
        if (!probe.ok() || !digest.startsWith("sha256:")) {
            throw new ModuleException("cannot read the digest of " + name + " from its registry: " + probe.stderr().strip());
        }
        return digest;
    }
}
