package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code apt}, {@code dnf} and {@code yum}: Ansible's names over {@link PackageModule}'s planning. */
class AptModuleTest {
    private static final String APT_GET = "exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, ";
    private static final String UPDATE = APT_GET + "update]";
    private static final List<String> INSTALL = List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y");
    private static final List<String> REMOVE = List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "remove", "-y");
    private static final List<String> DPKG = List.of("dpkg-query", "-W", "-f=${Package} ${Status} ${Version}\\n");
    private static final TaskModule APT = new AptModule();
    private static final TaskModule DNF = new DnfModule();
    private static final TaskModule YUM = new YumModule();
    @TempDir
    Path controller;

    private static List<String> plus(List<String> prefix, String... more) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(more));
        return all;
    }

    /** dpkg's answer for {@code names}: installed versions, and {@code oldconf} removed with its configuration left; PackageModuleTest's too. */
    static void dpkg(FakeHost host, List<String> names, Map<String, String> installed) {
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        for (String n : names) {
            if (installed.containsKey(n)) {
                out.append(n).append(" install ok installed ").append(installed.get(n)).append('\n');
            } else if (n.equals("oldconf")) {
                out.append(n).append(" deinstall ok config-files 1.0\n");
            } else {
                err.append("dpkg-query: no packages found matching ").append(n).append('\n');
            }
        }
        host.probe(err.isEmpty() ? 0 : 1, out.toString(), err.toString(), plus(DPKG, names.toArray(String[]::new)).toArray(String[]::new));
    }

    /**
     * An apt host with the package {@code name} (and nothing else in the task): installed at
     * {@code installed} (null: not), its version table in the lists (the first is the candidate).
     */
    static FakeHost apt(String name, String installed, List<String> table) {
        FakeHost host = new FakeHost().fact("pkg_mgr", "apt");
        dpkg(host, List.of(name), installed == null ? Map.of() : Map.of(name, installed));
        StringBuilder policy = new StringBuilder();
        if (!table.isEmpty()) {
            policy.append(name).append(":\n  Installed: ").append(installed == null ? "(none)" : installed)
                    .append("\n  Candidate: ").append(table.getFirst()).append("\n  Version table:\n");
            for (String v : table) {
                policy.append(v.equals(installed) ? " *** " : "     ").append(v).append(" 500\n")
                        .append("        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n");
            }
        }
        host.probe(0, policy.toString(), "", "apt-cache", "policy", name);
        host.probe(0, policy.toString(), "", "apt-cache", "-o", "APT::Default-Release=bookworm-backports", "policy", name);
        return host;
    }

    /** What applying {@code argv} does: {@code name} is then at {@code version} (null: removed). */
    private static FakeHost then(FakeHost host, String name, String version, List<String> argv) {
        return host.onExec(argv, h -> dpkg(h, List.of(name), version == null ? Map.of() : Map.of(name, version)));
    }

    private static FakeHost installs(FakeHost host, String name, String version, String... options) {
        List<String> argv = plus(INSTALL, options);
        argv.add(version.isEmpty() ? name : name + "=" + version);
        return then(host, name, version.isEmpty() ? "2.0.16-1" : version, argv);
    }

    private static FakeHost listsAged(FakeHost host, long seconds) {
        host.probe(0, seconds + "\n", "", "sh", "-c", PackageModule.APT_CACHE_AGE);
        host.onExec(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "update"),
                h -> h.probe(0, "2\n", "", "sh", "-c", PackageModule.APT_CACHE_AGE));
        return host;
    }

    private static void rpm(FakeHost host, String name, String version) {
        host.probe(version == null ? 1 : 0, version == null ? "package " + name + " is not installed\n" : name + " " + version + "\n", "",
                "rpm", "-q", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\\n", name);
    }

    /** An RPM host ({@code pkg_mgr} dnf or yum) with {@code name} installed at {@code version} (null: not). */
    static FakeHost rpmHost(String manager, String name, String version) {
        FakeHost host = new FakeHost().fact("pkg_mgr", manager);
        rpm(host, name, version);
        return host;
    }

    private static FakeHost rpmThen(FakeHost host, String name, String version, String... argv) {
        return host.onExec(List.of(argv), h -> rpm(h, name, version));
    }

    static Stream<Arguments> cases() {
        List<String> v16 = List.of("2.0.16-1", "2.0.14-3");
        return Stream.of(
                // apt: install and remove
                row("apt: installed", APT, apt("numactl", "2.0.16-1", v16), Args.of("name", "numactl"), converged("numactl 2.0.16-1 is installed")),
                row("apt: install leaves recommends to apt's configuration", APT, installs(apt("numactl", null, v16), "numactl", ""),
                        Args.of("name", "numactl"), planned(APT_GET + "install, -y, numactl]")),
                row("apt: install_recommends false", APT, installs(apt("numactl", null, v16), "numactl", "", "--no-install-recommends"),
                        Args.of("name", "numactl", "install_recommends", false), planned(APT_GET + "install, -y, --no-install-recommends, numactl]")),
                row("apt: install_recommends true", APT, installs(apt("numactl", null, v16), "numactl", "", "-o", "APT::Install-Recommends=true"),
                        Args.of("name", "numactl", "install-recommends", "yes"),
                        planned(APT_GET + "install, -y, -o, APT::Install-Recommends=true, numactl]")),
                row("apt: refresh first when the lists do not know it", APT, installs(apt("numactl", null, List.of()), "numactl", ""),
                        Args.of("pkg", "numactl"), planned(UPDATE, APT_GET + "install, -y, numactl]")),
                row("apt: update_cache refreshes before installing", APT, installs(apt("numactl", null, v16), "numactl", ""),
                        Args.of("name", "numactl", "update_cache", true), planned(UPDATE, APT_GET + "install, -y, numactl]")),
                row("apt: stale lists are refreshed even when installed", APT, listsAged(apt("numactl", "2.0.16-1", v16), 90000),
                        Args.of("name", "numactl", "cache_valid_time", 3600), planned(UPDATE)),
                row("apt: latest upgrades", APT, installs(apt("numactl", "2.0.14-3", v16), "numactl", ""),
                        Args.of("name", "numactl", "state", "latest"), planned(APT_GET + "install, -y, numactl]")),
                row("apt: latest already", APT, apt("numactl", "2.0.16-1", v16), Args.of("name", "numactl", "state", "latest"),
                        converged("numactl 2.0.16-1 is the latest version in the package lists")),
                row("apt: remove", APT, then(apt("numactl", "2.0.16-1", v16), "numactl", null, plus(REMOVE, "numactl")),
                        Args.of("name", "numactl", "state", "absent"), planned(APT_GET + "remove, -y, numactl]")),
                row("apt: absent already", APT, apt("numactl", null, v16), Args.of("name", "numactl", "state", "absent"),
                        converged("numactl is not installed")),
                row("apt: purge removes the configuration too", APT, then(apt("numactl", "2.0.16-1", v16), "numactl", null, plus(REMOVE, "--purge", "numactl")),
                        Args.of("name", "numactl", "state", "absent", "purge", true), planned(APT_GET + "remove, -y, --purge, numactl]")),
                row("apt: purge of a package removed earlier with its configuration left", APT,
                        apt("oldconf", null, List.of("1.0")).onExec(plus(REMOVE, "--purge", "oldconf"),
                                h -> h.probe(1, "", "dpkg-query: no packages found matching oldconf\n", plus(DPKG, "oldconf").toArray(String[]::new))),
                        Args.of("name", "oldconf", "state", "absent", "purge", "yes"), planned(APT_GET + "remove, -y, --purge, oldconf]")),
                row("apt: configuration left is not installed without purge", APT, apt("oldconf", null, List.of("1.0")),
                        Args.of("name", "oldconf", "state", "absent"), converged("oldconf is not installed")),
                // apt: pins
                row("apt: pin held", APT, apt("numactl", "2.0.14-3", v16), Args.of("name", "numactl=2.0.14-3"), converged("numactl 2.0.14-3 is installed")),
                row("apt: pin installs that version", APT, installs(apt("numactl", null, v16), "numactl", "2.0.14-3"),
                        Args.of("name", "numactl=2.0.14-3"), planned(APT_GET + "install, -y, numactl=2.0.14-3]")),
                row("apt: pin moves an installed package to that version", APT, installs(apt("numactl", "2.0.14-3", v16), "numactl", "2.0.16-1"),
                        Args.of("name", List.of("numactl=2.0.16-1")), planned(APT_GET + "install, -y, numactl=2.0.16-1]")),
                row("apt: pin unknown to the lists refreshes first", APT, installs(apt("numactl", null, List.of("2.0.14-3")), "numactl", "2.0.18-1"),
                        Args.of("name", "numactl=2.0.18-1"), planned(UPDATE, APT_GET + "install, -y, numactl=2.0.18-1]")),
                row("apt: pin below the installed version with allow_downgrade", APT,
                        installs(apt("numactl", "2.0.16-1", v16), "numactl", "2.0.14-3", "--allow-downgrades"),
                        Args.of("name", "numactl=2.0.14-3", "allow_downgrade", true), planned(APT_GET + "install, -y, --allow-downgrades, numactl=2.0.14-3]")),
                row("apt: absent with a pin removes only that version", APT, apt("numactl", "2.0.16-1", v16),
                        Args.of("name", "numactl=2.0.14-3", "state", "absent"), converged("numactl 2.0.16-1 is installed, not 2.0.14-3")),
                row("apt: a pin with latest is refused", APT, apt("numactl", null, v16), Args.of("name", "numactl=2.0.16-1", "state", "latest"),
                        fails("'numactl=2.0.16-1' pins a version, and state latest asks for the newest")),
                row("apt: a wildcard pin is refused", APT, apt("numactl", null, v16), Args.of("name", "numactl=2.0*"),
                        fails("no wildcards; apt-cache policy numactl lists the versions")),
                // apt: options
                row("apt: default_release reads candidates and installs from that release", APT,
                        installs(apt("numactl", null, v16), "numactl", "", "-t", "bookworm-backports"),
                        Args.of("name", "numactl", "default_release", "bookworm-backports"),
                        planned(APT_GET + "install, -y, -t, bookworm-backports, numactl]")),
                row("apt: lock_timeout", APT, then(apt("numactl", null, v16), "numactl", "2.0.16-1",
                                List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-o", "DPkg::Lock::Timeout=120", "install", "-y", "numactl")),
                        Args.of("name", "numactl", "lock_timeout", 120), planned(APT_GET + "-o, DPkg::Lock::Timeout=120, install, -y, numactl]")),
                row("apt: force_apt_get is accepted", APT, apt("numactl", "2.0.16-1", v16), Args.of("name", "numactl", "force_apt_get", true),
                        converged("numactl 2.0.16-1 is installed")),
                // apt: the lists only
                row("apt: cache_valid_time alone, lists fresh", APT, listsAged(new FakeHost().fact("pkg_mgr", "apt"), 60),
                        Args.of("update_cache", true, "cache_valid_time", 3600), converged("the package lists are younger than 3600 s")),
                row("apt: cache_valid_time alone, lists stale", APT, listsAged(new FakeHost().fact("pkg_mgr", "apt"), 7200),
                        Args.of("cache_valid_time", 3600), planned(UPDATE)),
                row("action: apt update_cache alone refreshes every time", APT, new FakeHost().fact("pkg_mgr", "apt"),
                        Args.of("update_cache", "yes"), planned(UPDATE)),
                // apt: refused
                row("apt: neither name nor cache", APT, new FakeHost().fact("pkg_mgr", "apt"), Args.of("state", "present"),
                        fails("name lists no package; give name, or update_cache")),
                row("apt: deb is refused with what to do", APT, new FakeHost().fact("pkg_mgr", "apt"), Args.of("deb", "/tmp/x.deb"),
                        fails("parameter 'deb' is not supported: provision installs from the package lists only")),
                row("apt: autoremove is refused", APT, apt("numactl", "2.0.16-1", v16), Args.of("name", "numactl", "autoremove", true),
                        fails("parameter 'autoremove' is not supported: which dependencies become unused")),
                row("apt: autoremove no asks for nothing", APT, apt("numactl", "2.0.16-1", v16), Args.of("name", "numactl", "autoremove", "no"),
                        converged("numactl 2.0.16-1 is installed")),
                row("apt: upgrade is refused", APT, apt("numactl", "2.0.16-1", v16), Args.of("upgrade", "dist"),
                        fails("parameter 'upgrade' is not supported")),
                row("apt: state build-dep is refused", APT, apt("numactl", null, v16), Args.of("name", "numactl", "state", "build-dep"),
                        fails("state build-dep is not supported")),
                row("apt: unknown parameter", APT, apt("numactl", null, v16), Args.of("name", "numactl", "stat", "present"),
                        fails("unsupported parameter 'stat' (did you mean 'state'?)")),
                row("apt: on a dnf host", APT, rpmHost("dnf", "numactl", null), Args.of("name", "numactl"),
                        fails("apt manages Debian and Ubuntu packages; this host's package manager (facts.pkg_mgr) is dnf: use dnf or package")),
                row("apt: a name that would be an option", APT, apt("numactl", null, v16), Args.of("name", "--purge"), fails("'--purge' is not a package name")),
                // dnf and yum
                row("dnf: installed", DNF, rpmHost("dnf", "numactl", "2.0.16-3.el9"), Args.of("name", "numactl"),
                        converged("numactl 2.0.16-3.el9 is installed")),
                row("dnf: state installed installs", DNF, rpmThen(rpmHost("dnf", "numactl", null), "numactl", "2.0.16-3.el9", "dnf", "install", "-y", "numactl"),
                        Args.of("name", "numactl", "state", "installed"), planned("exec [dnf, install, -y, numactl]")),
                row("dnf: repositories and the GPG check", DNF,
                        rpmThen(rpmHost("dnf", "numactl", null), "numactl", "2.0.16-3.el9",
                                "dnf", "--disablerepo=*", "--enablerepo=site", "--enablerepo=site-extra", "--nogpgcheck", "install", "-y", "numactl"),
                        Args.of("name", "numactl", "disablerepo", "*", "enablerepo", "site,site-extra", "disable_gpg_check", true),
                        planned("exec [dnf, --disablerepo=*, --enablerepo=site, --enablerepo=site-extra, --nogpgcheck, install, -y, numactl]")),
                row("dnf: update_cache refreshes", DNF, rpmThen(rpmHost("dnf", "numactl", null), "numactl", "1.0-1", "dnf", "--refresh", "install", "-y", "numactl"),
                        Args.of("name", "numactl", "update_cache", true), planned("exec [dnf, --refresh, install, -y, numactl]")),
                row("dnf: state removed removes", DNF, rpmThen(rpmHost("dnf", "numactl", "2.0.16-3.el9"), "numactl", null, "dnf", "remove", "-y", "numactl"),
                        Args.of("name", "numactl", "state", "removed"), planned("exec [dnf, remove, -y, numactl]")),
                row("dnf: latest asks the enabled repositories", DNF,
                        rpmHost("dnf", "numactl", "2.0.14-1.el9").probe(100, "numactl.x86_64  2.0.16-3.el9  site\n", "",
                                "dnf", "-q", "--enablerepo=site", "check-update", "numactl")
                                .onExec(List.of("dnf", "--enablerepo=site", "upgrade", "-y", "numactl"),
                                        h -> h.probe(0, "", "", "dnf", "-q", "--enablerepo=site", "check-update", "numactl")),
                        Args.of("name", "numactl", "state", "latest", "enablerepo", List.of("site")),
                        planned("exec [dnf, --enablerepo=site, upgrade, -y, numactl]")),
                row("dnf: on a yum host", DNF, rpmHost("yum", "numactl", null), Args.of("name", "numactl"),
                        fails("this host has no dnf (facts.pkg_mgr is yum): use yum or package")),
                row("dnf: on an apt host", DNF, apt("numactl", null, v16), Args.of("name", "numactl"),
                        fails("dnf manages RPM packages; this host's package manager (facts.pkg_mgr) is apt: use apt or package")),
                row("dnf: an apt pin", DNF, rpmHost("dnf", "numactl", null), Args.of("name", "numactl=2.0.16"),
                        fails("name=version pins are apt's spelling; dnf takes the version in the name (numactl-2.0.16)")),
                row("dnf: security is refused", DNF, rpmHost("dnf", "numactl", null), Args.of("name", "numactl", "security", true),
                        fails("parameter 'security' is not supported")),
                row("dnf: a bad repository id", DNF, rpmHost("dnf", "numactl", null), Args.of("name", "numactl", "enablerepo", "--x"),
                        fails("enablerepo: '--x' is not a repository id")),
                row("yum: update_cache expires the cache first", YUM,
                        rpmThen(rpmHost("yum", "numactl", null), "numactl", "2.0.9-7.el7", "yum", "install", "-y", "numactl"),
                        Args.of("name", "numactl", "update_cache", true), planned("exec [yum, clean, expire-cache]", "exec [yum, install, -y, numactl]")),
                row("yum: on a dnf host runs dnf", YUM, rpmThen(rpmHost("dnf", "numactl", null), "numactl", "2.0.16-3.el9", "dnf", "install", "-y", "numactl"),
                        Args.of("name", "numactl"), planned("exec [dnf, install, -y, numactl]")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, TaskModule module, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(host, controller), args, expect);
    }

    static Stream<Arguments> plannedCases() {
        return Table.plannedStates(cases());
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("plannedCases")
    void plansNothingOnceThePlanIsApplied(String name, TaskModule module, FakeHost host, Map<String, Object> args, Expect expect) throws Exception {
        Expect.checkIdempotent(module, new FakeContext(host, controller), args, host);
    }

    @Test
    void anInstallSaysWhatDpkgAnswersAfterwards() throws Exception {
        FakeHost host = apt("numactl", null, List.of("2.0.16-1"));
        Plan plan = APT.plan(APT.params().validate(Args.of("name", "numactl")), new FakeContext(host, controller));
        assertEquals(Map.of(plus(DPKG, "numactl"), new ProbeResult(0, "numactl install ok installed 2.0.16-1\n", "")), plan.afterwards());
    }

    @Test
    void readsTheVersionTable() {
        String out = "numactl:\n  Installed: 2.0.14-3\n  Candidate: 2.0.16-1\n  Version table:\n     2.0.16-1 500\n"
                + "        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n *** 2.0.14-3 100\n        100 /var/lib/dpkg/status\n";
        assertEquals(Map.of("numactl", new PackageModule.Policy(java.util.Optional.of("2.0.16-1"), List.of("2.0.16-1", "2.0.14-3"))),
                PackageModule.parsePolicyTable(out));
    }

    @Test
    void theDocPageNamesEveryRefusedParameterWithItsReason() {
        Map<String, String> refused = new LinkedHashMap<>(APT.params().refused());
        assertTrue(refused.get("deb").contains("apt repository"), refused.toString());
        assertTrue(DNF.params().refused().containsKey("autoremove"));
        assertEquals(DNF.params().params().keySet(), YUM.params().params().keySet());
    }
}
