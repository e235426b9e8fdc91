package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class BlockInFileModuleTest extends ModuleTableTest<BlockInFileModule> {
    private static final String HOSTS = "127.0.0.1 localhost\n";
    private static final String WITH_BLOCK = HOSTS + "# BEGIN ANSIBLE MANAGED BLOCK\n10.0.0.1 node1\n# END ANSIBLE MANAGED BLOCK\n";
    private static final String WITH_BLOCK_SHOWN = "127.0.0.1 localhost\\n# BEGIN ANSIBLE MANAGED BLOCK\\n10.0.0.1 node1\\n# END ANSIBLE MANAGED BLOCK\\n";

    BlockInFileModuleTest() {
        super(new BlockInFileModule());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("block inserted", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "block", "10.0.0.1 node1\n"),
                        planned("put /etc/hosts [0644 root root] \"" + WITH_BLOCK_SHOWN + "\"")),
                row("block already there", new FakeHost().file("/etc/hosts", WITH_BLOCK),
                        Args.of("path", "/etc/hosts", "block", "10.0.0.1 node1\n"), converged("/etc/hosts already has the managed block")),
                row("block updated in place", new FakeHost().file("/etc/hosts", WITH_BLOCK + "# admin line\n"),
                        Args.of("dest", "/etc/hosts", "content", "10.0.0.9 node9"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n# BEGIN ANSIBLE MANAGED BLOCK\\n10.0.0.9 node9\\n# END ANSIBLE MANAGED BLOCK\\n# admin line\\n\"")),
                row("block removed", new FakeHost().file("/etc/hosts", WITH_BLOCK),
                        Args.of("path", "/etc/hosts", "state", "absent"), planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n\"")),
                row("empty block removes", new FakeHost().file("/etc/hosts", WITH_BLOCK),
                        Args.of("path", "/etc/hosts", "block", ""), planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n\"")),
                row("nothing to remove", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "state", "absent"), converged("/etc/hosts has no managed block")),
                row("custom markers at BOF", new FakeHost().file("/etc/fstab", "UUID=1 / ext4\n"),
                        Args.of("path", "/etc/fstab", "block", "nfs:/home /home nfs", "marker", "## {mark} nfs", "marker_begin", "start",
                                "marker_end", "stop", "insertbefore", "BOF"),
                        planned("put /etc/fstab [0644 root root] \"## start nfs\\nnfs:/home /home nfs\\n## stop nfs\\nUUID=1 / ext4\\n\"")),
                row("missing file without create", new FakeHost().directory("/etc"),
                        Args.of("path", "/etc/x", "block", "a"), fails("/etc/x does not exist; set create=true to create it")),
                row("missing file with create", new FakeHost().directory("/etc"),
                        Args.of("path", "/etc/x", "block", "a", "create", "true"),
                        planned("put /etc/x [- - -] \"# BEGIN ANSIBLE MANAGED BLOCK\\na\\n# END ANSIBLE MANAGED BLOCK\\n\"")),
                row("absent on a missing file", new FakeHost(),
                        Args.of("path", "/etc/x", "state", "absent"), converged("/etc/x does not exist; no managed block to remove")),
                row("only attributes change", new FakeHost().file("/etc/hosts", WITH_BLOCK, "0644", "root", "root"),
                        Args.of("path", "/etc/hosts", "block", "10.0.0.1 node1", "mode", "0640"), planned("attrs /etc/hosts [0640 - -]")),
                row("marker without {mark}", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "block", "a", "marker", "# managed"), fails("must contain {mark}")),
                row("a block of provision's former default is taken over in place",
                        new FakeHost().file("/etc/hosts", HOSTS + "# BEGIN MANAGED BLOCK\n10.0.0.1 node1\n# END MANAGED BLOCK\n# admin line\n"),
                        Args.of("path", "/etc/hosts", "block", "10.0.0.1 node1"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n# BEGIN ANSIBLE MANAGED BLOCK\\n10.0.0.1 node1\\n# END ANSIBLE MANAGED BLOCK\\n# admin line\\n\"")),
                row("the former default is left alone when a marker is given",
                        new FakeHost().file("/etc/hosts", HOSTS + "# BEGIN MANAGED BLOCK\nx\n# END MANAGED BLOCK\n"),
                        Args.of("path", "/etc/hosts", "block", "y", "marker", "# {mark} MANAGED BLOCK"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n# BEGIN MANAGED BLOCK\\ny\\n# END MANAGED BLOCK\\n\"")),
                row("state=absent removes a block of the former default", new FakeHost().file("/etc/hosts", HOSTS + "# BEGIN MANAGED BLOCK\nx\n# END MANAGED BLOCK\n"),
                        Args.of("path", "/etc/hosts", "state", "absent"), planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n\"")),
                row("a symlink is followed: the target is written", new FakeHost().file("/etc/real", HOSTS).link("/etc/hosts", "real"),
                        Args.of("path", "/etc/hosts", "block", "x"),
                        planned("put /etc/real [0644 root root] \"127.0.0.1 localhost\\n# BEGIN ANSIBLE MANAGED BLOCK\\nx\\n# END ANSIBLE MANAGED BLOCK\\n\"")),
                row("create makes the missing directories", new FakeHost(),
                        Args.of("path", "/etc/new/x", "block", "a", "create", "true"),
                        planned("mkdir /etc/new [- - -]", "put /etc/new/x [- - -] \"# BEGIN ANSIBLE MANAGED BLOCK\\na\\n# END ANSIBLE MANAGED BLOCK\\n\"")),
                row("bad state", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "state", "gone"), fails("must be one of: present, absent")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void summarySaysInsertUpdateOrRemove() throws Exception {
        FakeContext fresh = new FakeContext(new FakeHost().file("/etc/hosts", HOSTS), controller);
        FakeContext managed = new FakeContext(new FakeHost().file("/etc/hosts", WITH_BLOCK), controller);
        assertEquals("insert managed block into /etc/hosts", summary(fresh, Args.of("path", "/etc/hosts", "block", "x")));
        assertEquals("update managed block in /etc/hosts", summary(managed, Args.of("path", "/etc/hosts", "block", "x")));
        assertEquals("remove managed block from /etc/hosts", summary(managed, Args.of("path", "/etc/hosts", "state", "absent")));
    }

    private String summary(FakeContext context, Map<String, Object> args) throws Exception {
        Plan plan = module.plan(module.params().validate(args), context);
        return plan.changes().get(0).summary();
    }
}
