package dev.provision.modules.control;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class PingModuleTest extends ModuleTableTest<PingModule> {
    PingModuleTest() {
        super(new PingModule());
    }

    private static FakeHost answering() {
        return new FakeHost().probe(0, "", "", "true");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("the host runs a command", answering(), Args.of(), converged("pong")),
                row("data is what comes back", answering(), Args.of("data", "hello"), converged("hello")),
                row("data=crash fails, as Ansible's ping", answering(), Args.of("data", "crash"), fails("boom")),
                row("a shell that cannot run a command", new FakeHost().probe(126, "", "sh: true: Permission denied\n", "true"),
                        Args.of(), fails("the host's shell cannot run a command: true exited 126: sh: true: Permission denied")),
                row("a parameter Ansible's ping has not", answering(), Args.of("dat", "x"), fails("dat")));
    }

    /** ping never plans a change: its converged rows stand for the idempotence check (applied: nothing; planned again: nothing). */
    static Stream<Arguments> plannedCases() {
        return Stream.of(row("the host runs a command", answering(), Args.of(), converged("pong")));
    }

    @Test
    void theResultIsAnsiblesPingPong() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of()), new FakeContext(answering(), controller));
        assertEquals(Map.of("ping", "pong"), plan.result());
        assertEquals(java.util.List.of(), plan.changes());
    }
}
