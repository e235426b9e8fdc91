package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.RunTimeValue;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every row that plans is an action: each run makes a new temporary file, as in Ansible. */
class TempfileModuleTest {
    private final TempfileModule module = new TempfileModule();
    @TempDir
    Path controller;

    static Stream<Arguments> cases() {
        return Stream.of(
                row("a file in $TMPDIR or /tmp", new FakeHost(),
                        Args.of(), planned("exec [mktemp, --tmpdir, --, ansible.XXXXXXXX]")),
                row("a directory", new FakeHost(),
                        Args.of("state", "directory"), planned("exec [mktemp, -d, --tmpdir, --, ansible.XXXXXXXX]")),
                row("in a directory, with prefix and suffix", new FakeHost().directory("/var/tmp/build"),
                        Args.of("path", "/var/tmp/build", "prefix", "-x.", "suffix", ".conf"),
                        planned("exec [mktemp, --tmpdir=/var/tmp/build, --suffix=.conf, --, -x.XXXXXXXX]")),
                row("in a directory through a symlink", new FakeHost().directory("/srv/real").link("/srv/tmp", "real"),
                        Args.of("path", "/srv/tmp", "prefix", ""), planned("exec [mktemp, --tmpdir=/srv/tmp, --, XXXXXXXX]")),
                row("a missing directory fails at once", new FakeHost(),
                        Args.of("path", "/nope"), fails("path: directory /nope does not exist")),
                row("path is a file", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x"), fails("path: /etc/x is a file, not a directory")),
                row("relative path", new FakeHost(), Args.of("path", "tmp"), fails("path must be an absolute path")),
                row("a slash in the prefix", new FakeHost(),
                        Args.of("prefix", "a/b"), fails("prefix cannot hold a '/' ('a/b'); name the directory with path")),
                row("a slash in the suffix", new FakeHost(), Args.of("suffix", "/x"), fails("suffix cannot hold a '/'")),
                row("unknown state", new FakeHost(), Args.of("state", "link"), fails("state")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(host, controller), args, expect);
    }

    @Test
    void registersThePathThatMktempPrints() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of()), new FakeContext(new FakeHost(), controller));
        assertEquals(Map.of("path", RunTimeValue.LAST_STDOUT), plan.result());
    }

    @Test
    void changeNamesWhatItMakes() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("state", "directory", "path", "/var/tmp", "suffix", "build")),
                new FakeContext(new FakeHost().directory("/var/tmp"), controller));
        assertEquals("create temporary directory ansible.XXXXXXXXbuild in /var/tmp", plan.changes().get(0).summary());
        assertEquals(List.of(new Diff("/var/tmp/ansible.XXXXXXXXbuild", "state: absent\n", "state: directory\n")),
                plan.changes().get(0).diffs());
    }
}
