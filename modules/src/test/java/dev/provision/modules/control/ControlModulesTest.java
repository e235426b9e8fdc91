package dev.provision.modules.control;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
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

class ControlModulesTest {
    @TempDir
    Path controller;

    private FakeContext context() {
        return new FakeContext(new FakeHost(), controller)
                .expression("gpus == 8", true)
                .expression("ib_up", true)
                .expression("clock_ok", false)
                .expression("x in ['a','b']", true)
                .expression("gpus", 8)
                .expression("nothing", null)
                .varsFile("debian.yml", Map.of("greeting", "hello", "ports", List.of(80)));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("assert: all hold", new AssertModule(), Args.of("that", List.of("gpus == 8", "ib_up")), converged("All assertions passed")),
                row("assert: single string with commas is one expression", new AssertModule(),
                        Args.of("that", "x in ['a','b']"), converged("All assertions passed")),
                row("assert: success_msg", new AssertModule(),
                        Args.of("that", "ib_up", "success_msg", "fabric up"), converged("fabric up")),
                row("assert: failure names the expression", new AssertModule(),
                        Args.of("that", List.of("ib_up", "clock_ok")), fails("Assertion failed: clock_ok")),
                row("assert: fail_msg", new AssertModule(),
                        Args.of("that", "clock_ok", "fail_msg", "clock drift too large"), fails("clock drift too large")),
                row("assert: msg alias", new AssertModule(),
                        Args.of("that", "clock_ok", "msg", "drift"), fails("drift")),
                row("assert: undefined expression", new AssertModule(),
                        Args.of("that", "nope"), fails("undefined: nope")),
                row("assert: empty list", new AssertModule(),
                        Args.of("that", List.of()), fails("needs at least one expression")),
                row("fail: default message", new FailModule(), Args.of(), fails("Failed as requested from task")),
                row("fail: message", new FailModule(), Args.of("msg", "unsupported OS"), fails("unsupported OS")),
                row("debug: msg", new DebugModule(), Args.of("msg", "hello"), converged("hello")),
                row("debug: default", new DebugModule(), Args.of(), converged("Hello world!")),
                row("debug: var", new DebugModule(), Args.of("var", "gpus"), converged("gpus: 8")),
                row("debug: var with no value", new DebugModule(), Args.of("var", "nothing"), converged("nothing: VARIABLE IS NOT DEFINED!")),
                row("debug: msg and var", new DebugModule(), Args.of("msg", "a", "var", "gpus"), fails("mutually exclusive: msg, var")),
                row("debug: verbosity not a number", new DebugModule(), Args.of("msg", "a", "verbosity", "high"),
                        fails("parameter 'verbosity' must be an integer")),
                row("set_fact: one fact", new SetFactModule(), Args.of("role", "worker"), converged("set role")),
                row("set_fact: cacheable is not a fact", new SetFactModule(), Args.of("b", 1, "a", 2, "cacheable", "yes"), converged("set a, b")),
                row("set_fact: nothing to set", new SetFactModule(), Args.of("cacheable", true), fails("at least one name: value pair")),
                row("set_fact: bad name", new SetFactModule(), Args.of("my-var", 1), fails("'my-var' is not a valid variable name")),
                row("include_vars: a file", new IncludeVarsModule(), Args.of("file", "debian.yml"), converged("read debian.yml")),
                row("include_vars: missing file", new IncludeVarsModule(), Args.of("file", "nope.yml"), fails("vars file 'nope.yml' not found")),
                row("include_vars: a bad name for name", new IncludeVarsModule(), Args.of("file", "debian.yml", "name", "a.b"),
                        fails("'a.b' is not a valid variable name")),
                row("include_vars: dir refused with what to do", new IncludeVarsModule(), Args.of("dir", "vars"),
                        fails("name each file with its own include_vars task")),
                row("include_vars: hash_behaviour refused", new IncludeVarsModule(),
                        Args.of("file", "debian.yml", "hash_behaviour", "merge"), fails("'hash_behaviour' is not supported")),
                row("include_vars: neither file nor dir", new IncludeVarsModule(), Args.of("name", "x"), fails("file")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, TaskModule module, Map<String, Object> args, Expect expect) {
        Expect.check(module, context(), args, expect);
    }

    @Test
    void debugPutsTheMessageInTheResult() throws Exception {
        DebugModule debug = new DebugModule();
        assertEquals(Map.of("msg", List.of("a", "b")), plan(debug, Args.of("msg", List.of("a", "b"))).result());
        assertEquals(Map.of("gpus", 8), plan(debug, Args.of("var", "gpus")).result());
    }

    @Test
    void setFactReturnsTheFactsAsGiven() throws Exception {
        Plan plan = plan(new SetFactModule(), Args.of("nodes", List.of("n1", "n2"), "port", 22, "cacheable", false));
        assertEquals(Map.of("nodes", List.of("n1", "n2"), "port", 22), plan.facts());
    }

    @Test
    void quietAssertLeavesTheMessageOut() throws Exception {
        assertEquals(Map.of(), plan(new AssertModule(), Args.of("that", "ib_up", "quiet", true)).result());
        assertEquals(Map.of("msg", "All assertions passed"), plan(new AssertModule(), Args.of("that", "ib_up")).result());
    }

    @Test
    void includeVarsSetsTheFileAsFactsAtTheTopOrUnderName() throws Exception {
        assertEquals(Map.of("greeting", "hello", "ports", List.of(80)),
                plan(new IncludeVarsModule(), Args.of("file", "debian.yml")).facts());
        assertEquals(Map.of("os", Map.of("greeting", "hello", "ports", List.of(80))),
                plan(new IncludeVarsModule(), Args.of("file", "debian.yml", "name", "os")).facts());
    }

    private Plan plan(TaskModule module, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), context());
    }
}
