package dev.provision.modules.commands;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;

import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ShellModuleTest {
    @TempDir
    Path controller;

    static Stream<Arguments> cases() {
        return Stream.of(
                row("script runs with sh", new FakeHost(),
                        Args.of("cmd", "dmesg | tail -1 > /tmp/x"), planned("shell \"dmesg | tail -1 > /tmp/x\"")),
                row("chdir is quoted and guards every line", new FakeHost(),
                        Args.of("cmd", "make\nmake install", "chdir", "/srv/my app"),
                        planned("shell \"cd '/srv/my app' || exit\\nmake\\nmake install\"")),
                row("another executable", new FakeHost(),
                        Args.of("cmd", "echo ${BASH_VERSION}", "executable", "/bin/bash"),
                        planned("exec [/bin/bash, -c, echo ${BASH_VERSION}]")),
                row("creates exists", new FakeHost().file("/opt/done", ""),
                        Args.of("cmd", "install.sh", "creates", "/opt/done"), converged("skipped, since /opt/done exists")),
                row("removes missing", new FakeHost(),
                        Args.of("cmd", "cleanup.sh", "removes", "/opt/tmp"), converged("skipped, since /opt/tmp does not exist")),
                row("relative executable", new FakeHost(),
                        Args.of("cmd", "x", "executable", "bash"), fails("executable must be an absolute path")),
                row("blank script", new FakeHost(),
                        Args.of("cmd", ""), fails("no command given")),
                row("missing script", new FakeHost(),
                        Args.of("chdir", "/"), fails("missing required parameter 'cmd'")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(new ShellModule(), new FakeContext(host, controller), args, expect);
    }
}
