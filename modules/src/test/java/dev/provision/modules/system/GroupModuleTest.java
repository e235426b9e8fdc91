package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

class GroupModuleTest extends ModuleTableTest<GroupModule> {

    GroupModuleTest() {
        super(new GroupModule());
    }

    /**
     * A host whose account database holds these {@code getent group} lines (as Debian prints them),
     * and whose groupadd, groupmod and groupdel change it as the real ones do.
     */
    static FakeHost groups(String... lines) {
        FakeHost host = new FakeHost();
        host.probe(2, "", "", "getent", "group", "docker");
        host.probe(2, "", "", "getent", "group", "1500");
        for (String line : lines) {
            set(host, Accounts.parseGroup(line).name(), line);
        }
        host.onExec(List.of("groupadd", "docker"), h -> set(h, "docker", "docker:x:1001:"));
        host.onExec(List.of("groupadd", "-r", "docker"), h -> set(h, "docker", "docker:x:998:"));
        host.onExec(List.of("groupadd", "-g", "1500", "docker"), h -> set(h, "docker", "docker:x:1500:"));
        host.onExec(List.of("groupadd", "-g", "27", "-o", "docker"), h -> set(h, "docker", "docker:x:27:"));
        host.onExec(List.of("groupmod", "-g", "1500", "docker"), h -> set(h, "docker", "docker:x:1500:alice"));
        host.onExec(List.of("groupdel", "docker"), h -> h.probe(2, "", "", "getent", "group", "docker"));
        host.onExec(List.of("groupdel", "-f", "docker"), h -> h.probe(2, "", "", "getent", "group", "docker"));
        return host;
    }

    private static void set(FakeHost host, String name, String line) {
        host.probe(0, line + "\n", "", "getent", "group", name);
        host.probe(0, line + "\n", "", "getent", "group", line.split(":")[2]);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("present: creates a missing group", groups(), Args.of("name", "docker"), planned("exec [groupadd, docker]")),
                row("present: with a gid", groups(), Args.of("name", "docker", "gid", 1500), planned("exec [groupadd, -g, 1500, docker]")),
                row("present: a system group", groups(), Args.of("name", "docker", "system", true), planned("exec [groupadd, -r, docker]")),
                row("present: a shared gid with non_unique", groups("sudo:x:27:alice"), Args.of("name", "docker", "gid", 27, "non_unique", true),
                        planned("exec [groupadd, -g, 27, -o, docker]")),
                row("unchanged: exists", groups("docker:x:999:alice"), Args.of("name", "docker"), converged("group docker exists (gid 999)")),
                row("unchanged: exists with that gid", groups("docker:x:999:alice"), Args.of("name", "docker", "gid", "999", "state", "present"),
                        converged("group docker exists (gid 999)")),
                row("unchanged: system on an existing group changes nothing, as in Ansible", groups("docker:x:1001:"),
                        Args.of("name", "docker", "system", true), converged("group docker exists (gid 1001)")),
                row("changed: another gid", groups("docker:x:999:alice"), Args.of("name", "docker", "gid", 1500),
                        planned("exec [groupmod, -g, 1500, docker]")),
                row("absent: removes", groups("docker:x:999:"), Args.of("name", "docker", "state", "absent"), planned("exec [groupdel, docker]")),
                row("absent: force", groups("docker:x:999:"), Args.of("name", "docker", "state", "absent", "force", true),
                        planned("exec [groupdel, -f, docker]")),
                row("absent: already", groups(), Args.of("name", "docker", "state", "absent"), converged("group docker does not exist")),
                // invalid input
                row("a gid another group holds", groups("sudo:x:27:alice"), Args.of("name", "docker", "gid", 27),
                        fails("gid 27 belongs to group sudo; choose another gid, or set non_unique: true to share it")),
                row("a negative gid", groups(), Args.of("name", "docker", "gid", -1), fails("gid must be between 0 and 4294967294, got -1")),
                row("a gid that is no number", groups(), Args.of("name", "docker", "gid", "ten"), fails("parameter 'gid' must be an integer")),
                row("a bad state", groups(), Args.of("name", "docker", "state", "gone"), fails("must be one of: present, absent")),
                row("an unknown parameter", groups(), Args.of("name", "docker", "members", List.of("alice")),
                        fails("unsupported parameter 'members'")),
                row("no name", groups(), Args.of("gid", 10), fails("missing required parameter 'name'")),
                row("getent fails", new FakeHost().probe(1, "", "Unknown database: group\n", "getent", "group", "docker"),
                        Args.of("name", "docker"), fails("getent group docker failed (exit 1): Unknown database: group")),
                // injection attempts: never an option, never a second word, never a new line of /etc/group
                row("injection: a name that is an option", groups(), Args.of("name", "-o"), fails("name '-o' is not a valid name")),
                row("injection: a name with a blank", groups(), Args.of("name", "docker -g 0"), fails("name 'docker -g 0' is not a valid name")),
                row("injection: shell syntax", groups(), Args.of("name", "docker;reboot"), fails("name 'docker;reboot' is not a valid name")),
                row("injection: a new line", groups(), Args.of("name", "docker\nroot:x:0:"), fails("name 'docker\\nroot:x:0:' is not a valid name")),
                row("injection: a colon", groups(), Args.of("name", "docker:x:0"), fails("is not a valid name")),
                row("a numeric name (it would be read as a gid)", groups(), Args.of("name", "1000"), fails("name '1000' is not a valid name")),
                row("a name longer than 32 characters", groups(), Args.of("name", "a".repeat(33)), fails("at most 32 characters")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void theDiffAndSummarySayWhatChanges() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "docker", "gid", 1500)),
                new FakeContext(groups("docker:x:999:alice"), controller));
        assertEquals("change group docker: gid: 999 -> 1500", plan.changes().getFirst().summary());
        assertEquals("gid: 999\n", plan.changes().getFirst().diffs().getFirst().before());
        assertEquals("gid: 1500\n", plan.changes().getFirst().diffs().getFirst().after());
    }

    @Test
    void aCreatedGroupIsWhatALaterProbeOfTheDryRunSees() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "docker")), new FakeContext(groups(), controller));
        assertEquals(new ProbeResult(0, "docker:x::\n", ""), plan.afterwards().get(List.of("getent", "group", "docker")));
        Accounts.Group forecast = Accounts.parseGroup("docker:x::");
        assertTrue(forecast.gid().isEmpty(), "groupadd allocates the gid; the forecast does not guess it");
        Plan removed = module.plan(module.params().validate(Args.of("name", "docker", "state", "absent")),
                new FakeContext(groups("docker:x:999:"), controller));
        assertEquals(2, removed.afterwards().get(List.of("getent", "group", "docker")).exitCode());
    }

    @Test
    void theResultCarriesAnsiblesKeys() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "docker")), new FakeContext(groups("docker:x:999:"), controller));
        assertEquals(Map.of("name", "docker", "state", "present", "gid", 999L, "system", false), plan.result());
    }

    @Test
    void parsesRealGetentLines() {
        // getent group sudo / nogroup on Debian 12
        assertEquals(new Accounts.Group("sudo", java.util.OptionalLong.of(27), List.of("alice", "bob")), Accounts.parseGroup("sudo:x:27:alice,bob"));
        assertEquals(new Accounts.Group("nogroup", java.util.OptionalLong.of(65534), List.of()), Accounts.parseGroup("nogroup:x:65534:"));
    }
}
