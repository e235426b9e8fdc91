package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.provision.modules.spi.ModuleException;
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

/**
 * The answers are firewalld's own: {@code firewall-cmd --state} prints {@code running} (exit 0) or
 * {@code not running} on stderr with exit 252 (NOT_RUNNING in firewall/errors.py; src/firewall-cmd.in);
 * every {@code --query-*} prints {@code yes} (exit 0) or {@code no} (exit 1) through
 * {@code FirewallCommand.print_query_result} (src/firewall/command.py), in firewall-cmd and
 * firewall-offline-cmd alike; an unknown zone is {@code Error: INVALID_ZONE: NAME}, exit 112;
 * {@code --get-zones} prints the names on one line (as on a RHEL 9 node).
 */
class FirewalldModuleTest extends ModuleTableTest<FirewalldModule> {
    private static final ProbeResult RUNNING = new ProbeResult(0, "running\n", "");
    private static final ProbeResult STOPPED = new ProbeResult(252, "", "not running\n");
    private static final String ZONES = "block dmz drop external home internal nm-shared public trusted work\n";

    FirewalldModuleTest() {
        super(new FirewalldModule());
    }

    /** A node whose firewalld runs (or not) with the setting {@code option} (e.g. {@code service=nfs}) on or off in each config. */
    private static FakeHost node(ProbeResult state, String zone, String option, boolean permanent, boolean runtime, boolean offline) {
        FakeHost host = new FakeHost().probe(FirewalldModule.STATE, state);
        setting(host, List.of("firewall-cmd", "--permanent"), zone, option, permanent);
        setting(host, List.of("firewall-cmd"), zone, option, runtime);
        setting(host, List.of("firewall-offline-cmd"), zone, option, offline);
        return host;
    }

    /** The query of {@code option} answers {@code on}; adding and removing it turn the answer. */
    private static void setting(FakeHost host, List<String> prefix, String zone, String option, boolean on) {
        List<String> query = argv(prefix, zone, "--query-" + option);
        host.probe(query, answer(on));
        String add = option.startsWith("interface=") ? "--change-" : "--add-";
        host.onExec(argv(prefix, zone, add + option), h -> h.probe(query, answer(true)));
        host.onExec(argv(prefix, zone, add + option, "--timeout=300"), h -> h.probe(query, answer(true)));
        host.onExec(argv(prefix, zone, "--remove-" + option), h -> h.probe(query, answer(false)));
    }

    private static List<String> argv(List<String> prefix, String zone, String... options) {
        List<String> argv = new java.util.ArrayList<>(prefix);
        if (!zone.isEmpty()) {
            argv.add("--zone=" + zone);
        }
        argv.addAll(List.of(options));
        return argv;
    }

    private static ProbeResult answer(boolean yes) {
        return yes ? new ProbeResult(0, "yes\n", "") : new ProbeResult(1, "no\n", "");
    }

    private static FakeHost zones(ProbeResult state, String listing) {
        FakeHost host = new FakeHost().probe(FirewalldModule.STATE, state);
        List<String> perm = List.of("firewall-cmd", "--permanent", "--get-zones");
        List<String> off = List.of("firewall-offline-cmd", "--get-zones");
        host.probe(perm, new ProbeResult(0, listing, "")).probe(off, new ProbeResult(0, listing, ""));
        host.onExec(List.of("firewall-cmd", "--permanent", "--new-zone=gpu"), h -> h.probe(perm, new ProbeResult(0, listing.strip() + " gpu\n", "")));
        host.onExec(List.of("firewall-offline-cmd", "--new-zone=gpu"), h -> h.probe(off, new ProbeResult(0, listing.strip() + " gpu\n", "")));
        host.onExec(List.of("firewall-cmd", "--permanent", "--delete-zone=gpu"),
                h -> h.probe(perm, new ProbeResult(0, listing.replace(" gpu", ""), "")));
        return host;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("DeepOps' NFS task: permanent only, daemon running", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "permanent", true, "immediate", false, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --add-service=nfs]")),
                row("permanent only, already there", node(RUNNING, "", "service=nfs", true, false, false),
                        Args.of("service", "nfs", "permanent", "yes", "state", "enabled"),
                        converged("service nfs is enabled in the default zone (permanent)")),
                row("permanent only, daemon stopped: firewall-offline-cmd", node(STOPPED, "", "service=mountd", false, false, false),
                        Args.of("service", "mountd", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-offline-cmd, --add-service=mountd]")),
                row("permanent only, daemon stopped, already there", node(STOPPED, "", "service=mountd", false, false, true),
                        Args.of("service", "mountd", "permanent", true, "state", "enabled"),
                        converged("service mountd is enabled in the default zone (permanent, firewalld stopped)")),
                row("permanent and immediate: each config that differs", node(RUNNING, "public", "port=8080/tcp", true, false, false),
                        Args.of("port", "8080/tcp", "zone", "public", "permanent", true, "immediate", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --zone=public, --add-port=8080/tcp]")),
                row("permanent and immediate, both missing", node(RUNNING, "public", "port=161-162/udp", false, false, false),
                        Args.of("port", "161-162/udp", "zone", "public", "permanent", true, "immediate", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=public, --add-port=161-162/udp]",
                                "exec [firewall-cmd, --zone=public, --add-port=161-162/udp]")),
                row("permanent not given: runtime only", node(RUNNING, "", "service=https", false, false, false),
                        Args.of("service", "https", "state", "enabled"),
                        planned("exec [firewall-cmd, --add-service=https]")),
                row("runtime with a timeout", node(RUNNING, "", "service=https", false, false, false),
                        Args.of("service", "https", "state", "enabled", "timeout", 300),
                        planned("exec [firewall-cmd, --add-service=https, --timeout=300]")),
                row("disabled removes from both", node(RUNNING, "dmz", "service=http", true, true, false),
                        Args.of("service", "http", "zone", "dmz", "permanent", true, "immediate", true, "state", "disabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=dmz, --remove-service=http]",
                                "exec [firewall-cmd, --zone=dmz, --remove-service=http]")),
                row("disabled and not there", node(RUNNING, "", "port=8081/tcp", false, false, false),
                        Args.of("port", "8081/tcp", "permanent", true, "state", "disabled"),
                        converged("port 8081/tcp is not enabled in the default zone (permanent)")),
                row("a rich rule goes as one argument", node(RUNNING, "", "rich-rule=rule service name=\"ftp\" audit limit value=\"1/m\" accept",
                                false, false, false),
                        Args.of("rich_rule", "rule service name=\"ftp\" audit limit value=\"1/m\" accept", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --add-rich-rule=rule service name=\"ftp\" audit limit value=\"1/m\" accept]")),
                row("a source in a zone", node(RUNNING, "internal", "source=192.0.2.0/24", false, false, false),
                        Args.of("source", "192.0.2.0/24", "zone", "internal", "permanent", false, "state", "enabled"),
                        planned("exec [firewall-cmd, --zone=internal, --add-source=192.0.2.0/24]")),
                row("an interface moves to its zone", node(RUNNING, "trusted", "interface=eth2", false, false, false),
                        Args.of("interface", "eth2", "zone", "trusted", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=trusted, --change-interface=eth2]")),
                row("masquerade", node(RUNNING, "dmz", "masquerade", false, false, false),
                        Args.of("masquerade", "yes", "zone", "dmz", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=dmz, --add-masquerade]")),
                row("masquerade off", node(RUNNING, "dmz", "masquerade", true, false, false),
                        Args.of("masquerade", true, "zone", "dmz", "permanent", true, "state", "disabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=dmz, --remove-masquerade]")),
                row("an icmp block", node(RUNNING, "drop", "icmp-block=echo-request", false, false, false),
                        Args.of("icmp_block", "echo-request", "zone", "drop", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=drop, --add-icmp-block=echo-request]")),
                row("icmp block inversion", node(RUNNING, "drop", "icmp-block-inversion", false, false, false),
                        Args.of("icmp_block_inversion", true, "zone", "drop", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=drop, --add-icmp-block-inversion]")),
                row("a port forward", node(RUNNING, "public", "forward-port=port=443:proto=tcp:toport=8443:toaddr=10.0.0.5",
                                false, false, false),
                        Args.of("port_forward", List.of(Map.of("port", 443, "proto", "tcp", "toport", "8443", "toaddr", "10.0.0.5")),
                                "zone", "public", "permanent", true, "state", "enabled"),
                        planned("exec [firewall-cmd, --permanent, --zone=public, --add-forward-port=port=443:proto=tcp:toport=8443:toaddr=10.0.0.5]")),
                row("a new zone", zones(RUNNING, ZONES), Args.of("zone", "gpu", "permanent", true, "state", "present"),
                        planned("exec [firewall-cmd, --permanent, --new-zone=gpu]")),
                row("a new zone, daemon stopped", zones(STOPPED, ZONES), Args.of("zone", "gpu", "permanent", true, "state", "present"),
                        planned("exec [firewall-offline-cmd, --new-zone=gpu]")),
                row("a zone that exists", zones(RUNNING, ZONES), Args.of("zone", "trusted", "permanent", true, "state", "present"),
                        converged("zone trusted exists (permanent)")),
                row("a zone deleted", zones(RUNNING, ZONES.strip() + " gpu\n"), Args.of("zone", "gpu", "permanent", true, "state", "absent"),
                        planned("exec [firewall-cmd, --permanent, --delete-zone=gpu]")),
                row("immediate with the daemon stopped", node(STOPPED, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "permanent", true, "immediate", true, "state", "enabled"),
                        fails("firewall is not currently running, unable to perform immediate actions")),
                row("runtime only with the daemon stopped", node(STOPPED, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "state", "enabled"), fails("without a running firewall daemon")),
                row("firewalld not installed", new FakeHost().probe(127, "", "sh: 1: firewall-cmd: not found\n", "firewall-cmd", "--state"),
                        Args.of("service", "nfs", "permanent", true, "state", "enabled"), fails("install the firewalld package")),
                row("an unknown zone", new FakeHost().probe(FirewalldModule.STATE, RUNNING)
                                .probe(112, "", "Error: INVALID_ZONE: nosuch\n", "firewall-cmd", "--permanent", "--zone=nosuch", "--query-service=nfs"),
                        Args.of("service", "nfs", "zone", "nosuch", "permanent", true, "state", "enabled"), fails("INVALID_ZONE: nosuch")),
                row("a port without protocol", node(RUNNING, "", "port=8080", false, false, false),
                        Args.of("port", "8080", "permanent", true, "state", "enabled"), fails("improper port format (missing protocol?)")),
                row("present with a setting", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "permanent", true, "state", "present"),
                        fails("absent and present state can only be used in zone level operations")),
                row("enabled without a setting", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("zone", "public", "permanent", true, "state", "enabled"), fails("needs one of service, port")),
                row("a zone operation that is not permanent", zones(RUNNING, ZONES), Args.of("zone", "gpu", "state", "present"),
                        fails("Zone operations must be permanent")),
                row("interface without zone", node(RUNNING, "", "interface=eth2", false, false, false),
                        Args.of("interface", "eth2", "permanent", true, "state", "enabled"), fails("interface needs zone")),
                row("source without permanent", node(RUNNING, "", "source=192.0.2.0/24", false, false, false),
                        Args.of("source", "192.0.2.0/24", "state", "enabled"), fails("source needs permanent")),
                row("a timeout on a permanent-only change", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "permanent", true, "state", "enabled", "timeout", 60), fails("runtime configuration only")),
                row("masquerade: no with state enabled", node(RUNNING, "", "masquerade", false, false, false),
                        Args.of("masquerade", false, "permanent", true, "state", "enabled"), fails("is ambiguous")),
                row("two settings at once", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs", "port", "2049/tcp", "state", "enabled"), fails("mutually exclusive")),
                row("state is required", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("service", "nfs"), fails("missing required parameter 'state'")),
                row("the default zone is refused", node(RUNNING, "", "service=nfs", false, false, false),
                        Args.of("zone", "trusted", "default", true, "permanent", true, "state", "enabled"), fails("set-default-zone")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void theDryRunKnowsWhatTheQueriesAnswerAfterwards() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("service", "nfs", "permanent", true, "immediate", true, "state", "enabled")),
                new FakeContext(node(RUNNING, "", "service=nfs", false, false, false), controller));
        assertEquals(Map.of(List.of("firewall-cmd", "--permanent", "--query-service=nfs"), new ProbeResult(0, "yes\n", ""),
                List.of("firewall-cmd", "--query-service=nfs"), new ProbeResult(0, "yes\n", "")), plan.afterwards());
    }

    @Test
    void readsTheDaemonStateAsFirewallCmdPrintsIt() throws Exception {
        assertEquals(FirewalldModule.DaemonState.RUNNING, FirewalldModule.parseState(RUNNING));
        assertEquals(FirewalldModule.DaemonState.NOT_RUNNING, FirewalldModule.parseState(STOPPED));
        // firewalld 2.5 and later wait for a starting daemon and say so on stderr first
        assertEquals(FirewalldModule.DaemonState.NOT_RUNNING,
                FirewalldModule.parseState(new ProbeResult(252, "", "Waiting on dbus connection...\nnot running\n")));
        assertEquals(FirewalldModule.DaemonState.RUNNING,
                FirewalldModule.parseState(new ProbeResult(0, "running\n", "Waiting on dbus connection...\n")));
        assertEquals(FirewalldModule.DaemonState.FAILED, FirewalldModule.parseState(new ProbeResult(251, "", "failed\n")));
        assertThrows(ModuleException.class, () -> FirewalldModule.parseState(new ProbeResult(1, "", "Authorization failed.\n")));
    }

    @Test
    void readsQueriesAndZoneLists() throws Exception {
        List<String> q = List.of("firewall-cmd", "--query-service=nfs");
        assertEquals(true, FirewalldModule.parseQuery(q, new ProbeResult(0, "yes\n", "")));
        assertEquals(false, FirewalldModule.parseQuery(q, new ProbeResult(1, "no\n", "")));
        ModuleException e = assertThrows(ModuleException.class,
                () -> FirewalldModule.parseQuery(q, new ProbeResult(101, "", "Error: INVALID_SERVICE: nfz\n")));
        assertEquals("firewall-cmd --query-service=nfs exited 101: Error: INVALID_SERVICE: nfz"
                + " (firewall-cmd --get-services lists the services this host knows)", e.getMessage());
        assertEquals(List.of("block", "dmz", "drop", "external", "home", "internal", "nm-shared", "public", "trusted", "work"),
                FirewalldModule.zones(ZONES));
    }
}
