package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class PackageModuleTest extends ModuleTableTest<PackageModule> {
    private static final String INSTALL = "exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, install, -y, --no-install-recommends, ";
    private static final String UPDATE = "exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, update]";

    PackageModuleTest() {
        super(new PackageModule());
    }

    private static String[] argv(List<String> prefix, List<String> names) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(names);
        return all.toArray(String[]::new);
    }

    /** apt-cache policy: installed and candidate per name (null candidate: unknown to the lists). */
    private static void policy(FakeHost host, List<String> names, Map<String, String> installed, Map<String, String> candidates) {
        StringBuilder out = new StringBuilder();
        for (String n : names) {
            if (candidates.containsKey(n)) {
                out.append(n).append(":\n  Installed: ").append(installed.getOrDefault(n, "(none)")).append("\n  Candidate: ")
                        .append(candidates.get(n)).append("\n  Version table:\n     ").append(candidates.get(n)).append(" 500\n");
            }
        }
        host.probe(0, out.toString(), "", argv(List.of("apt-cache", "policy"), names));
    }

    /** An apt host: the database changes when the planned install or remove is applied. */
    static FakeHost apt(List<String> names, Map<String, String> installed, Map<String, String> candidates) {
        FakeHost host = new FakeHost().fact("pkg_mgr", "apt");
        AptModuleTest.dpkg(host, names, installed);
        List<String> missing = names.stream().filter(n -> !installed.containsKey(n) || !installed.get(n).equals(candidates.get(n))).toList();
        policy(host, names, installed, candidates);
        policy(host, missing, installed, candidates);
        Map<String, String> after = new java.util.LinkedHashMap<>(installed);
        names.forEach(n -> after.put(n, candidates.getOrDefault(n, "9.9")));
        host.onExec(List.of(argv(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "--no-install-recommends"), missing)),
                h -> {
                    AptModuleTest.dpkg(h, names, after);
                    policy(h, names, after, candidates);
                });
        host.onExec(List.of(argv(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "remove", "-y"),
                names.stream().filter(installed::containsKey).toList())), h -> AptModuleTest.dpkg(h, names, Map.of()));
        return host;
    }

    private static void rpm(FakeHost host, List<String> names, Map<String, String> installed) {
        StringBuilder out = new StringBuilder();
        int missing = 0;
        for (String n : names) {
            if (installed.containsKey(n)) {
                out.append(n).append(' ').append(installed.get(n)).append('\n');
            } else {
                out.append("package ").append(n).append(" is not installed\n");
                missing++;
            }
        }
        host.probe(missing, out.toString(), "", argv(List.of("rpm", "-q", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\\n"), names));
    }

    /** A dnf host; {@code updates} are the installed names with a newer version in the repositories. */
    static FakeHost dnf(List<String> names, Map<String, String> installed, List<String> updates) {
        FakeHost host = new FakeHost().fact("pkg_mgr", "dnf");
        rpm(host, names, installed);
        List<String> present = names.stream().filter(installed::containsKey).toList();
        StringBuilder out = new StringBuilder();
        updates.forEach(u -> out.append(u).append(".x86_64  9.9-1.el9  baseos\n"));
        host.probe(updates.isEmpty() ? 0 : 100, out.toString(), "", argv(List.of("dnf", "-q", "check-update"), present));
        Map<String, String> all = new java.util.LinkedHashMap<>(installed);
        names.forEach(n -> all.putIfAbsent(n, "1.0-1.el9"));
        List<String> missing = names.stream().filter(n -> !installed.containsKey(n)).toList();
        host.onExec(List.of(argv(List.of("dnf", "install", "-y"), missing)), h -> rpm(h, names, all));
        host.onExec(List.of(argv(List.of("dnf", "--refresh", "install", "-y"), missing)), h -> rpm(h, names, all));
        host.onExec(List.of(argv(List.of("dnf", "remove", "-y"), present)), h -> rpm(h, names, Map.of()));
        host.onExec(List.of(argv(List.of("dnf", "upgrade", "-y"), updates)), h -> h.probe(0, "", "", argv(List.of("dnf", "-q", "check-update"), present)));
        return host;
    }

    static Stream<Arguments> cases() {
        List<String> numactl = List.of("numactl");
        List<String> two = List.of("numactl", "chrony");
        return Stream.of(
                row("apt: installed", apt(numactl, Map.of("numactl", "2.0.16-1"), Map.of("numactl", "2.0.16-1")),
                        Args.of("name", "numactl"), converged("numactl 2.0.16-1 is installed")),
                row("apt: two installed", apt(two, Map.of("numactl", "2.0.16-1", "chrony", "4.3-2"), Map.of()),
                        Args.of("name", two), converged("numactl 2.0.16-1, chrony 4.3-2 are installed")),
                row("apt: install without refreshing when the lists know it", apt(numactl, Map.of(), Map.of("numactl", "2.0.16-1")),
                        Args.of("name", "numactl"), planned(INSTALL + "numactl]")),
                row("apt: refresh first when the lists do not know it", apt(numactl, Map.of(), Map.of()),
                        Args.of("name", "numactl"), planned(UPDATE, INSTALL + "numactl]")),
                row("apt: refresh first when an earlier task of a dry run changes the sources, whatever the old lists say",
                        apt(numactl, Map.of(), Map.of("numactl", "2.0.16-1")).pending("/etc/apt/sources.list.d/cluster.list"),
                        Args.of("name", "numactl"), planned(UPDATE, INSTALL + "numactl]")),
                row("apt: only the missing one is installed", apt(two, Map.of("chrony", "4.3-2"), Map.of("numactl", "2.0.16-1", "chrony", "4.3-2")),
                        Args.of("name", "numactl,chrony"), planned(INSTALL + "numactl]")),
                row("apt: config-files left is not installed", apt(List.of("oldconf"), Map.of(), Map.of("oldconf", "1.0")),
                        Args.of("name", "oldconf"), planned(INSTALL + "oldconf]")),
                row("apt: update_cache true refreshes before installing", apt(numactl, Map.of(), Map.of("numactl", "2.0.16-1")),
                        Args.of("name", "numactl", "update_cache", true), planned(UPDATE, INSTALL + "numactl]")),
                row("apt: update_cache true installs nothing when installed", apt(numactl, Map.of("numactl", "2.0.16-1"), Map.of()),
                        Args.of("name", "numactl", "update_cache", true), converged("numactl 2.0.16-1 is installed")),
                row("apt: update_cache false never refreshes", apt(numactl, Map.of(), Map.of()),
                        Args.of("name", "numactl", "update_cache", false), planned(INSTALL + "numactl]")),
                row("apt: remove", apt(numactl, Map.of("numactl", "2.0.16-1"), Map.of()),
                        Args.of("name", "numactl", "state", "absent"), planned("exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, remove, -y, numactl]")),
                row("apt: absent already", apt(numactl, Map.of(), Map.of()),
                        Args.of("name", "numactl", "state", "absent"), converged("numactl is not installed")),
                row("apt: latest upgrades", apt(numactl, Map.of("numactl", "2.0.14-3"), Map.of("numactl", "2.0.16-1")),
                        Args.of("name", "numactl", "state", "latest"), planned(INSTALL + "numactl]")),
                row("apt: latest already", apt(numactl, Map.of("numactl", "2.0.16-1"), Map.of("numactl", "2.0.16-1")),
                        Args.of("name", "numactl", "state", "latest"), converged("numactl 2.0.16-1 is the latest version in the package lists")),
                row("dnf: installed", dnf(numactl, Map.of("numactl", "2.0.16-3.el9"), List.of()),
                        Args.of("name", "numactl"), converged("numactl 2.0.16-3.el9 is installed")),
                row("dnf: install", dnf(numactl, Map.of(), List.of()), Args.of("name", "numactl"), planned("exec [dnf, install, -y, numactl]")),
                row("dnf: install with refresh", dnf(numactl, Map.of(), List.of()), Args.of("name", "numactl", "update_cache", "yes"),
                        planned("exec [dnf, --refresh, install, -y, numactl]")),
                row("dnf: remove", dnf(numactl, Map.of("numactl", "2.0.16-3.el9"), List.of()), Args.of("name", "numactl", "state", "absent"),
                        planned("exec [dnf, remove, -y, numactl]")),
                row("dnf: latest upgrades", dnf(numactl, Map.of("numactl", "2.0.14-1.el9"), List.of("numactl")),
                        Args.of("name", "numactl", "state", "latest"), planned("exec [dnf, upgrade, -y, numactl]")),
                row("dnf: latest already", dnf(numactl, Map.of("numactl", "2.0.16-3.el9"), List.of()),
                        Args.of("name", "numactl", "state", "latest"), converged("numactl 2.0.16-3.el9 is the latest version")),
                row("unsupported package manager", new FakeHost().fact("pkg_mgr", "zypper"), Args.of("name", "numactl"),
                        fails("package supports apt and dnf/yum; this host's package manager (facts.pkg_mgr) is zypper")),
                row("name that would be an option", apt(numactl, Map.of(), Map.of()), Args.of("name", "--purge"), fails("'--purge' is not a package name")),
                row("no names", apt(numactl, Map.of(), Map.of()), Args.of("name", List.of()), fails("name lists no package")),
                row("bad state", apt(numactl, Map.of(), Map.of()), Args.of("name", "numactl", "state", "installed"),
                        fails("must be one of: present, absent, latest")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void staleListsAreRefreshedAsTheirOwnChange() throws Exception {
        FakeHost host = apt(List.of("numactl"), Map.of("numactl", "2.0.16-1"), Map.of());
        host.probe(0, "90000\n", "", "sh", "-c", PackageModule.APT_CACHE_AGE);
        host.onExec(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "update"), h -> h.probe(0, "3\n", "", "sh", "-c", PackageModule.APT_CACHE_AGE));
        FakeContext context = new FakeContext(host, controller);
        Map<String, Object> args = Args.of("name", "numactl", "cache_valid_time", 3600);
        Plan plan = module.plan(module.params().validate(args), context);
        assertEquals(List.of(UPDATE), Expect.describe(plan));
        assertEquals("refresh apt package lists (package lists are older than 3600 s)", plan.changes().getFirst().summary());
        host.apply(plan);
        assertEquals("numactl 2.0.16-1 is installed", module.plan(module.params().validate(args), context).reason());
    }

    @Test
    void installDiffShowsVersionsBeforeAndAfter() throws Exception {
        FakeHost host = apt(List.of("numactl"), Map.of("numactl", "2.0.14-3"), Map.of("numactl", "2.0.16-1"));
        Plan plan = module.plan(module.params().validate(Args.of("name", "numactl", "state", "latest")), new FakeContext(host, controller));
        assertEquals(List.of(new Diff("packages", "numactl: 2.0.14-3\n", "numactl: 2.0.16-1\n")), plan.changes().getFirst().diffs());
    }

    @Test
    void readsCandidatesFromAptCachePolicy() {
        String out = "numactl:\n  Installed: (none)\n  Candidate: 2.0.16-1\n  Version table:\n     2.0.16-1 500\n"
                + "ghost:\n  Installed: (none)\n  Candidate: (none)\n";
        assertEquals(Map.of("numactl", "2.0.16-1"), PackageModule.parsePolicy(out));
    }
}
