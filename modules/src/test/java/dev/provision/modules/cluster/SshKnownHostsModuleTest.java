package dev.provision.modules.cluster;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SshKnownHostsModuleTest {
    private static final String PATH = SshKnownHostsModule.DEFAULT_PATH;
    private static final String K1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINode01";
    private static final String K2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINode02";
    private static final String BLOCK = "# BEGIN provision cluster known hosts\nnode01,10.213.0.11 " + K1 + "\nnode02,10.213.0.12 " + K2
            + "\n# END provision cluster known hosts\n";
    private final SshKnownHostsModule module = new SshKnownHostsModule();

    private static Arguments row(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        return Arguments.of(name, host, args, expect);
    }

    private static List<Object> entries(String key2) {
        return List.of(Map.of("names", List.of("node01", "10.213.0.11"), "keys", List.of(K1 + " root@node01")),
                Map.of("names", List.of("node02", "10.213.0.12"), "keys", List.of(key2)));
    }

    private static String shown(String s) {
        return s.replace("\n", "\\n");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("creates the file", new FakeHost().directory("/etc/ssh"), Args.of("entries", entries(K2)),
                        planned("put " + PATH + " [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("creates /etc/ssh when missing", new FakeHost().directory("/etc"), Args.of("entries", entries(K2)),
                        planned("mkdir /etc/ssh [0755 root root]", "put " + PATH + " [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("converged", new FakeHost().file(PATH, "old-host ssh-rsa AAAAB3\n" + BLOCK), Args.of("entries", entries(K2)),
                        converged(PATH + " lists the 2 cluster host keys")),
                row("a replaced node's key changes one line", new FakeHost().file(PATH, BLOCK),
                        Args.of("entries", entries("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKey")),
                        planned("put " + PATH + " [0644 root root] \"" + shown(BLOCK.replace(K2, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKey")) + "\"")),
                row("exclusive makes the entries the whole file", new FakeHost().file(PATH, "stale ssh-rsa AAAAB3\n" + BLOCK),
                        Args.of("entries", entries(K2), "exclusive", true),
                        planned("put " + PATH + " [0644 root root] \"# Known host keys of the cluster, managed by provision (the whole file).\\n"
                                + "node01,10.213.0.11 " + K1 + "\\nnode02,10.213.0.12 " + K2 + "\\n\"")),
                row("fixes the mode", new FakeHost().file(PATH, BLOCK, "0600", "root", "root"), Args.of("entries", entries(K2)),
                        planned("attrs " + PATH + " [0644 - -]")),
                row("absent removes the block", new FakeHost().file(PATH, "a ssh-rsa AAAAB3\n" + BLOCK), Args.of("state", "absent"),
                        planned("put " + PATH + " [0644 root root] \"a ssh-rsa AAAAB3\\n\"")),
                row("absent exclusive removes the file", new FakeHost().file(PATH, BLOCK), Args.of("state", "absent", "exclusive", true),
                        planned("remove " + PATH)),
                row("absent without a file", new FakeHost(), Args.of("state", "absent"), converged(PATH + " does not exist")),
                row("no entries", new FakeHost(), Args.of("entries", List.of()), fails("entries lists no host key")),
                row("a bad key", new FakeHost(), Args.of("entries", List.of(Map.of("names", List.of("n"), "keys", List.of("AAAA"))))
                        , fails("entries[0]: not a public host key: AAAA")),
                row("a bad name", new FakeHost(), Args.of("entries", List.of(Map.of("names", List.of("a,b"), "keys", List.of(K1)))),
                        fails("'a,b' is not a host name, address or [host]:port")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(host, Path.of("/nonexistent")), args, expect);
    }

    static Stream<Arguments> plannedCases() {
        return cases().filter(row -> row.get()[3] instanceof Expect.Planned);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("plannedCases")
    void plansNothingOnceThePlanIsApplied(String name, FakeHost host, Map<String, Object> args, Expect expect) throws Exception {
        FakeContext context = new FakeContext(host, Path.of("/nonexistent"));
        host.apply(module.plan(module.params().validate(args), context));
        Plan again = module.plan(module.params().validate(args), context);
        assertTrue(again.isEmpty(), () -> "still planned: " + Expect.describe(again));
    }
}
