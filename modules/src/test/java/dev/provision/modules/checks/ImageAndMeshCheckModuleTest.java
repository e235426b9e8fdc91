package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageAndMeshCheckModuleTest {
    private static final String ID = "sha256:3f1a9c0d2b7e4f5a6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c";
    private static final String DIGEST = "sha256:9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d";
    @TempDir
    Path controller;

    private Plan image(FakeHost host, Map<String, Object> args) throws Exception {
        ImageConsistencyCheckModule module = new ImageConsistencyCheckModule();
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private Plan mesh(FakeHost host, Map<String, Object> args) throws Exception {
        SshMeshCheckModule module = new SshMeshCheckModule();
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    @Test
    void imageDigestGoesToTheResultAndMatchesTheExpectation() throws Exception {
        FakeHost host = new FakeHost().probe(ImageConsistencyCheckModule.command("podman", "registry.local/train:24.10"),
                new ProbeResult(0, ID + " " + DIGEST + "\n", ""));
        Plan plan = image(host, Args.of("image", "registry.local/train:24.10", "expected_digest", DIGEST.substring(7)));
        assertFalse(failed(plan), plan.reason());
        assertEquals(DIGEST, plan.result().get("image_digest"));
        assertEquals(ID, plan.result().get("image_id"));
    }

    @Test
    void otherDigestOrMissingImageFails() throws Exception {
        FakeHost other = new FakeHost().probe(ImageConsistencyCheckModule.command("docker", "train"),
                new ProbeResult(0, ID + " registry.local/train@" + ID.replace("3f1a", "0000") + " \n", ""));
        Plan plan = image(other, Args.of("image", "train", "runtime", "docker", "expected_digest", DIGEST));
        assertVerdict(plan, "image.digest", Verdict.FAIL);
        FakeHost missing = new FakeHost().probe(ImageConsistencyCheckModule.command("podman", "train"),
                new ProbeResult(125, "", "Error: train: image not known"));
        Plan none = image(missing, Args.of("image", "train"));
        assertDetail("image train not present: Error: train: image not known", row(none, "image.digest").get("detail"));
    }

    @Test
    void meshListsUnreachablePeers() throws Exception {
        List<String> peers = List.of("node01", "node02", "node03");
        FakeHost host = new FakeHost().probe(SshMeshCheckModule.command(5, 32, peers), new ProbeResult(0,
                "node02\t0\t\nnode01\t0\t\nnode03\t255\tHost key verification failed. \n", ""));
        Plan plan = mesh(host, Args.of("peers", peers));
        assertTrue(failed(plan));
        assertEquals("2/3", row(plan, "ssh_mesh.reachable").get("measured"));
        assertDetail("unreachable: node03 (Host key verification failed.)", row(plan, "ssh_mesh.reachable").get("detail"));
        assertEquals(List.of(Map.of("peer", "node03", "error", "Host key verification failed.")), plan.result().get("unreachable"));
    }

    @Test
    void peerThatLooksLikeAnOptionIsRefused() {
        assertThrows(ModuleException.class, () -> mesh(new FakeHost(), Args.of("peers", List.of("-oProxyCommand=x"))));
    }

    /** Runs the real probe script with a stand-in ssh on PATH: node02 refuses, the rest answer. */
    @Test
    void meshScriptReportsEveryPeerOnce(@TempDir Path bin) throws IOException, InterruptedException {
        Path ssh = bin.resolve("ssh");
        Files.writeString(ssh, "#!/bin/sh\nfor a; do host=$a; shift; [ \"$host\" = -- ] && break; done\n"
                + "[ \"$1\" = node02 ] && { echo 'Permission denied (publickey).' >&2; exit 255; }\nexit 0\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> argv = new ArrayList<>(SshMeshCheckModule.command(2, 4, List.of("node01", "node02", "node03")));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> lines = out.lines().sorted().toList();
        assertEquals(List.of("node01\t0\t", "node02\t255\tPermission denied (publickey).", "node03\t0\t"), lines);
    }
}
