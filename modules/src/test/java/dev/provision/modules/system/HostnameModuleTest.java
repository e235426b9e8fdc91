package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class HostnameModuleTest extends ModuleTableTest<HostnameModule> {
    private static final String FILE = HostnameModule.FILE;

    HostnameModuleTest() {
        super(new HostnameModule());
    }

    /** A host named {@code live} whose {@code hostname NAME} renames it. */
    static FakeHost named(FakeHost host, String live, String wanted) {
        host.probe(0, live + "\n", "", "hostname");
        host.onExec(List.of("hostname", wanted), h -> h.probe(0, wanted + "\n", "", "hostname"));
        return host;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("converged: file and live name agree", named(new FakeHost().file(FILE, "gpu01\n"), "gpu01", "gpu01"),
                        Args.of("name", "gpu01"), converged(FILE + " holds gpu01; the host is named gpu01")),
                row("a fresh node: file and live name", named(new FakeHost().file(FILE, "localhost\n"), "localhost", "gpu01"),
                        Args.of("name", "gpu01"), planned("put " + FILE + " [0644 root root] \"gpu01\\n\"", "exec [hostname, gpu01]")),
                row("only the live name drifted", named(new FakeHost().file(FILE, "gpu01\n"), "rescue", "gpu01"),
                        Args.of("name", "gpu01"), planned("exec [hostname, gpu01]")),
                row("no /etc/hostname yet", named(new FakeHost().directory("/etc"), "gpu01", "gpu01"),
                        Args.of("name", "gpu01"), planned("put " + FILE + " [0644 root root] \"gpu01\\n\"")),
                row("a dotted name", named(new FakeHost().file(FILE, "x\n"), "x", "gpu01.rack3.example"),
                        Args.of("name", "gpu01.rack3.example", "use", "systemd"),
                        planned("put " + FILE + " [0644 root root] \"gpu01.rack3.example\\n\"", "exec [hostname, gpu01.rack3.example]")),
                row("a name that would be an option", new FakeHost(), Args.of("name", "-F/etc/shadow"), fails("is not a host name")),
                row("a name with shell in it", new FakeHost(), Args.of("name", "a;reboot"), fails("is not a host name")),
                row("an empty label", new FakeHost(), Args.of("name", "gpu01..example"), fails("is not a host name")),
                row("a label of 64 characters", new FakeHost(), Args.of("name", "a".repeat(64)), fails("is not a host name")),
                row("a strategy provision has not", new FakeHost(), Args.of("name", "gpu01", "use", "freebsd"), fails("use")),
                row("the live name cannot be read", new FakeHost().file(FILE, "gpu01\n").probe(127, "", "hostname: not found\n", "hostname"),
                        Args.of("name", "gpu01"), fails("cannot read the host name: hostname exited 127: hostname: not found")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void theLiveChangeShowsBeforeAndAfterAndTellsTheDryRunWhatHostnameAnswersNext() throws Exception {
        FakeHost host = named(new FakeHost().file(FILE, "gpu01\n"), "localhost", "gpu01");
        Plan plan = module.plan(module.params().validate(Args.of("name", "gpu01")), new FakeContext(host, controller));
        assertEquals(List.of(new Diff("hostname (live)", "localhost\n", "gpu01\n")), plan.changes().getFirst().diffs());
        assertEquals(Map.of(List.of("hostname"), new ProbeResult(0, "gpu01\n", "")), plan.afterwards());
    }
}
