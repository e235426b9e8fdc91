package dev.provision.modules.system;

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
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class SysctlModuleTest extends ModuleTableTest<SysctlModule> {
    private static final String FILE = SysctlModule.DEFAULT_FILE;
    private static final String RMEM = "net.core.rmem_max";

    SysctlModuleTest() {
        super(new SysctlModule());
    }

    /** A host whose kernel has the parameter at {@code live} and takes {@code value} when set. */
    static FakeHost kernel(FakeHost host, String name, String live, String value) {
        host.probe(0, live + "\n", "", "sysctl", "-n", name);
        host.onExec(setAndVerify(name, value), h -> h.probe(0, value.replace(' ', '\t') + "\n", "", "sysctl", "-n", name));
        return host;
    }

    static List<String> setAndVerify(String name, String value) {
        return List.of("sh", "-c", SysctlModule.SET_AND_VERIFY, "sh", name, value, SysctlModule.normalise(value));
    }

    static String exec(List<String> argv) {
        return "exec " + argv;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("converged: file and live value agree", kernel(new FakeHost().file(FILE, "net.core.rmem_max = 16777216\n"), RMEM, "16777216", "16777216"),
                        Args.of("name", RMEM, "value", "16777216"),
                        converged(FILE + " sets net.core.rmem_max = 16777216; sysctl net.core.rmem_max is set to 16777216")),
                row("converged with tabs in the live value", kernel(new FakeHost().file(FILE, "net.ipv4.tcp_rmem=4096  87380 16777216\n"),
                                "net.ipv4.tcp_rmem", "4096\t87380\t16777216", "4096 87380 16777216"),
                        Args.of("name", "net.ipv4.tcp_rmem", "value", "4096 87380 16777216"),
                        converged(FILE + " sets net.ipv4.tcp_rmem = 4096 87380 16777216; sysctl net.ipv4.tcp_rmem is set to 4096 87380 16777216")),
                row("creates the drop-in and sets the live value", kernel(new FakeHost().directory("/etc/sysctl.d"), RMEM, "212992", "16777216"),
                        Args.of("name", RMEM, "value", "16777216"),
                        planned("put " + FILE + " [0644 root root] \"net.core.rmem_max = 16777216\\n\"",
                                exec(setAndVerify(RMEM, "16777216")))),
                row("creates the sysctl.d directory when missing", kernel(new FakeHost().directory("/etc"), RMEM, "16777216", "16777216"),
                        Args.of("name", RMEM, "value", "16777216"),
                        planned("mkdir /etc/sysctl.d [0755 root root]", "put " + FILE + " [0644 root root] \"net.core.rmem_max = 16777216\\n\"")),
                row("modifies the file, keeps other keys", kernel(new FakeHost().file(FILE, "# tuning\nvm.swappiness = 1\nnet.core.rmem_max = 1\n"), RMEM, "1", "16777216"),
                        Args.of("name", RMEM, "value", "16777216"),
                        planned("put " + FILE + " [0644 root root] \"# tuning\\nvm.swappiness = 1\\nnet.core.rmem_max = 16777216\\n\"",
                                exec(setAndVerify(RMEM, "16777216")))),
                row("only the live value drifted", kernel(new FakeHost().file(FILE, "net.core.rmem_max = 16777216\n"), RMEM, "212992", "16777216"),
                        Args.of("name", RMEM, "value", "16777216"), planned(exec(setAndVerify(RMEM, "16777216")))),
                row("sysctl_set false writes the file and reloads it", new FakeHost().file(FILE, ""),
                        Args.of("name", RMEM, "value", "16777216", "sysctl_set", false),
                        planned("put " + FILE + " [0644 root root] \"net.core.rmem_max = 16777216\\n\"", "exec [sysctl, -p, " + FILE + "]")),
                row("sysctl_set and reload false write the file only", new FakeHost().file(FILE, ""),
                        Args.of("name", RMEM, "value", "1", "sysctl_set", false, "reload", false),
                        planned("put " + FILE + " [0644 root root] \"net.core.rmem_max = 1\\n\"")),
                row("absent removes the key", new FakeHost().file(FILE, "vm.swappiness = 1\nnet.core.rmem_max = 1\n"),
                        Args.of("name", RMEM, "state", "absent"), planned("put " + FILE + " [0644 root root] \"vm.swappiness = 1\\n\"")),
                row("absent when the key is not there", new FakeHost().file(FILE, "vm.swappiness = 1\n"),
                        Args.of("name", RMEM, "state", "absent"), converged(FILE + " does not set net.core.rmem_max")),
                row("absent without the file", new FakeHost(),
                        Args.of("name", RMEM, "state", "absent"), converged(FILE + " does not exist; net.core.rmem_max is not set there")),
                row("missing key fails", new FakeHost().file(FILE, "").probe(255, "", "sysctl: cannot stat /proc/sys/net/bogus: No such file or directory\n",
                                "sysctl", "-n", "net.bogus"),
                        Args.of("name", "net.bogus", "value", "1"), fails("net.bogus is not a kernel parameter on this host")),
                row("missing key with ignore_missing writes the file only", new FakeHost().file(FILE, "")
                                .probe(255, "", "sysctl: cannot stat /proc/sys/net/bogus: No such file or directory\n", "sysctl", "-n", "net.bogus"),
                        Args.of("name", "net.bogus", "value", "1", "ignore_missing", true),
                        planned("put " + FILE + " [0644 root root] \"net.bogus = 1\\n\"")),
                row("missing key ignored and file right", new FakeHost().file(FILE, "net.bogus = 1\n")
                                .probe(255, "", "sysctl: cannot stat /proc/sys/net/bogus: No such file or directory\n", "sysctl", "-n", "net.bogus"),
                        Args.of("name", "net.bogus", "value", "1", "ignore_missing", true),
                        converged(FILE + " sets net.bogus = 1; net.bogus is not in this kernel (ignore_missing): live value not set")),
                row("value required", new FakeHost(), Args.of("name", RMEM), fails("value is required with state=present")),
                row("name that would be an option", new FakeHost(), Args.of("name", "-a", "value", "1"), fails("is not a sysctl parameter name")),
                row("relative sysctl_file", new FakeHost(), Args.of("name", RMEM, "value", "1", "sysctl_file", "x.conf"), fails("must be an absolute path")),
                row("a value that is shell", new FakeHost(), Args.of("name", RMEM, "value", "10; touch x"),
                        fails("value of net.core.rmem_max '10; touch x' is not a kernel parameter value")),
                row("a value with a command substitution", new FakeHost(), Args.of("name", RMEM, "value", "$(reboot)"),
                        fails("is not a kernel parameter value")),
                row("other probe failure", new FakeHost().file(FILE, "").probe(1, "", "permission denied", "sysctl", "-n", RMEM),
                        Args.of("name", RMEM, "value", "1"), fails("cannot read net.core.rmem_max: sysctl -n exited 1: permission denied")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void liveChangeShowsBeforeAndAfterUnderItsOwnLabel() throws Exception {
        FakeHost host = kernel(new FakeHost().file(FILE, "net.core.rmem_max = 16777216\n"), RMEM, "212992", "16777216");
        Plan plan = module.plan(module.params().validate(Args.of("name", RMEM, "value", "16777216")), new FakeContext(host, controller));
        assertEquals(List.of(new Diff("sysctl net.core.rmem_max (live)", "212992\n", "16777216\n")), plan.changes().getFirst().diffs());
        assertEquals("set live net.core.rmem_max to 16777216 (was 212992)", plan.changes().getFirst().summary());
    }

    @Test
    void fileAndLiveAreTwoChangesWithTheFileDiffFirst() throws Exception {
        FakeHost host = kernel(new FakeHost().file(FILE, "vm.swappiness = 1\n"), RMEM, "1", "2");
        Plan plan = module.plan(module.params().validate(Args.of("name", RMEM, "value", "2")), new FakeContext(host, controller));
        assertEquals(2, plan.changes().size());
        assertEquals(new Diff(FILE, "vm.swappiness = 1\n", "vm.swappiness = 1\nnet.core.rmem_max = 2\n"), plan.changes().get(0).diffs().getFirst());
        assertEquals("set net.core.rmem_max = 2 in " + FILE, plan.changes().get(0).summary());
    }

    @Test
    void ignoredMissingKeySaysSoInTheSummaryAndReason() throws Exception {
        FakeHost host = new FakeHost().file(FILE, "").probe(255, "", "sysctl: cannot stat /proc/sys/net/bogus: No such file or directory\n",
                "sysctl", "-n", "net.bogus");
        Plan plan = module.plan(module.params().validate(Args.of("name", "net.bogus", "value", "1", "ignore_missing", true)),
                new FakeContext(host, controller));
        assertEquals("set net.bogus = 1 in " + FILE + " (file only: net.bogus is not in this kernel)", plan.changes().getFirst().summary());
        assertEquals("net.bogus is not in this kernel: file only (ignore_missing)", plan.reason());
    }

    @Test
    void valuesReachTheScriptOnlyAsPositionalParameters() throws Exception {
        // what a value may hold (core_pattern's pipe, quotes, a redirection sign), none of it shell
        String hostile = "|/usr/bin/x 'a b' > \"c\" %p";
        FakeHost host = kernel(new FakeHost().file(FILE, ""), RMEM, "1", hostile);
        Plan plan = module.plan(module.params().validate(Args.of("name", RMEM, "value", hostile)), new FakeContext(host, controller));
        String last = Expect.describe(plan).getLast();
        assertTrue(last.startsWith("exec [sh, -c, " + SysctlModule.SET_AND_VERIFY + ", sh, net.core.rmem_max, " + hostile), last);
        assertTrue(!SysctlModule.SET_AND_VERIFY.contains("/usr/bin/x"));
    }
}
