package dev.provision.modules.cluster;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.Table;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class HostsModuleTest {
    private static final String DEBIAN = "127.0.0.1 localhost\n127.0.1.1 node01.example node01\n::1 localhost ip6-localhost\n";
    private static final String BLOCK = "# BEGIN provision cluster hosts\n10.213.0.11 node01 n1\n10.213.0.12 node02\n# END provision cluster hosts\n";
    private final HostsModule module = new HostsModule();
    @TempDir
    Path controller;

    private static List<Object> entries() {
        return List.of(Map.of("address", "10.213.0.11", "names", List.of("node01", "n1")), Map.of("address", "10.213.0.12", "names", List.of("node02")));
    }

    private static String shown(String s) {
        return s.replace("\n", "\\n");
    }

    static Stream<Arguments> cases() {
        String clean = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n";
        return Stream.of(
                row("adds the block and removes the Debian trap", DEBIAN, Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown("127.0.0.1 localhost\n127.0.1.1 node01.example\n::1 localhost ip6-localhost\n" + BLOCK) + "\"")),
                row("converged", clean + BLOCK, Args.of("entries", entries()), converged("/etc/hosts has the cluster block (2 hosts)")),
                row("the trap line goes when no name is left", "127.0.0.1 localhost\n127.0.1.1 node02\n" + BLOCK, Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown("127.0.0.1 localhost\n" + BLOCK) + "\"")),
                row("a trap planted outside an existing block", "127.0.0.1 localhost node01\n" + BLOCK, Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown("127.0.0.1 localhost\n" + BLOCK) + "\"")),
                row("converged, a cluster name only in a loopback line's comment", "127.0.0.1 localhost # node01\n  127.0.1.1 printer\n" + BLOCK,
                        Args.of("entries", entries()), converged("/etc/hosts has the cluster block (2 hosts)")),
                row("an indented trap with trailing blanks", "  127.0.1.1 node01  \n" + BLOCK, Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("a trap in a file with CRLF line ends", "127.0.1.1 node01\r\n" + BLOCK, Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("a trap after the block", clean + BLOCK + "127.0.1.1 node02\n", Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown(clean + BLOCK) + "\"")),
                row("a trap after a block with a line that only starts like its end", clean
                                + BLOCK.replace("10.213.0.12 node02\n", "10.213.0.12 node02\n# END provision cluster hosts (old)\n") + "127.0.1.1 node02\n",
                        Args.of("entries", entries()), planned("put /etc/hosts [0644 root root] \"" + shown(clean + BLOCK) + "\"")),
                row("a marker-like line inside the block does not end it", BLOCK.replace("10.213.0.12 node02\n", "10.213.0.12 node02\n127.0.0.9 node01\n"),
                        Args.of("entries", entries()), planned("put /etc/hosts [0644 root root] \"" + shown(BLOCK) + "\"")),
                row("updates a changed address in place", "# admin\n" + BLOCK.replace("10.213.0.12", "10.213.0.99") + "10.0.0.5 printer\n",
                        Args.of("entries", entries()),
                        planned("put /etc/hosts [0644 root root] \"" + shown("# admin\n" + BLOCK + "10.0.0.5 printer\n") + "\"")),
                row("absent removes the block", clean + BLOCK, Args.of("state", "absent"),
                        planned("put /etc/hosts [0644 root root] \"" + shown(clean) + "\"")),
                row("absent without a block", clean, Args.of("state", "absent"), converged("/etc/hosts has no cluster block")),
                row("a name on two addresses", clean, Args.of("entries", List.of(Map.of("address", "10.0.0.1", "names", List.of("a")),
                        Map.of("address", "10.0.0.2", "names", List.of("a")))), fails("name a maps to two addresses: 10.0.0.1 and 10.0.0.2")),
                row("an address that is not an IP", clean, Args.of("entries", List.of(Map.of("address", "node01.example", "names", List.of("a")))),
                        fails("entries[0]: address 'node01.example' is not an IP address")),
                row("a name with a blank", clean, Args.of("entries", List.of(Map.of("address", "10.0.0.1", "names", List.of("a b")))),
                        fails("'a b' is not a host name")),
                row("an entry that is not a mapping", clean, Args.of("entries", List.of("10.0.0.1 a")), fails("entries[0] must be a mapping")),
                row("nothing to write", clean, Args.of("path", "/etc/hosts"), fails("no entries")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, String hosts, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(new FakeHost().file("/etc/hosts", hosts), controller), args, expect);
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("plannedCases")
    void plansNothingOnceThePlanIsApplied(String name, String hosts, Map<String, Object> args, Expect expect) throws Exception {
        FakeHost host = new FakeHost().file("/etc/hosts", hosts);
        Expect.checkIdempotent(module, new FakeContext(host, controller), args, host);
    }

    /** Variables as the engine gives them: groups, and hostvars with inventory vars and facts. */
    private static FakeContext inventory(FakeHost host, Path controller) {
        Map<String, Object> hostvars = new LinkedHashMap<>();
        hostvars.put("node01", Map.of("ansible_host", "10.213.0.11", "host_aliases", List.of("n1", "gpu01")));
        hostvars.put("node02", Map.of("ansible_host", "node02.lab", "facts", Map.of("default_ipv4", "10.213.0.12")));
        hostvars.put("node03", Map.of("ansible_host", "10.213.0.13"));
        return new FakeContext(host, controller)
                .variable("groups", Map.of("gpu", List.of("node01", "node02", "node03"), "empty", List.of()))
                .variable("hostvars", hostvars);
    }

    @ParameterizedTest(name = "{0} is an IP address: {1}")
    @CsvSource({
        "10.213.0.11, true", "0.0.0.0, true", "255.255.255.255, true", "192.168.1.9, true", "::1, true", "fe80::1%eth0, true",
        "256.1.1.1, false", "1.2.3, false", "1.2.3.4.5, false", "1.2.3.4., false", "01.2.3.4, false", "1..2.3, false",
        "1.2.3.1234, false", "node01, false", "10.0.0.1a, false", "'', false", "1.2.3.-4, false"})
    void addresses(String address, boolean valid) {
        assertEquals(valid, HostsModule.isIpAddress(address));
    }

    @ParameterizedTest(name = "{0} is a host name: {1}")
    @CsvSource({
        "node01, true", "node01.cluster, true", "a, true", "gpu_7-b.rack2, true", "x_, true",
        "-node, false", "node-, false", ".node, false", "node., false", "'a b', false", "nöde, false", "a;rm, false"})
    void names(String name, boolean valid) {
        String clean = "127.0.0.1 localhost\n";
        Expect expected = valid ? planned("put /etc/hosts [0644 root root] \"" + shown(clean
                + "# BEGIN provision cluster hosts\n10.0.0.1 " + name + "\n# END provision cluster hosts\n") + "\"")
                : fails("'" + name + "' is not a host name");
        Expect.check(module, new FakeContext(new FakeHost().file("/etc/hosts", clean), controller),
                Args.of("entries", List.of(Map.of("address", "10.0.0.1", "names", List.of(name)))), expected);
    }

    @Test
    void buildsEntriesFromAnInventoryGroup() throws Exception {
        FakeHost host = new FakeHost().file("/etc/hosts", "127.0.0.1 localhost\n");
        FakeContext context = inventory(host, controller);
        Map<String, Object> args = Args.of("group", "gpu");
        host.apply(module.plan(module.params().validate(args), context));
        assertEquals("127.0.0.1 localhost\n# BEGIN provision cluster hosts\n10.213.0.11 node01 n1 gpu01\n10.213.0.12 node02\n10.213.0.13 node03\n"
                + "# END provision cluster hosts\n", host.text("/etc/hosts").orElseThrow());
        assertTrue(module.plan(module.params().validate(args), context).isEmpty());
    }

    @Test
    void groupEntriesComeBeforeExplicitOnes() throws Exception {
        FakeHost host = new FakeHost().file("/etc/hosts", "");
        FakeContext context = inventory(host, controller);
        host.apply(module.plan(module.params().validate(Args.of("group", "gpu",
                "entries", List.of(Map.of("address", "10.213.0.1", "names", "registry, ntp")))), context));
        assertTrue(host.text("/etc/hosts").orElseThrow().contains("10.213.0.13 node03\n10.213.0.1 registry ntp\n"));
    }

    @Test
    void aHostWithoutAnAddressIsNamed() {
        Map<String, Object> hostvars = Map.of("node09", Map.of("ansible_host", "node09.lab"));
        FakeContext context = new FakeContext(new FakeHost().file("/etc/hosts", ""), controller)
                .variable("groups", Map.of("gpu", List.of("node09"))).variable("hostvars", hostvars);
        Expect.check(module, context, Args.of("group", "gpu"), fails("host node09 of group gpu has no IP address"));
    }

    @Test
    void anUnknownGroupFails() {
        Expect.check(module, inventory(new FakeHost().file("/etc/hosts", ""), controller), Args.of("group", "cpu"),
                fails("group 'cpu' is not in the inventory"));
    }

    @Test
    void theSummaryNamesTheRemovedTrap() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("entries", entries())),
                new FakeContext(new FakeHost().file("/etc/hosts", DEBIAN), controller));
        assertEquals("add the cluster block (2 hosts) in /etc/hosts; remove node01 (127.0.1.1) from loopback lines"
                + " (they resolved to this host's loopback, not to the cluster address)", plan.changes().getFirst().summary());
        Diff diff = plan.changes().getFirst().diffs().getFirst();
        assertEquals(DEBIAN, diff.before());
        assertEquals("/etc/hosts", diff.label());
    }
}
