package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class LimitsModuleTest extends ModuleTableTest<LimitsModule> {
    private static final String DEST = LimitsModule.DEFAULT_DEST;
    private static final String SYSTEMD = LimitsModule.SYSTEMD_DROP_IN;
    private static final String HEADER = "# Resource limits managed by provision; lines for the same domain, type and item are replaced.\\n";
    private static final String SYSTEMD_HEADER = "# Default resource limits for services, managed by provision.\\n[Manager]\\n";

    LimitsModuleTest() {
        super(new LimitsModule());
    }

    private static Map<String, Object> items(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static FakeHost noInit() {
        return new FakeHost().fact("service_mgr", "none").directory("/etc/security/limits.d");
    }

    private static FakeHost systemd() {
        return new FakeHost().fact("service_mgr", "systemd").directory("/etc/security/limits.d");
    }

    static Stream<Arguments> cases() {
        String clusterLines = "* soft nofile 1048576\n* hard nofile 1048576\n* soft memlock unlimited\n* hard memlock unlimited\n";
        return Stream.of(
                row("creates the drop-in without systemd", noInit(),
                        Args.of("items", items("nofile", 1048576, "memlock", "unlimited")),
                        planned("put " + DEST + " [0644 root root] \"" + HEADER + "* soft nofile 1048576\\n* hard nofile 1048576\\n"
                                + "* soft memlock unlimited\\n* hard memlock unlimited\\n\"")),
                row("converged without systemd", noInit().file(DEST, clusterLines),
                        Args.of("items", items("nofile", 1048576, "memlock", "unlimited")),
                        converged(DEST + " sets * nofile (soft 1048576, hard 1048576), memlock (soft unlimited, hard unlimited)")),
                row("with systemd also the manager defaults and a re-exec", systemd(),
                        Args.of("items", items("nofile", 1048576, "memlock", "unlimited")),
                        planned("put " + DEST + " [0644 root root] \"" + HEADER + "* soft nofile 1048576\\n* hard nofile 1048576\\n"
                                        + "* soft memlock unlimited\\n* hard memlock unlimited\\n\"",
                                "mkdir /etc/systemd/system.conf.d [0755 root root]",
                                "put " + SYSTEMD + " [0644 root root] \"" + SYSTEMD_HEADER + "DefaultLimitMEMLOCK=infinity\\nDefaultLimitNOFILE=1048576\\n\"",
                                "exec [systemctl, daemon-reexec]")),
                row("converged with systemd", systemd().file(DEST, clusterLines)
                                .file(SYSTEMD, "# Default resource limits for services, managed by provision.\n[Manager]\nDefaultLimitMEMLOCK=infinity\nDefaultLimitNOFILE=1048576\n"),
                        Args.of("items", items("nofile", 1048576, "memlock", "unlimited")),
                        converged(DEST + " sets * nofile (soft 1048576, hard 1048576), memlock (soft unlimited, hard unlimited); "
                                + SYSTEMD + " sets DefaultLimitMEMLOCK=infinity, DefaultLimitNOFILE=1048576")),
                row("modifies a value in place and keeps other lines", noInit().file(DEST, "# local\n@admin hard nproc 10\n* soft nofile 1024\n* hard nofile 4096\n"),
                        Args.of("items", items("nofile", 65535)),
                        planned("put " + DEST + " [0644 root root] \"# local\\n@admin hard nproc 10\\n* soft nofile 65535\\n* hard nofile 65535\\n\"")),
                row("drops a later duplicate that would win", noInit().file(DEST, "* soft nofile 65535\n* hard nofile 65535\n* soft nofile 1024\n"),
                        Args.of("items", items("nofile", 65535)),
                        planned("put " + DEST + " [0644 root root] \"* soft nofile 65535\\n* hard nofile 65535\\n\"")),
                row("single limit with Ansible's names", noInit().file(DEST, ""),
                        Args.of("domain", "@gpu", "limit_type", "soft", "limit_item", "nproc", "value", 65535),
                        planned("put " + DEST + " [0644 root root] \"@gpu soft nproc 65535\\n\"")),
                row("single soft limit adds nothing to systemd", systemd().file(DEST, ""),
                        Args.of("limit_type", "soft", "limit_item", "nofile", "value", 65535),
                        planned("put " + DEST + " [0644 root root] \"* soft nofile 65535\\n\"")),
                row("systemd file drifted alone", systemd().file(DEST, "* soft nproc 65535\n* hard nproc 65535\n")
                                .file(SYSTEMD, "[Manager]\nDefaultLimitNPROC=100\n"),
                        Args.of("limit_item", "nproc", "value", 65535),
                        planned("put " + SYSTEMD + " [0644 root root] \"" + SYSTEMD_HEADER + "DefaultLimitNPROC=65535\\n\"",
                                "exec [systemctl, daemon-reexec]")),
                row("unknown item", noInit(), Args.of("items", items("nofiles", 1)), fails("'nofiles' is not a pam_limits item")),
                row("bad value", noInit(), Args.of("items", items("nofile", "lots")), fails("value of nofile must be a number or unlimited")),
                row("items and limit_item together", noInit(), Args.of("items", items("nofile", 1), "limit_item", "nofile"),
                        fails("mutually exclusive")),
                row("neither items nor limit_item", noInit(), Args.of("domain", "*"), fails("one of these parameters is required")),
                row("limit_item without value", noInit(), Args.of("limit_item", "nofile"), fails("value is required with limit_item")),
                row("domain with a blank", noInit(), Args.of("domain", "a b", "limit_item", "nofile", "value", 1), fails("must be one word")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void twoTasksShareTheDropInWithoutUndoingEachOther() throws Exception {
        FakeHost host = systemd();
        FakeContext context = new FakeContext(host, controller);
        Map<String, Object> nofile = Args.of("items", items("nofile", 65535));
        Map<String, Object> memlock = Args.of("items", items("memlock", "unlimited"));
        host.apply(module.plan(module.params().validate(nofile), context));
        host.apply(module.plan(module.params().validate(memlock), context));
        assertTrue(module.plan(module.params().validate(nofile), context).isEmpty());
        assertTrue(module.plan(module.params().validate(memlock), context).isEmpty());
        assertEquals("# Default resource limits for services, managed by provision.\n[Manager]\nDefaultLimitNOFILE=65535\nDefaultLimitMEMLOCK=infinity\n",
                host.text(SYSTEMD).orElseThrow());
    }

    @Test
    void differingSoftAndHardBecomeSoftColonHardForSystemd() throws Exception {
        FakeHost host = systemd().file(DEST, "* soft nofile 1024\n");
        FakeContext context = new FakeContext(host, controller);
        host.apply(module.plan(module.params().validate(Args.of("limit_type", "hard", "limit_item", "nofile", "value", 524288)), context));
        assertTrue(host.text(SYSTEMD).isEmpty(), "a single side is not written to systemd");
        host.apply(module.plan(module.params().validate(Args.of("items", items("nofile", 1024))), context));
        assertTrue(host.text(SYSTEMD).orElseThrow().contains("DefaultLimitNOFILE=1024\n"));
    }

    @Test
    void reexecFollowsTheSystemdFileChange() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("items", items("nofile", 65535))), new FakeContext(systemd(), controller));
        assertEquals("re-execute systemd so that new services get the default limits", plan.changes().getLast().summary());
        assertEquals("create " + DEST + " (mode 0644, owner root, group root)", plan.changes().getFirst().summary());
    }
}
