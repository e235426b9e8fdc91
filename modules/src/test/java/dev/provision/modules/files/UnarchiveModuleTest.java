package dev.provision.modules.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * unarchive against real archives made by GNU tar 1.34 and Info-ZIP (test resources
 * {@code archives/}): {@code app/} holding {@code README} (6 bytes), {@code bin/run} (18 bytes,
 * 0755), {@code link -> README} and a file whose name is 124 characters long (a GNU long name in
 * the .tar.gz, a pax record in the .tar). Info-ZIP stored the link as a file of the target's content.
 */
class UnarchiveModuleTest {
    static final String LONG = "app/" + "l".repeat(120) + ".txt";
    static final List<String> MEMBERS = List.of("app", "app/README", "app/bin", "app/bin/run", "app/link", LONG);

    private final UnarchiveModule module = new UnarchiveModule();
    @TempDir
    Path controller;

    /** /srv with app/ extracted as tar would extract it. */
    static FakeHost extracted() {
        return new FakeHost().directory("/srv").directory("/srv/app").file("/srv/app/README", "hello\n")
                .directory("/srv/app/bin").file("/srv/app/bin/run", "#!/bin/sh\necho hi\n", "0755", "root", "root")
                .link("/srv/app/link", "README").file("/srv/" + LONG, "long\n");
    }

    @Test
    void readsTheMembersOfRealArchivesHere() throws Exception {
        for (String name : List.of("app.tar.gz", "app-pax.tar", "app.zip")) {
            List<ArchiveMembers.Member> members = ArchiveMembers.read(fixture(name), ArchiveMembers.Format.of(name).orElseThrow());
            assertEquals(MEMBERS, ArchiveMembers.paths(members).stream().sorted().toList(), name);
            assertEquals(18, members.stream().filter(m -> m.path().equals("app/bin/run")).findFirst().orElseThrow().size(), name);
        }
    }

    @Test
    void aControllerArchiveIsPutInTmpExtractedAndRemoved() throws Exception {
        byte[] tgz = bytes("app.tar.gz");
        FakeContext context = context(new FakeHost().directory("/srv")).controllerFile("app.tar.gz", tgz);
        Plan plan = module.plan(module.params().validate(Args.of("src", "app.tar.gz", "dest", "/srv/")), context);
        String tmp = "/tmp/.provision-unarchive-" + Sha256.hex(tgz).substring(0, 16) + ".tar.gz";
        Command.PutFile put = (Command.PutFile) plan.changes().getFirst().commands().getFirst();
        assertEquals(tmp, put.path());
        assertTrue(java.util.Arrays.equals(tgz, put.content()));
        assertEquals(java.util.Optional.of("0600"), put.attributes().mode());
        assertEquals(List.of("sh", "-c", "tmp=$1; shift; \"$@\"; rc=$?; rm -f -- \"$tmp\"; exit $rc", "unarchive", tmp,
                "tar", "-x", "-z", "-f", tmp, "-C", "/srv"), ((Command.Exec) plan.changes().getFirst().commands().get(1)).argv());
        assertEquals("extract app.tar.gz into /srv (6 of 6 members missing or different)", plan.changes().getFirst().summary());
    }

    @Test
    void convergedWhenEveryMemberIsThereWithItsKindAndSize() throws Exception {
        for (String name : List.of("app.tar.gz", "app-pax.tar")) {
            Plan plan = plan(extracted(), name, Args.of("src", name, "dest", "/srv"));
            assertTrue(plan.isEmpty(), name);
            assertEquals("/srv holds the 6 members of " + name, plan.reason());
        }
    }

    @Test
    void aZipsStoredLinkCountsAsTheFileUnzipMakes() throws Exception {
        FakeHost host = extracted();
        assertTrue(plan(host, "app.zip", Args.of("src", "app.zip", "dest", "/srv")).isEmpty());
    }

    @Test
    void aMissingOrResizedMemberIsAChangeThatNamesIt() throws Exception {
        FakeHost host = extracted().file("/srv/app/README", "hello, longer\n");
        Plan plan = plan(host, "app.tar.gz", Args.of("src", "app.tar.gz", "dest", "/srv"));
        assertEquals("extract app.tar.gz into /srv (1 of 6 members missing or different)", plan.changes().getFirst().summary());
        assertEquals("/srv/app/README\n", plan.changes().getFirst().diffs().getFirst().after());
    }

    @Test
    void attributesAreAppliedToWhatTheArchivePutsInDestAndCompared() throws Exception {
        Map<String, Object> args = Args.of("src", "app.tar.gz", "dest", "/srv", "owner", "app", "mode", "u+rwX,go-w");
        Plan plan = plan(extracted(), "app.tar.gz", args);
        List<String> lines = Expect.describe(plan);
        assertEquals(List.of("exec [chown, -R, --, app, /srv/app]", "exec [chmod, -R, --, u+rwX,go-w, /srv/app]"),
                lines.subList(2, 4));
        FakeHost owned = new FakeHost().directory("/srv").directory("/srv/app", "0755", "app", "root")
                .file("/srv/app/README", "hello\n", "0644", "app", "root")
                .directory("/srv/app/bin", "0755", "app", "root").file("/srv/app/bin/run", "#!/bin/sh\necho hi\n", "0755", "app", "root")
                .link("/srv/app/link", "README").file("/srv/" + LONG, "long\n", "0644", "app", "root");
        assertTrue(plan(owned, "app.tar.gz", args).changes().getFirst().summary().contains("1 of 6"), "the link's owner is root");
    }

    @Test
    void remoteSrcIsListedOnTheHostAndExtractedWithoutACopy() throws Exception {
        FakeHost host = new FakeHost().directory("/srv").file("/var/tmp/app.tar.xz", "xz")
                .probe(0, "app/\napp/README\n", "", "tar", "-t", "-J", "-f", "/var/tmp/app.tar.xz");
        Plan plan = module.plan(module.params().validate(Args.of("src", "/var/tmp/app.tar.xz", "dest", "/srv", "remote_src", true,
                "extra_opts", List.of("--strip-components=0"), "list_files", true)), context(host));
        assertEquals(List.of("exec [tar, -x, -J, -f, /var/tmp/app.tar.xz, -C, /srv, --strip-components=0]"), Expect.describe(plan));
        assertEquals(Map.of("files", List.of("app", "app/README")), plan.result());
        host.directory("/srv/app").file("/srv/app/README", "x");
        assertTrue(module.plan(module.params().validate(Args.of("src", "/var/tmp/app.tar.xz", "dest", "/srv", "remote_src", true)),
                context(host)).isEmpty());
    }

    @Test
    void aRemoteZipIsListedWithUnzipAndExtractedWithIt() throws Exception {
        FakeHost host = new FakeHost().directory("/srv").file("/var/tmp/a.zip", "zip")
                .probe(0, "a/\na/b\n", "", "unzip", "-Z1", "/var/tmp/a.zip");
        Plan plan = module.plan(module.params().validate(Args.of("src", "/var/tmp/a.zip", "dest", "/srv", "remote_src", true,
                "extra_opts", List.of("-x", "a/c"))), context(host));
        assertEquals(List.of("exec [unzip, -o, /var/tmp/a.zip, -x, a/c, -d, /srv]"), Expect.describe(plan));
    }

    @Test
    void createsThatExistsIsConvergedWithoutReadingTheArchive() throws Exception {
        FakeHost host = new FakeHost().directory("/srv").file("/srv/app/.done", "");
        Plan plan = module.plan(module.params().validate(Args.of("src", "app.tar.bz2", "dest", "/srv", "creates", "/srv/app/.done")),
                context(host));
        assertEquals("/srv/app/.done exists (creates): app.tar.bz2 is not extracted again", plan.reason());
    }

    @Test
    void aControllerBzip2NeedsCreates() throws Exception {
        FakeContext context = context(new FakeHost().directory("/srv")).controllerFile("a.tar.bz2", "BZh");
        ModuleException e = assertThrows(ModuleException.class,
                () -> module.plan(module.params().validate(Args.of("src", "a.tar.bz2", "dest", "/srv")), context));
        assertTrue(e.getMessage().contains("give creates"), e.getMessage());
        Plan plan = module.plan(module.params().validate(Args.of("src", "a.tar.bz2", "dest", "/srv", "creates", "/srv/a")), context);
        List<String> argv = ((Command.Exec) plan.changes().getFirst().commands().get(1)).argv();
        assertEquals(List.of("tar", "-x", "-j", "-f"), argv.subList(5, 9));
    }

    @Test
    void refusals() {
        FakeHost host = new FakeHost().directory("/srv").file("/srv/f", "x");
        assertFails(host, Args.of("src", "app.rar", "dest", "/srv"), "cannot tell the format of app.rar");
        assertFails(host, Args.of("src", "app.tar.gz", "dest", "/nope"), "dest /nope must be an existing directory");
        assertFails(host, Args.of("src", "app.tar.gz", "dest", "/srv/f"), "dest /srv/f must be an existing directory (it is a file)");
        assertFails(host, Args.of("src", "https://example.com/a.tgz", "dest", "/srv"), "is a URL, which is not supported");
        assertFails(host, Args.of("src", "/a.tgz", "dest", "/srv", "copy", false), "Source '/a.tgz' does not exist on the host");
        assertFails(host, Args.of("src", "a.tgz", "dest", "/srv", "keep_newer", true), "parameter 'keep_newer' is not supported");
        assertFails(host, Args.of("src", "/none.tgz", "dest", "/srv", "remote_src", true), "Source '/none.tgz' does not exist");
        assertFails(host, Args.of("src", "missing.tgz", "dest", "/srv"), "could not find missing.tgz");
    }

    @Test
    void aMemberOutsideDestIsRefused() {
        FakeHost host = new FakeHost().directory("/srv").file("/var/a.tar", "x").probe(0, "../etc/passwd\n", "", "tar", "-t", "-f", "/var/a.tar");
        assertFails(host, Args.of("src", "/var/a.tar", "dest", "/srv", "remote_src", true), "points outside dest");
    }

    @Test
    void theDescriptionSaysWhatConvergedMeans() {
        assertTrue(module.description().contains("Converged means"));
        module.description().lines().forEach(l -> assertTrue(l.length() <= 100, l));
    }

    private void assertFails(FakeHost host, Map<String, Object> args, String part) {
        Exception e = assertThrows(Exception.class, () -> module.plan(module.params().validate(args), context(host)));
        assertTrue(e instanceof ModuleException || e instanceof ParamException, "unexpected " + e);
        assertTrue(e.getMessage().contains(part), "message was: " + e.getMessage());
    }

    private Plan plan(FakeHost host, String fixture, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), context(host).controllerFile(fixture, bytes(fixture)));
    }

    private FakeContext context(FakeHost host) {
        return new FakeContext(host, controller);
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = UnarchiveModuleTest.class.getResourceAsStream("archives/" + name)) {
            return in.readAllBytes();
        }
    }

    private Path fixture(String name) throws IOException {
        context(new FakeHost()).controllerFile(name, bytes(name));
        return controller.resolve(name);
    }
}
