package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class CopyModuleTest extends ModuleTableTest<CopyModule> {

    CopyModuleTest() {
        super(new CopyModule());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("new file from content", new FakeHost().directory("/etc"),
                        Args.of("dest", "/etc/motd", "content", "hi\n"), planned("put /etc/motd [- - -] \"hi\\n\"")),
                row("new file with attributes", new FakeHost().directory("/etc"),
                        Args.of("dest", "/etc/motd", "content", "hi\n", "mode", "0600", "owner", "root"),
                        planned("put /etc/motd [0600 root -] \"hi\\n\"")),
                row("same content", new FakeHost().file("/etc/motd", "hi\n"),
                        Args.of("dest", "/etc/motd", "content", "hi\n"), converged("/etc/motd already has the wanted content")),
                row("same content and attributes", new FakeHost().file("/etc/motd", "hi\n", "0600", "root", "adm"),
                        Args.of("dest", "/etc/motd", "content", "hi\n", "mode", "0600", "group", "adm"),
                        converged("/etc/motd already has the wanted content and mode 0600, group adm")),
                row("content differs keeps current attributes", new FakeHost().file("/etc/motd", "old\n", "0640", "root", "adm"),
                        Args.of("dest", "/etc/motd", "content", "new\n"), planned("put /etc/motd [0640 root adm] \"new\\n\"")),
                row("content and mode differ", new FakeHost().file("/etc/motd", "old\n", "0644", "root", "root"),
                        Args.of("dest", "/etc/motd", "content", "new\n", "mode", "0600"), planned("put /etc/motd [0600 root root] \"new\\n\"")),
                row("only the mode differs", new FakeHost().file("/etc/motd", "hi\n", "0644", "root", "root"),
                        Args.of("dest", "/etc/motd", "content", "hi\n", "mode", "0600"), planned("attrs /etc/motd [0600 - -]")),
                row("dest directory missing", new FakeHost(),
                        Args.of("dest", "/nope/motd", "content", "x"), fails("Destination directory /nope does not exist")),
                row("dest is a directory with content", new FakeHost().directory("/etc/motd"),
                        Args.of("dest", "/etc/motd", "content", "x"), fails("can not use content with a dir as dest")),
                row("dest ending in / with content", new FakeHost().directory("/etc"),
                        Args.of("dest", "/etc/", "content", "x"), fails("can not use content with a dir as dest")),
                row("content and src together", new FakeHost(),
                        Args.of("dest", "/etc/x", "content", "x", "src", "x"), fails("mutually exclusive: content, src")),
                row("neither content nor src", new FakeHost(),
                        Args.of("dest", "/etc/x"), fails("one of these parameters is required: content, src")),
                row("src missing on the controller", new FakeHost().directory("/etc"),
                        Args.of("dest", "/etc/x", "src", "nothere.conf"), fails("could not find nothere.conf")),
                row("force=false leaves an existing file", new FakeHost().file("/etc/motd", "local\n"),
                        Args.of("dest", "/etc/motd", "content", "ours\n", "force", "no"),
                        converged("/etc/motd exists (force=false: its content is left alone)")),
                row("force=false still creates", new FakeHost().directory("/etc"),
                        Args.of("dest", "/etc/motd", "content", "ours\n", "force", false), planned("put /etc/motd [- - -] \"ours\\n\"")),
                row("remote_src file to a new file", new FakeHost().file("/srv/s", "x", "0750", "root", "root").directory("/etc"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true), planned("cp /srv/s /etc/f [- - -]")),
                row("remote_src file with mode=preserve", new FakeHost().file("/srv/s", "x", "0750", "root", "root").directory("/etc"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true, "mode", "preserve"),
                        planned("cp /srv/s /etc/f [0750 - -]")),
                row("remote_src file of the same content", new FakeHost().file("/srv/s", "abc").file("/etc/f", "abc", "0600", "root", "root"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true), converged("/etc/f already has the content of /srv/s")),
                row("remote_src file of the same size, other content", new FakeHost().file("/srv/s", "abc").file("/etc/f", "xyz", "0600", "root", "adm"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true), planned("cp /srv/s /etc/f [0600 root adm]")),
                row("remote_src file, attributes only", new FakeHost().file("/srv/s", "abc").file("/etc/f", "abc"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true, "mode", "0640"), planned("attrs /etc/f [0640 - -]")),
                row("remote_src file into dest/ that is missing", new FakeHost().file("/srv/s", "x"),
                        Args.of("src", "/srv/s", "dest", "/opt/d/", "remote_src", true), planned("mkdir /opt/d [- - -]", "cp /srv/s /opt/d/s [- - -]")),
                row("remote_src file over a symlink", new FakeHost().file("/srv/s", "x").file("/etc/real", "y").link("/etc/f", "real"),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true), planned("remove /etc/f", "cp /srv/s /etc/f [- - -]")),
                row("remote_src missing src", new FakeHost(),
                        Args.of("src", "/srv/none", "dest", "/etc/f", "remote_src", true), fails("Source /srv/none not found")),
                row("remote_src relative src", new FakeHost(),
                        Args.of("src", "s", "dest", "/etc/f", "remote_src", true), fails("src must be an absolute path")),
                row("remote_src with backup", new FakeHost(),
                        Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true, "backup", true), fails("not supported with remote_src")),
                row("remote_src dir into an existing directory copies the directory", remoteTree().directory("/opt"),
                        Args.of("src", "/srv/s", "dest", "/opt", "remote_src", true),
                        planned("mkdir /opt/s [0755 - -]", "cp /srv/s/a /opt/s/a [0644 - -]", "link /opt/s/ln -> a",
                                "mkdir /opt/s/sub [0700 - -]", "cp /srv/s/sub/k /opt/s/sub/k [0600 - -]")),
                row("remote_src dir/ into an existing directory copies its contents", remoteTree().directory("/opt", "0711", "root", "root"),
                        Args.of("src", "/srv/s/", "dest", "/opt", "remote_src", true),
                        planned("cp /srv/s/a /opt/a [0644 - -]", "link /opt/ln -> a", "mkdir /opt/sub [0700 - -]",
                                "cp /srv/s/sub/k /opt/sub/k [0600 - -]")),
                row("remote_src dir to a missing dest makes dest/d", remoteTree(),
                        Args.of("src", "/srv/s", "dest", "/opt/new", "remote_src", true),
                        planned("mkdir /opt/new [- - -]", "mkdir /opt/new/s [- - -]", "cp /srv/s/a /opt/new/s/a [0644 - -]",
                                "link /opt/new/s/ln -> a", "mkdir /opt/new/s/sub [0700 - -]", "cp /srv/s/sub/k /opt/new/s/sub/k [0600 - -]")),
                row("remote_src dir/ merged: only what differs is written", remoteTree()
                                .file("/opt/a", "a", "0600", "root", "root").file("/opt/sub/k", "K", "0644", "app", "app").file("/opt/extra", "e")
                                .link("/opt/ln", "a"),
                        Args.of("src", "/srv/s/", "dest", "/opt", "remote_src", true), planned("cp /srv/s/sub/k /opt/sub/k [0600 app app]")),
                row("remote_src dir/ already copied", remoteTree().file("/opt/a", "a").file("/opt/sub/k", "k").link("/opt/ln", "a"),
                        Args.of("src", "/srv/s/", "dest", "/opt", "remote_src", true), converged("/opt already holds what /srv/s/ holds")),
                row("remote_src dir/ owner reaches everything below", remoteTree().file("/opt/a", "a").file("/opt/sub/k", "k")
                                .link("/opt/ln", "a").file("/opt/mine", "m"),
                        Args.of("src", "/srv/s/", "dest", "/opt", "remote_src", true, "owner", "app"),
                        planned("attrs /opt [- app -]", "attrs /opt/a [- app -]", "attrs /opt/ln [- app -]", "attrs /opt/mine [- app -]",
                                "attrs /opt/sub [- app -]", "attrs /opt/sub/k [- app -]")),
                row("remote_src dir into a file", remoteTree().file("/opt/s", "x"),
                        Args.of("src", "/srv/s", "dest", "/opt", "remote_src", true), fails("/opt/s exists and is not a directory")),
                row("mistyped parameter", new FakeHost(),
                        Args.of("dest", "/etc/x", "contnet", "x"), fails("unsupported parameter 'contnet' (did you mean 'content'?)")));
    }

    /** /srv/s (0755) holding a (0644), sub/ (0700) with k (0600), and a link ln -> a. */
    private static FakeHost remoteTree() {
        return new FakeHost().directory("/srv/s").file("/srv/s/a", "a", "0644", "root", "root")
                .directory("/srv/s/sub", "0700", "root", "root").file("/srv/s/sub/k", "k", "0600", "root", "root").link("/srv/s/ln", "a");
    }

    @Test
    void remoteSrcComparesByChecksumOnTheHostNotByReadingTheFiles() throws Exception {
        FakeHost host = new FakeHost().file("/srv/s", "abc").file("/etc/f", "abc");
        Plan plan = module.plan(module.params().validate(Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true)),
                new FakeContext(host, controller));
        assertTrue(plan.isEmpty());
        assertEquals(List.of(List.of("sha256sum", "-z", "--", "/srv/s", "/etc/f")), host.probesRun());
    }

    @Test
    void remoteSrcInADryRunComparesWhatAnEarlierTaskWouldWrite() throws Exception {
        FakeHost host = new FakeHost().file("/srv/s", "new").file("/etc/f", "old").pending("/srv/s");
        Plan plan = module.plan(module.params().validate(Args.of("src", "/srv/s", "dest", "/etc/f", "remote_src", true)),
                new FakeContext(host, controller));
        assertEquals(List.of("cp /srv/s /etc/f [0644 root root]"), Expect.describe(plan));
        assertEquals(List.of(List.of("sha256sum", "-z", "--", "/etc/f")), host.probesRun());
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void copiesAControllerFile() {
        FakeContext context = new FakeContext(new FakeHost().directory("/etc/app"), controller).controllerFile("app.conf", "k=v\n");
        Expect.check(module, context, Args.of("src", "app.conf", "dest", "/etc/app/app.conf"),
                planned("put /etc/app/app.conf [- - -] \"k=v\\n\""));
    }

    @Test
    void destEndingInSlashTakesTheBaseNameOfSrc() {
        FakeContext context = new FakeContext(new FakeHost().directory("/etc/app"), controller).controllerFile("conf/app.conf", "k=v\n");
        Expect.check(module, context, Args.of("src", "conf/app.conf", "dest", "/etc/app/"),
                planned("put /etc/app/app.conf [- - -] \"k=v\\n\""));
    }

    @Test
    void destNamingADirectoryTakesTheBaseNameOfSrc() {
        FakeContext context = new FakeContext(new FakeHost().directory("/etc/app"), controller).controllerFile("app.conf", "k=v\n");
        Expect.check(module, context, Args.of("src", "app.conf", "dest", "/etc/app"),
                planned("put /etc/app/app.conf [- - -] \"k=v\\n\""));
    }

    @Test
    void refusesToCopyADirectory() {
        FakeContext context = new FakeContext(new FakeHost().directory("/etc"), controller).controllerFile("dir/inner", "x");
        Expect.check(module, context, Args.of("src", "dir", "dest", "/etc/x"), fails("src dir is a directory"));
    }

    @Test
    void diffIsLabelledWithThePathAndShowsBothContents() throws Exception {
        FakeHost host = new FakeHost().file("/etc/motd", "old\n");
        Plan plan = module.plan(module.params().validate(Args.of("dest", "/etc/motd", "content", "new\n", "mode", "0600")),
                new FakeContext(host, controller));
        assertEquals(List.of(new Diff("/etc/motd", "old\n", "new\n"), new Diff("/etc/motd", "mode: 0644\n", "mode: 0600\n")),
                plan.changes().get(0).diffs());
        assertEquals("update /etc/motd", plan.changes().get(0).summary());
    }

    @Test
    void binaryContentIsSummarisedNotShown() throws Exception {
        FakeHost host = new FakeHost().bytes("/opt/blob", new byte[] {0, 1, 2}, "0644", "root", "root");
        FakeContext context = new FakeContext(host, controller).controllerFile("blob", new byte[] {(byte) 0xff, 0, 9, 9});
        Plan plan = module.plan(module.params().validate(Args.of("dest", "/opt/blob", "src", "blob")), context);
        assertEquals(List.of(new Diff("/opt/blob", "", "binary content differs (3 bytes -> 4 bytes)\n")), plan.changes().get(0).diffs());
    }
}
