package dev.provision.modules.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceFactsModuleTest {
    /** systemctl 252 (Debian 12) with --plain --no-legend: a failed unit, a not-found one, an active one. */
    private static final String SYSTEMD = String.join("\n", "--- units",
            "chrony.service                 loaded    active   running NTP client/server",
            "nvidia-persistenced.service    loaded    failed   failed  NVIDIA Persistence Daemon",
            "firewalld.service              not-found inactive dead    firewalld.service",
            "systemd-tmpfiles-setup.service loaded    active   exited  Create Volatile Files and Directories",
            "--- unit-files",
            "chrony.service                 enabled         enabled",
            "nvidia-persistenced.service    enabled         enabled",
            "ssh.service                    disabled        enabled",
            "systemd-tmpfiles-setup.service static          -", "");

    @TempDir
    Path controller;

    @Test
    void readsSystemdUnitsAsAnsibleReportsThem() {
        Map<String, Object> s = ServiceFactsModule.parse(SYSTEMD);
        assertEquals(Map.of("name", "chrony.service", "state", "running", "status", "enabled", "source", "systemd"), s.get("chrony.service"));
        assertEquals(Map.of("name", "nvidia-persistenced.service", "state", "stopped", "status", "failed", "source", "systemd"),
                s.get("nvidia-persistenced.service"), "a failed unit stays failed: the unit file's 'enabled' does not hide it (Ansible's rule)");
        assertEquals("not-found", ((Map<?, ?>) s.get("firewalld.service")).get("status"), "a bad load state is kept");
        assertEquals(Map.of("name", "ssh.service", "state", "inactive", "status", "disabled", "source", "systemd"), s.get("ssh.service"));
        assertEquals("stopped", ((Map<?, ?>) s.get("systemd-tmpfiles-setup.service")).get("state"));
        assertEquals("static", ((Map<?, ?>) s.get("systemd-tmpfiles-setup.service")).get("status"));
    }

    @Test
    void readsSysvServicesWhereSystemdIsNotInit() {
        Map<String, Object> s = ServiceFactsModule.parse("--- sysv\n [ + ]  ssh\n [ - ]  cron\n [ ? ]  hwclock.sh\n");
        assertEquals(Map.of("name", "ssh", "state", "running", "status", "unknown", "source", "sysv"), s.get("ssh"));
        assertEquals("stopped", ((Map<?, ?>) s.get("cron")).get("state"));
        assertEquals("unknown", ((Map<?, ?>) s.get("hwclock.sh")).get("state"));
    }

    @Test
    void theServicesBecomeAFactAndNothingChanges() throws Exception {
        ServiceFactsModule module = new ServiceFactsModule();
        FakeHost host = new FakeHost().probe(0, SYSTEMD, "", "sh", "-c", ServiceFactsModule.SCRIPT);
        Plan plan = module.plan(module.params().validate(Args.of()), new FakeContext(host, controller));
        assertEquals(true, plan.isEmpty());
        assertEquals("found 5 services", plan.reason());
        Map<?, ?> facts = (Map<?, ?>) plan.result().get(SetupModule.FACTS_RESULT);
        assertEquals(5, ((Map<?, ?>) facts.get("services")).size());
    }
}
