package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ansible's fact names and values, from what provision gathers. The Debian values are the ones
 * {@code ansible localhost -m setup} (ansible-core 2.14) printed on this Debian 12.11 machine.
 */
class AnsibleFactsTest {
    @Test
    void distributionsAreNamedAsAnsibleNamesThem() {
        assertEquals("Debian", AnsibleFacts.distribution("debian"));
        assertEquals("Ubuntu", AnsibleFacts.distribution("ubuntu"));
        assertEquals("RedHat", AnsibleFacts.distribution("rhel"));
        assertEquals("CentOS", AnsibleFacts.distribution("centos"));
        assertEquals("Rocky", AnsibleFacts.distribution("rocky"));
        assertEquals("NA", AnsibleFacts.distribution("unknown"));
    }

    @Test
    void factsAppearUnderAnsibleFactsAndAsInjectedVariables() {
        Map<String, Object> facts = dev.provision.modules.control.HostFacts.parse("""
                hostname=node01
                debian_version=12.11
                processor_count=16
                service_mgr=systemd
                pkg_mgr=apt
                --- os-release
                ID=debian
                VERSION_ID="12"
                --- addresses
                2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0
                """);
        Map<String, Object> ansible = AnsibleFacts.of(facts);
        assertEquals("Debian", ansible.get("distribution"));
        assertEquals("Debian", ansible.get("os_family"));
        assertEquals("12", ansible.get("distribution_major_version"));
        assertEquals("12.11", ansible.get("distribution_version"), "as Ansible 2.14 reports it on this Debian 12.11 machine");
        assertEquals(16L, ansible.get("processor_vcpus"));
        assertEquals(Map.of("address", facts.get("default_ipv4")), ansible.get("default_ipv4"));
        Map<String, Object> injected = AnsibleFacts.injected(ansible);
        assertEquals("node01", injected.get("ansible_hostname"));
        assertEquals("Debian", injected.get("ansible_distribution"));
        assertEquals(List.of("ansible_hostname"), injected.keySet().stream().filter(k -> k.equals("ansible_hostname")).toList());
    }
}
