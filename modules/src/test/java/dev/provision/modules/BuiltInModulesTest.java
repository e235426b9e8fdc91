package dev.provision.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BuiltInModulesTest {

    @Test
    void serviceLoaderFindsEveryBuiltInModuleOnce() {
        List<TaskModule> modules = ServiceLoader.load(TaskModule.class).stream().map(ServiceLoader.Provider::get).toList();
        Set<String> names = new TreeSet<>();
        modules.forEach(m -> assertTrue(names.add(m.name()), "duplicate module name " + m.name()));
        assertEquals(Set.of("file", "copy", "template", "lineinfile", "blockinfile", "command", "shell",
                "assert", "fail", "debug", "ping", "set_fact", "sysctl", "limits", "service", "package", "apt", "dnf", "yum",
                "systemd", "systemd_service", "mount", "user", "group", "stat", "hosts",
                "authorized_key", "ssh_known_hosts", "image",
                "gpu", "cuda_stack", "nccl_bandwidth", "collective", "ib", "clock", "limits_check", "storage", "image_consistency", "dataset", "ssh_mesh",
                "gpu_fabric", "rdma", "checkpoint_storage", "toolchain", "include_vars", "hostname", "timezone", "raw", "modprobe", "gpu_acceptance", "dcgm_diag",
                "setup", "service_facts", "package_facts", "find", "fetch", "git", "reboot", "wait_for_connection", "stage",
                "get_url", "unarchive", "apt_repository", "yum_repository", "rpm_key", "meta",
                "firewalld", "seboolean", "sefcontext", "replace", "tempfile"), names);
    }

    @Test
    void everyModuleNameIsSnakeCase() {
        ServiceLoader.load(TaskModule.class).forEach(m -> assertTrue(m.name().matches("[a-z][a-z_]*"), m.name()));
    }
}
