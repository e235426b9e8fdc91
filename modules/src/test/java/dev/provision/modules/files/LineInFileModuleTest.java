package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class LineInFileModuleTest extends ModuleTableTest<LineInFileModule> {
    private static final String HOSTS = "127.0.0.1 localhost\n10.0.0.1 node1\n";

    LineInFileModuleTest() {
        super(new LineInFileModule());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("line already present", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "line", "10.0.0.1 node1"), converged("line already present in /etc/hosts")),
                row("line added", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "line", "10.0.0.2 node2"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n10.0.0.1 node1\\n10.0.0.2 node2\\n\"")),
                row("line added after a match", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("dest", "/etc/hosts", "line", "::1 localhost", "insertafter", "^127\\."),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n::1 localhost\\n10.0.0.1 node1\\n\"")),
                row("line replaced by regexp", new FakeHost().file("/etc/ssh/sshd_config", "Port 22\nX yes\n"),
                        Args.of("path", "/etc/ssh/sshd_config", "regexp", "^#?Port ", "line", "Port 2222"),
                        planned("put /etc/ssh/sshd_config [0644 root root] \"Port 2222\\nX yes\\n\"")),
                row("regexp finds the line already right", new FakeHost().file("/etc/ssh/sshd_config", "Port 2222\n"),
                        Args.of("path", "/etc/ssh/sshd_config", "regexp", "^#?Port ", "line", "Port 2222"),
                        converged("line already present in /etc/ssh/sshd_config")),
                row("backrefs rewrite", new FakeHost().file("/etc/selinux/config", "SELINUX=enforcing\n"),
                        Args.of("path", "/etc/selinux/config", "regexp", "^(SELINUX)=.*", "line", "\\1=permissive", "backrefs", "yes"),
                        planned("put /etc/selinux/config [0644 root root] \"SELINUX=permissive\\n\"")),
                row("backrefs without match", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "^b(.*)", "line", "\\1", "backrefs", true),
                        converged("regexp matched no line (backrefs: nothing to insert) in /etc/x")),
                row("absent removes lines", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "regexp", "node1$", "state", "absent"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 localhost\\n\"")),
                row("absent with nothing to remove", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "line", "10.9.9.9 gone", "state", "absent"), converged("no matching line in /etc/hosts")),
                row("absent on a missing file", new FakeHost(),
                        Args.of("path", "/etc/x", "line", "a", "state", "absent"), converged("/etc/x does not exist; no line to remove")),
                row("missing file without create", new FakeHost().directory("/etc"),
                        Args.of("path", "/etc/x", "line", "a"), fails("/etc/x does not exist; set create=true to create it")),
                row("missing file with create", new FakeHost().directory("/etc"),
                        Args.of("path", "/etc/x", "line", "a", "create", "yes", "mode", "0600"), planned("put /etc/x [0600 - -] \"a\\n\"")),
                row("create in a missing directory makes it, as Ansible does", new FakeHost(),
                        Args.of("path", "/etc/x", "line", "a", "create", true), planned("mkdir /etc [- - -]", "put /etc/x [- - -] \"a\\n\"")),
                row("a symlink is followed: the target is written", new FakeHost().file("/etc/real", "a\n").link("/etc/x", "real"),
                        Args.of("path", "/etc/x", "line", "b"), planned("put /etc/real [0644 root root] \"a\\nb\\n\"")),
                row("search_string replaces the line containing it", new FakeHost().file("/etc/x", "#Port 22\nx\n"),
                        Args.of("path", "/etc/x", "search_string", "Port 22", "line", "Port 2222"), planned("put /etc/x [0644 root root] \"Port 2222\\nx\\n\"")),
                row("search_string and regexp exclude each other", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "search_string", "a", "regexp", "a", "line", "b"), fails("mutually exclusive")),
                row("only attributes change", new FakeHost().file("/etc/hosts", HOSTS, "0600", "root", "root"),
                        Args.of("path", "/etc/hosts", "line", "10.0.0.1 node1", "mode", "0644"), planned("attrs /etc/hosts [0644 - -]")),
                row("present without line", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "regexp", "a"), fails("line is required with state=present")),
                row("absent without regexp or line", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "state", "absent"), fails("one of line, search_string, or regexp is required")),
                row("backrefs without regexp", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "line", "a", "backrefs", true), fails("regexp is required with backrefs=true")),
                row("malformed regexp", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "regexp", "(", "line", "a"), fails("regexp: invalid regular expression '('")),
                row("insertafter and insertbefore", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "line", "a", "insertafter", "x", "insertbefore", "y"),
                        fails("mutually exclusive: insertafter, insertbefore")),
                row("binary file", new FakeHost().bytes("/etc/x", new byte[] {(byte) 0xc3, 0x28}, "0644", "root", "root"),
                        Args.of("path", "/etc/x", "line", "a"), fails("/etc/x is not UTF-8 text")),
                row("path is a directory", new FakeHost().directory("/etc/x"),
                        Args.of("path", "/etc/x", "line", "a"), fails("/etc/x is a directory")),
                row("create given a non-boolean", new FakeHost(),
                        Args.of("path", "/etc/x", "line", "a", "create", "maybe"), fails("parameter 'create' must be a boolean")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void changeSaysWhatHappenedAndShowsTheFile() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("path", "/etc/hosts", "line", "10.0.0.2 node2")),
                new FakeContext(new FakeHost().file("/etc/hosts", HOSTS), controller));
        assertEquals("line added in /etc/hosts", plan.changes().get(0).summary());
        assertEquals(List.of(new Diff("/etc/hosts", HOSTS, HOSTS + "10.0.0.2 node2\n")), plan.changes().get(0).diffs());
    }
}
