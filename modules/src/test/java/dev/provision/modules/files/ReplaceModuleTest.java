package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Command;
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

/** Rows named {@code action: ...} replace again on every run (their regexp matches its own replacement). */
class ReplaceModuleTest extends ModuleTableTest<ReplaceModule> {
    private static final String HOSTS = "127.0.0.1 old.host.name x\n10.0.0.1 old.host.name\n";
    private static final String SECTIONS = "[a]\nk=1\n[b]\nk=1\n[c]\nk=1\n";

    ReplaceModuleTest() {
        super(new ReplaceModule());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("every match replaced, groups by number", new FakeHost().file("/etc/hosts", HOSTS),
                        Args.of("path", "/etc/hosts", "regexp", "(\\s+)old\\.host\\.name(\\s+.*)?$", "replace", "\\1new.host.name\\2"),
                        planned("put /etc/hosts [0644 root root] \"127.0.0.1 new.host.name x\\n10.0.0.1 new.host.name\\n\"")),
                row("action: \\g<1> and \\g<name>", new FakeHost().file("/etc/ssh/sshd_config", "ListenAddress  10.0.0.1\nPort 22\n"),
                        Args.of("dest", "/etc/ssh/sshd_config", "regexp", "^(?P<key>ListenAddress[ ]+)(?P<host>[^\\n]+)$",
                                "replace", "\\g<1>0.0.0.0 # was \\g<host>"),
                        planned("put /etc/ssh/sshd_config [0644 root root] \"ListenAddress  0.0.0.0 # was 10.0.0.1\\nPort 22\\n\"")),
                row("a dollar sign is a plain dollar, never a group", new FakeHost().file("/etc/profile.d/p.sh", "PATH=/bin\n"),
                        Args.of("path", "/etc/profile.d/p.sh", "regexp", "^PATH=.*$", "replace", "PATH=$HOME/bin:$1:${PATH}"),
                        planned("put /etc/profile.d/p.sh [0644 root root] \"PATH=$HOME/bin:$1:${PATH}\\n\"")),
                row("matches removed when replace is empty", new FakeHost().file("/etc/x", "#a\nx\n#b\n"),
                        Args.of("path", "/etc/x", "regexp", "^#.*\\n"), planned("put /etc/x [0644 root root] \"x\\n\"")),
                row("regexp matches nothing", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "^b"), converged("regexp matched nothing in /etc/x")),
                row("replacing gives the same text", new FakeHost().file("/etc/x", "a\na\n"),
                        Args.of("path", "/etc/x", "regexp", "^a$", "replace", "a"),
                        converged("/etc/x already reads as replaced (2 matches give the same text)")),
                row("$ does not match before \\r, as in Python", new FakeHost().file("/etc/x", "k=1\r\n"),
                        Args.of("path", "/etc/x", "regexp", "^k=1$", "replace", "k=2"), converged("regexp matched nothing in /etc/x")),
                row("after: only the text after its first match", new FakeHost().file("/etc/x", SECTIONS),
                        Args.of("path", "/etc/x", "after", "\\[b\\]", "regexp", "^k=1$", "replace", "k=2"),
                        planned("put /etc/x [0644 root root] \"[a]\\nk=1\\n[b]\\nk=2\\n[c]\\nk=2\\n\"")),
                row("before: only the text before its match", new FakeHost().file("/etc/x", SECTIONS),
                        Args.of("path", "/etc/x", "before", "\\[b\\]", "regexp", "^k=1$", "replace", "k=2"),
                        planned("put /etc/x [0644 root root] \"[a]\\nk=2\\n[b]\\nk=1\\n[c]\\nk=1\\n\"")),
                row("after and before: the text between", new FakeHost().file("/etc/x", SECTIONS),
                        Args.of("path", "/etc/x", "after", "\\[b\\]", "before", "\\[c\\]", "regexp", "^k=1$", "replace", "k=2"),
                        planned("put /etc/x [0644 root root] \"[a]\\nk=1\\n[b]\\nk=2\\n[c]\\nk=1\\n\"")),
                row("after is not multi-line: ^ is the start of the file", new FakeHost().file("/etc/x", SECTIONS),
                        Args.of("path", "/etc/x", "after", "^\\[b\\]", "regexp", "^k=1$", "replace", "k=2"),
                        converged("after/before matched nothing in /etc/x: nothing to replace")),
                row("after with (?m): ^ at every line", new FakeHost().file("/etc/x", SECTIONS),
                        Args.of("path", "/etc/x", "after", "(?m)^\\[c\\]$", "regexp", "^k=1$", "replace", "k=2"),
                        planned("put /etc/x [0644 root root] \"[a]\\nk=1\\n[b]\\nk=1\\n[c]\\nk=2\\n\"")),
                row("after matching nothing still sets the mode", new FakeHost().file("/etc/x", "a\n", "0600", "root", "root"),
                        Args.of("path", "/etc/x", "after", "zzz", "regexp", "a", "replace", "b", "mode", "0644"),
                        planned("attrs /etc/x [0644 - -]")),
                row("only attributes change", new FakeHost().file("/etc/x", "a\n", "0600", "root", "root"),
                        Args.of("path", "/etc/x", "regexp", "b", "mode", "0640"), planned("attrs /etc/x [0640 - -]")),
                row("content and mode", new FakeHost().file("/etc/x", "a\n", "0600", "root", "root"),
                        Args.of("path", "/etc/x", "regexp", "a", "replace", "b", "mode", "0640"), planned("put /etc/x [0640 root root] \"b\\n\"")),
                row("a symlink is followed: the target is written", new FakeHost().file("/etc/real", "a\n").link("/etc/x", "real"),
                        Args.of("path", "/etc/x", "regexp", "a", "replace", "b"), planned("put /etc/real [0644 root root] \"b\\n\"")),
                row("action: ^ also matches at the end of a text ending in a newline, as in Python", new FakeHost().file("/etc/x", "a\nb\n"),
                        Args.of("path", "/etc/x", "regexp", "^", "replace", "# "), planned("put /etc/x [0644 root root] \"# a\\n# b\\n# \"")),
                row("action: \\Z is the very end of the file", new FakeHost().file("/etc/x", "a\n\n"),
                        Args.of("path", "/etc/x", "regexp", "\\n\\Z"), planned("put /etc/x [0644 root root] \"a\\n\"")),
                row("action: empty matches, as Python 3.7", new FakeHost().file("/etc/x", "abxd"),
                        Args.of("path", "/etc/x", "regexp", "x*", "replace", "-"), planned("put /etc/x [0644 root root] \"-a-b--d-\"")),
                row("escapes and octal in the template", new FakeHost().file("/etc/x", "a"),
                        Args.of("path", "/etc/x", "regexp", "a", "replace", "\\101\\t\\\\\\-"), planned("put /etc/x [0644 root root] \"A\t\\\\-\"")),
                row("missing file fails, as in Ansible", new FakeHost().directory("/etc"),
                        Args.of("path", "/etc/x", "regexp", "a"), fails("Path /etc/x does not exist !")),
                row("path is a directory", new FakeHost().directory("/etc/x"),
                        Args.of("path", "/etc/x", "regexp", "a"), fails("/etc/x is a directory")),
                row("relative path", new FakeHost(), Args.of("path", "etc/x", "regexp", "a"), fails("path must be an absolute path")),
                row("regexp is required", new FakeHost().file("/etc/x", "a\n"), Args.of("path", "/etc/x"), fails("regexp")),
                row("malformed regexp", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "("), fails("regexp: invalid regular expression '('")),
                row("malformed after", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "a", "after", "["), fails("after: invalid regular expression")),
                row("a group the regexp lacks fails even without a match, as in Python", new FakeHost().file("/etc/x", "x\n"),
                        Args.of("path", "/etc/x", "regexp", "(a)", "replace", "\\2"), fails("replace: no group '2'")),
                row("an unknown named group", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "(?P<k>a)", "replace", "\\g<v>"), fails("replace: no group 'v'")),
                row("a bad escape, as in Python", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "a", "replace", "\\q"), fails("replace: bad escape \\q")),
                row("encoding other than utf-8 refused", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "a", "encoding", "latin-1"), fails("encoding: only utf-8 is supported, got 'latin-1'")),
                row("encoding spelled UTF8", new FakeHost().file("/etc/x", "a\n"),
                        Args.of("path", "/etc/x", "regexp", "b", "encoding", "UTF8"), converged("regexp matched nothing in /etc/x")),
                row("binary file", new FakeHost().bytes("/etc/x", new byte[] {(byte) 0xc3, 0x28}, "0644", "root", "root"),
                        Args.of("path", "/etc/x", "regexp", "a"), fails("/etc/x is not UTF-8 text")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.plannedStates(cases());
    }

    @Test
    void changeSaysHowManyAndShowsTheFile() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("path", "/etc/hosts", "regexp", "old", "replace", "new")),
                new FakeContext(new FakeHost().file("/etc/hosts", HOSTS), controller));
        assertEquals("2 replacements made in /etc/hosts", plan.changes().get(0).summary());
        assertEquals(List.of(new Diff("/etc/hosts", HOSTS, HOSTS.replace("old", "new"))), plan.changes().get(0).diffs());
    }

    @Test
    void backupAndValidateRideOnTheWrite() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("path", "/etc/x", "regexp", "a", "replace", "b",
                "backup", true, "validate", "visudo -cf %s")), new FakeContext(new FakeHost().file("/etc/x", "a\n"), controller));
        Command.PutFile put = (Command.PutFile) plan.changes().get(0).commands().get(0);
        assertTrue(put.backup());
        assertEquals(List.of("visudo", "-cf", "%s"), put.validate());
    }
}
