package dev.provision.modules.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitModuleTest {
    private static final String A = "a".repeat(40);
    private static final String B = "b".repeat(40);
    private static final String C = "c".repeat(40);
    /** git ls-remote REPO v1.2 refs/tags/v1.2^{} of an annotated tag (the tag object, then the commit it points at). */
    private static final String ANNOTATED = C + "\trefs/tags/v1.2\n" + B + "\trefs/tags/v1.2^{}\n";
    private final GitModule module = new GitModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Object... args) throws Exception {
        return module.plan(module.params().validate(Args.of(args)), new FakeContext(host, controller));
    }

    @Test
    void aTagIsItsPeeledCommitABranchItsHeadAndHeadTheRemotesDefault() {
        assertEquals(Optional.of(new GitModule.Target(B, "v1.2", false)), GitModule.target(ANNOTATED, "v1.2"));
        assertEquals(Optional.of(new GitModule.Target(A, "main", true)), GitModule.target(A + "\trefs/heads/main\n", "main"));
        assertEquals(Optional.of(new GitModule.Target(A, "HEAD", false)), GitModule.target(A + "\tHEAD\n", "HEAD"));
        assertEquals(Optional.empty(), GitModule.target("", "nope"));
    }

    @Test
    void aFreshDestIsClonedBesideItAndRenamedIntoPlace() throws Exception {
        FakeHost host = new FakeHost().probe(0, ANNOTATED, "", "git", "ls-remote", "--", "https://git.example/x.git", "v1.2", "refs/tags/v1.2^{}");
        Plan plan = plan(host, "repo", "https://git.example/x.git", "dest", "/opt/x", "version", "v1.2");
        assertEquals("clone https://git.example/x.git into /opt/x at " + B + " (v1.2)", plan.changes().get(0).summary());
        String script = plan.changes().get(0).commands().get(0).toString();
        assertTrue(script.contains("git clone -q --origin origin --branch v1.2 -- https://git.example/x.git /opt/x.provision-clone"), script);
        assertTrue(script.contains("mv -T /opt/x.provision-clone /opt/x"), script);
    }

    @Test
    void aCheckoutAtTheWantedCommitIsConverged() throws Exception {
        FakeHost host = checkout(A, "https://git.example/x.git").probe(0, A + "\trefs/heads/main\n", "", "git", "ls-remote", "--",
                "https://git.example/x.git", "main", "refs/tags/main^{}");
        Plan plan = plan(host, "repo", "https://git.example/x.git", "dest", "/opt/x", "version", "main");
        assertTrue(plan.isEmpty());
        assertEquals("/opt/x is at " + A + " (main)", plan.reason());
    }

    @Test
    void aCheckoutBehindMovesUnlessItHasLocalModifications() throws Exception {
        FakeHost behind = checkout(A, "https://git.example/x.git").probe(0, B + "\trefs/heads/main\n", "", "git", "ls-remote", "--",
                "https://git.example/x.git", "main", "refs/tags/main^{}");
        Plan plan = plan(behind, "repo", "https://git.example/x.git", "dest", "/opt/x", "version", "main");
        assertEquals("move /opt/x from " + A + " to " + B + " (main)", plan.changes().get(0).summary());
        behind.probe(0, " M setup.py\n", "", "git", "-C", "/opt/x", "status", "--porcelain", "--untracked-files=no");
        ModuleException e = assertThrows(ModuleException.class, () -> plan(behind, "repo", "https://git.example/x.git", "dest", "/opt/x", "version", "main"));
        assertTrue(e.getMessage().contains("local modifications"), e.getMessage());
        assertEquals(List.of("git", "-C", "/opt/x", "checkout", "-q", "--force", "-B", "main", B),
                ((dev.provision.modules.spi.Command.Exec) plan(behind, "repo", "https://git.example/x.git", "dest", "/opt/x", "version", "main",
                        "force", true).changes().get(0).commands().get(1)).argv());
    }

    @Test
    void aTokenInTheUrlIsNeverShown() throws Exception {
        String repo = "https://deploy:s3cr3t@git.example/x.git";
        FakeHost host = new FakeHost().probe(0, A + "\tHEAD\n", "", "git", "ls-remote", "--", repo, "HEAD", "refs/tags/HEAD^{}");
        Plan plan = plan(host, "repo", repo, "dest", "/opt/x");
        assertTrue(plan.changes().get(0).sensitive());
        assertEquals("clone https://***@git.example/x.git into /opt/x at " + A + " (HEAD)", plan.changes().get(0).summary());
    }

    @Test
    void acceptHostkeyIsRefusedAndOptionLikeValuesToo() {
        assertThrows(ParamException.class, () -> module.params().validate(Args.of("repo", "r", "dest", "/d", "accept_hostkey", true)));
        assertThrows(ModuleException.class, () -> plan(new FakeHost(), "repo", "--upload-pack=touch /tmp/x", "dest", "/opt/x"));
    }

    private static FakeHost checkout(String head, String url) {
        return new FakeHost().directory("/opt/x").directory("/opt/x/.git")
                .probe(0, head + "\n", "", "git", "-C", "/opt/x", "rev-parse", "HEAD")
                .probe(0, url + "\n", "", "git", "-C", "/opt/x", "config", "--get", "remote.origin.url")
                .probe(0, "", "", "git", "-C", "/opt/x", "status", "--porcelain", "--untracked-files=no");
    }
}
