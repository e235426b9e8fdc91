package dev.provision.modules.commands;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CommandModuleTest {
    private final CommandModule module = new CommandModule();
    @TempDir
    Path controller;

    static Stream<Arguments> cases() {
        return Stream.of(
                row("free-form string split into words", new FakeHost(),
                        Args.of("cmd", "ls -l '/my dir'"), planned("exec [ls, -l, /my dir]")),
                row("shell syntax stays literal", new FakeHost(),
                        Args.of("cmd", "echo $(reboot) ; rm -rf / > x"), planned("exec [echo, $(reboot), ;, rm, -rf, /, >, x]")),
                row("argv list", new FakeHost(),
                        Args.of("argv", List.of("useradd", "-m", "a b")), planned("exec [useradd, -m, a b]")),
                row("chdir through env", new FakeHost(),
                        Args.of("cmd", "make install", "chdir", "/usr/src/app"), planned("exec [env, -C, /usr/src/app, --, make, install]")),
                row("creates exists", new FakeHost().file("/etc/ssh/ssh_host_ed25519_key", "k"),
                        Args.of("cmd", "ssh-keygen -A", "creates", "/etc/ssh/ssh_host_ed25519_key"),
                        converged("skipped, since /etc/ssh/ssh_host_ed25519_key exists")),
                row("creates missing", new FakeHost(),
                        Args.of("cmd", "ssh-keygen -A", "creates", "/etc/ssh/ssh_host_ed25519_key"), planned("exec [ssh-keygen, -A]")),
                row("creates relative to chdir", new FakeHost().file("/srv/app/build/out", ""),
                        Args.of("cmd", "make", "chdir", "/srv/app", "creates", "build/out"), converged("skipped, since /srv/app/build/out exists")),
                row("removes missing", new FakeHost(),
                        Args.of("cmd", "rm /tmp/lock", "removes", "/tmp/lock"), converged("skipped, since /tmp/lock does not exist")),
                row("removes present", new FakeHost().file("/tmp/lock", ""),
                        Args.of("cmd", "rm /tmp/lock", "removes", "/tmp/lock"), planned("exec [rm, /tmp/lock]")),
                row("stdin gets a newline", new FakeHost(),
                        Args.of("cmd", "chpasswd", "stdin", "root:x"), planned("exec [chpasswd] stdin=\"root:x\\n\"")),
                row("stdin without newline", new FakeHost(),
                        Args.of("cmd", "cat", "stdin", "raw", "stdin_add_newline", "no"), planned("exec [cat] stdin=\"raw\"")),
                row("unterminated quote", new FakeHost(),
                        Args.of("cmd", "echo 'oops"), fails("cmd: unterminated single quote at column 6")),
                row("empty command", new FakeHost(),
                        Args.of("cmd", "   "), fails("no command given")),
                row("cmd and argv together", new FakeHost(),
                        Args.of("cmd", "ls", "argv", List.of("ls")), fails("mutually exclusive: argv, cmd")),
                row("neither cmd nor argv", new FakeHost(),
                        Args.of("chdir", "/tmp"), fails("one of these parameters is required: argv, cmd")),
                row("an empty item in argv", new FakeHost(),
                        Args.of("argv", Arrays.asList("echo", null)),
                        fails("item 2 of parameter 'argv' is empty (null); remove it, or write '' for an empty string")),
                row("mistyped parameter", new FakeHost(),
                        Args.of("cmd", "ls", "chdri", "/tmp"), fails("did you mean 'chdir'?")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(host, controller), args, expect);
    }

    @Test
    void summaryShowsTheCommandAsWritten() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("cmd", "systemctl daemon-reload", "chdir", "/")),
                new FakeContext(new FakeHost(), controller));
        assertEquals("run: systemctl daemon-reload (in /)", plan.changes().get(0).summary());
    }

    @Test
    void takesTheFreeFormString() {
        assertEquals("cmd", module.params().freeForm().orElseThrow());
    }
}
