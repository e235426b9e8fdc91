package dev.provision.modules.cluster;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class ImageModuleTest extends ModuleTableTest<ImageModule> {
    private static final String IMAGE = "10.213.0.1:5000/train:latest";
    private static final String OLD = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    private static final String NEW = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

    ImageModuleTest() {
        super(new ImageModule());
    }

    private static String[] inspect(String engine) {
        return new String[] {engine, "image", "inspect", "--format", ImageModule.REPO_DIGESTS, IMAGE};
    }

    private static void stored(FakeHost host, String engine, String digest) {
        if (digest == null) {
            host.probe(engine.equals("podman") ? 125 : 1, "", engine.equals("podman")
                    ? "Error: " + IMAGE + ": image not known\n" : "Error: No such image: " + IMAGE + "\n", inspect(engine));
        } else {
            host.probe(0, "10.213.0.1:5000/train@" + digest + "\n", "", inspect(engine));
        }
    }

    /** A host with an engine, an image store, optionally skopeo, and a registry serving {@code registry}. */
    static FakeHost host(String engine, String local, boolean skopeo, String registry) {
        FakeHost host = new FakeHost();
        host.probe(0, "/usr/bin/" + engine + "\n", "", "sh", "-c", "command -v podman || command -v docker");
        host.probe(skopeo ? 0 : 1, skopeo ? "/usr/bin/skopeo\n" : "", "", "sh", "-c", "command -v skopeo");
        stored(host, engine, local);
        for (List<String> skopeoArgv : List.of(
                List.of("skopeo", "inspect", "--format", "{{.Digest}}", "docker://" + IMAGE),
                List.of("skopeo", "inspect", "--tls-verify=false", "--format", "{{.Digest}}", "docker://" + IMAGE))) {
            host.probe(skopeoArgv, new dev.provision.modules.spi.ProbeResult(0, registry + "\n", ""));
        }
        for (List<String> pull : List.of(List.of(engine, "pull", IMAGE), List.of(engine, "pull", "--tls-verify=false", IMAGE))) {
            host.onExec(pull, h -> stored(h, engine, registry));
        }
        host.onExec(List.of(engine, "rmi", IMAGE), h -> stored(h, engine, null));
        return host;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("present and stored", host("podman", OLD, false, OLD), Args.of("name", IMAGE),
                        converged(IMAGE + " is present (" + OLD + ")")),
                row("missing: podman pull", host("podman", null, false, NEW), Args.of("name", IMAGE),
                        planned("exec [podman, pull, " + IMAGE + "]")),
                row("missing: plain-HTTP registry", host("podman", null, false, NEW), Args.of("name", IMAGE, "tls_verify", false),
                        planned("exec [podman, pull, --tls-verify=false, " + IMAGE + "]")),
                row("missing: docker pull", host("docker", null, false, NEW), Args.of("name", IMAGE),
                        planned("exec [docker, pull, " + IMAGE + "]")),
                row("engine named explicitly", host("docker", null, false, NEW), Args.of("name", IMAGE, "engine", "docker", "tls_verify", false),
                        planned("exec [docker, pull, " + IMAGE + "]")),
                row("pull always: registry unchanged", host("podman", OLD, true, OLD), Args.of("name", IMAGE, "pull", "always"),
                        converged(IMAGE + " is up to date with the registry (" + OLD + ")")),
                row("pull always: registry moved on", host("podman", OLD, true, NEW), Args.of("name", IMAGE, "pull", "always", "tls_verify", "no"),
                        planned("exec [podman, pull, --tls-verify=false, " + IMAGE + "]")),
                row("absent removes", host("podman", OLD, false, OLD), Args.of("name", IMAGE, "state", "absent"),
                        planned("exec [podman, rmi, " + IMAGE + "]")),
                row("absent already", host("podman", null, false, OLD), Args.of("name", IMAGE, "state", "absent"),
                        converged(IMAGE + " is not in the podman image store")),
                row("no engine", new FakeHost().probe(1, "", "", "sh", "-c", "command -v podman || command -v docker"), Args.of("name", IMAGE),
                        fails("neither podman nor docker is installed on this host")),
                row("engine failure is not 'missing'", new FakeHost().probe(125, "", "Error: permission denied", inspect("podman")),
                        Args.of("name", IMAGE, "engine", "podman"), fails("podman image inspect failed (exit 125): Error: permission denied")),
                row("name that would be an option", new FakeHost(), Args.of("name", "--all"), fails("is not an image reference")),
                row("bad engine", new FakeHost(), Args.of("name", IMAGE, "engine", "enroot"), fails("must be one of: auto, podman, docker")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void convergedPlanCarriesTheDigestAsResultAndFact() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", IMAGE)), new FakeContext(host("podman", OLD, false, OLD), Path.of("/x")));
        assertEquals(Map.of("digest", OLD), plan.result());
        assertEquals(Map.of("image_digest", OLD), plan.facts());
    }

    @Test
    void aPullSetsNoFactButTheRegistryDigestWhenKnown() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", IMAGE, "pull", "always")),
                new FakeContext(host("podman", OLD, true, NEW), Path.of("/x")));
        assertEquals(Map.of("digest", NEW), plan.result());
        assertEquals(Map.of(), plan.facts());
        Plan missing = module.plan(module.params().validate(Args.of("name", IMAGE)), new FakeContext(host("podman", null, false, NEW), Path.of("/x")));
        assertEquals(Map.of(), missing.result());
    }

    @Test
    void pullAlwaysWithoutSkopeoPullsEveryRunAndSaysWhy() throws Exception {
        FakeHost host = host("podman", OLD, false, OLD);
        FakeContext context = new FakeContext(host, Path.of("/x"));
        Map<String, Object> args = Args.of("name", IMAGE, "pull", "always");
        Plan plan = module.plan(module.params().validate(args), context);
        assertEquals("pull " + IMAGE + " (pull=always and no skopeo on the host to compare digests first)", plan.changes().getFirst().summary());
        host.apply(plan);
        assertFalse(module.plan(module.params().validate(args), context).isEmpty());
    }

    @Test
    void dockerIgnoresTlsVerifyAndSaysSo() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", IMAGE, "tls_verify", false)),
                new FakeContext(host("docker", null, false, NEW), Path.of("/x")));
        assertTrue(plan.changes().getFirst().summary().endsWith("; docker's daemon configuration decides TLS (insecure-registries)"));
    }

    @Test
    void repositoryDropsTagAndDigestButKeepsTheRegistryPort() {
        assertEquals("10.213.0.1:5000/train", ImageModule.repository(IMAGE));
        assertEquals("10.213.0.1:5000/train", ImageModule.repository("10.213.0.1:5000/train@" + OLD));
        assertEquals("10.213.0.1:5000/train", ImageModule.repository("10.213.0.1:5000/train"));
    }
}
