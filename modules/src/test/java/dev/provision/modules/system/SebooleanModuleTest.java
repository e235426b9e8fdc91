package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * getsebool's lines are libselinux's utils/getsebool.c ({@code "%s --> %s"}, {@code "%s --> %s pending: %s"},
 * {@code "getsebool:  SELinux is disabled"}, {@code "Error getting active value for %s"} with exit 255);
 * semanage's listing is policycoreutils' python/semanage/seobject.py {@code booleanRecords.list}
 * ({@code "%-30s (%-5s,%5s)  %s"}: name, State = live, Default = persistent, description), as on a
 * RHEL 8 node.
 */
class SebooleanModuleTest extends ModuleTableTest<SebooleanModule> {
    private static final String NAME = "use_nfs_home_dirs";

    SebooleanModuleTest() {
        super(new SebooleanModule());
    }

    static String listing(String live, String persistent) {
        return "SELinux boolean                State  Default Description\n\n"
                + "abrt_anon_write                (off  ,  off)  Allow abrt to anon write\n"
                + "httpd_can_network_connect      (on   ,   on)  Allow httpd to can network connect\n"
                + String.format("%-30s (%-5s,%5s)  %s\n", NAME, live, persistent, "Support NFS home directories")
                + "virt_use_nfs                   (on   ,   on)  Allow virt to use nfs\n";
    }

    /** An enforcing node where the boolean is {@code live} now and {@code persistent} in the store. */
    private static FakeHost node(String live, String persistent) {
        FakeHost host = new FakeHost()
                .probe(0, NAME + " --> " + live + "\n", "", "getsebool", NAME)
                .probe(Selinux.BOOLEANS, new ProbeResult(0, listing(live, persistent), ""));
        for (String v : List.of("on", "off")) {
            host.onExec(List.of("setsebool", NAME, v), h -> h.probe(0, NAME + " --> " + v + "\n", "", "getsebool", NAME)
                    .probe(Selinux.BOOLEANS, new ProbeResult(0, listing(v, persistent), "")));
            host.onExec(List.of("setsebool", "-P", NAME, v), h -> h.probe(0, NAME + " --> " + v + "\n", "", "getsebool", NAME)
                    .probe(Selinux.BOOLEANS, new ProbeResult(0, listing(v, v), "")));
        }
        return host;
    }

    private static FakeHost disabled(String persistent) {
        FakeHost host = new FakeHost().probe(1, "", "getsebool:  SELinux is disabled\n", "getsebool", NAME)
                .probe(Selinux.BOOLEANS, new ProbeResult(0, listing(persistent, persistent), ""));
        host.onExec(List.of("setsebool", "-P", NAME, "on"), h -> h.probe(Selinux.BOOLEANS, new ProbeResult(0, listing("on", "on"), "")));
        return host;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("DeepOps' NFS client: persistent on", node("off", "off"), Args.of("name", NAME, "state", "yes", "persistent", "yes"),
                        planned("exec [setsebool, -P, use_nfs_home_dirs, on]")),
                row("persistent and on already", node("on", "on"), Args.of("name", NAME, "state", true, "persistent", true),
                        converged("SELinux boolean use_nfs_home_dirs is on, live and persistent")),
                row("stored right, live wrong: set both", node("off", "on"), Args.of("name", NAME, "state", true, "persistent", true),
                        planned("exec [setsebool, -P, use_nfs_home_dirs, on]")),
                row("live right, stored wrong", node("on", "off"), Args.of("name", NAME, "state", true, "persistent", true),
                        planned("exec [setsebool, -P, use_nfs_home_dirs, on]")),
                row("live only", node("off", "off"), Args.of("name", NAME, "state", true),
                        planned("exec [setsebool, use_nfs_home_dirs, on]")),
                row("live only, already on (stored value not asked)", node("on", "off"), Args.of("name", NAME, "state", true),
                        converged("SELinux boolean use_nfs_home_dirs is on")),
                row("off", node("on", "on"), Args.of("name", NAME, "state", false),
                        planned("exec [setsebool, use_nfs_home_dirs, off]")),
                row("a pending value is not yet live", new FakeHost().probe(0, NAME + " --> on pending: off\n", "", "getsebool", NAME)
                                .onExec(List.of("setsebool", NAME, "on"), h -> h.probe(0, NAME + " --> on\n", "", "getsebool", NAME)),
                        Args.of("name", NAME, "state", true), planned("exec [setsebool, use_nfs_home_dirs, on]")),
                row("SELinux disabled fails, as in Ansible", disabled("off"), Args.of("name", NAME, "state", true, "persistent", true),
                        fails("SELinux is disabled on this host.")),
                row("SELinux disabled, ignored: the store only", disabled("off"),
                        Args.of("name", NAME, "state", true, "persistent", true, "ignore_selinux_state", true),
                        planned("exec [setsebool, -P, use_nfs_home_dirs, on]")),
                row("SELinux disabled, ignored, stored already", disabled("on"),
                        Args.of("name", NAME, "state", true, "persistent", true, "ignore_selinux_state", true),
                        converged("SELinux boolean use_nfs_home_dirs is on in the policy store (SELinux is disabled)")),
                row("SELinux disabled, ignored, live only: nothing to set", disabled("off"),
                        Args.of("name", NAME, "state", true, "ignore_selinux_state", true),
                        converged("SELinux is disabled: boolean use_nfs_home_dirs has no live value (ignore_selinux_state)")),
                row("no SELinux tools at all", new FakeHost().probe(127, "", "sh: 1: getsebool: not found\n", "getsebool", NAME),
                        Args.of("name", NAME, "state", true), fails("SELinux is disabled on this host.")),
                row("an unknown boolean", new FakeHost().probe(255, "", "Error getting active value for nosuch_bool\n", "getsebool", "nosuch_bool"),
                        Args.of("name", "nosuch_bool", "state", true), fails("SELinux boolean nosuch_bool is not defined")),
                row("persistent without semanage", new FakeHost().probe(0, NAME + " --> off\n", "", "getsebool", NAME)
                                .probe(Selinux.BOOLEANS, new ProbeResult(127, "", "env: 'semanage': No such file or directory\n")),
                        Args.of("name", NAME, "state", true, "persistent", true), fails("policycoreutils-python-utils")),
                row("not a boolean name", node("off", "off"), Args.of("name", "-a", "state", true), fails("not an SELinux boolean name")),
                row("state must be a boolean", node("off", "off"), Args.of("name", NAME, "state", "enabled"), fails("state")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void readsGetseboolAndSemanageAsTheyPrint() {
        assertEquals(Optional.of(new Selinux.LiveBoolean(NAME, false, false)), Selinux.parseGetsebool(NAME + " --> off\n"));
        assertEquals(Optional.of(new Selinux.LiveBoolean(NAME, true, false)), Selinux.parseGetsebool(NAME + " --> on pending: off\n"));
        assertEquals(Optional.empty(), Selinux.parseGetsebool("No booleans\n"));
        Map<String, Selinux.StoredBoolean> all = Selinux.parseBooleans(listing("on", "off"));
        assertEquals(4, all.size(), "the heading is no boolean");
        assertEquals(new Selinux.StoredBoolean(true, false), all.get(NAME));
        assertEquals(new Selinux.StoredBoolean(true, true), all.get("virt_use_nfs"));
    }

    @Test
    void theDryRunKnowsBothAnswersAfterwards() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", NAME, "state", true, "persistent", true)),
                new FakeContext(node("off", "off"), controller));
        assertEquals(new ProbeResult(0, NAME + " --> on\n", ""), plan.afterwards().get(Selinux.getsebool(NAME)));
        assertEquals(new ProbeResult(0, listing("on", "on"), ""), plan.afterwards().get(Selinux.BOOLEANS));
    }
}
