package dev.provision.engine.exec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The facts provision gathers under Ansible's names and with Ansible's values, for playbooks that
 * come from Ansible: {@code ansible_facts.distribution == "Debian"} (Ansible capitalises, where
 * provision's {@code facts.distribution} is os-release's {@code debian}), and the top-level
 * {@code ansible_hostname}, {@code ansible_os_family}, ... that Ansible injects beside them.
 */
final class AnsibleFacts {
    /** os-release IDs whose Ansible name is not the ID with a capital letter. */
    private static final Map<String, String> DISTRIBUTIONS = Map.ofEntries(
            Map.entry("rhel", "RedHat"), Map.entry("centos", "CentOS"), Map.entry("almalinux", "AlmaLinux"),
            Map.entry("ol", "OracleLinux"), Map.entry("amzn", "Amazon"), Map.entry("sles", "SLES"),
            Map.entry("opensuse-leap", "openSUSE Leap"), Map.entry("opensuse-tumbleweed", "openSUSE Tumbleweed"),
            Map.entry("arch", "Archlinux"), Map.entry("rocky", "Rocky"), Map.entry("pop", "Pop!_OS"));

    private AnsibleFacts() {
    }

    /** {@code ansible_facts} for {@code facts} (provision's); empty before facts are gathered. */
    static Map<String, Object> of(Map<String, Object> facts) {
        Map<String, Object> a = new LinkedHashMap<>();
        if (facts.isEmpty()) {
            return a;
        }
        copy(facts, a, "hostname", "hostname");
        copy(facts, a, "fqdn", "fqdn");
        copy(facts, a, "kernel", "kernel");
        copy(facts, a, "architecture", "architecture");
        copy(facts, a, "processor_count", "processor_vcpus");
        copy(facts, a, "memtotal_mb", "memtotal_mb");
        copy(facts, a, "pkg_mgr", "pkg_mgr");
        copy(facts, a, "service_mgr", "service_mgr");
        copy(facts, a, "os_family", "os_family");
        copy(facts, a, "distribution_version", "distribution_version");
        copy(facts, a, "distribution_major_version", "distribution_major_version");
        copy(facts, a, "all_ipv4_addresses", "all_ipv4_addresses");
        copy(facts, a, "user", "user_id");
        copy(facts, a, "mounts", "mounts");
        copy(facts, a, "local", "local");
        copy(facts, a, "services", "services");
        copy(facts, a, "packages", "packages");
        a.put("distribution", distribution(String.valueOf(facts.getOrDefault("distribution", ""))));
        // Ansible takes Debian's point release from /etc/debian_version (12.11), not os-release (12)
        Object debian = facts.get("debian_version");
        if ("debian".equals(facts.get("distribution")) && debian != null && debian.toString().matches("\\d+\\.\\d+")) {
            a.put("distribution_version", debian.toString());
        }
        a.put("system", "Linux");
        Object address = facts.get("default_ipv4");
        a.put("default_ipv4", address == null || address.toString().isEmpty() ? Map.of() : Map.of("address", address));
        return a;
    }

    /** The top-level variables Ansible injects from its facts ({@code ansible_hostname}, ...). */
    static Map<String, Object> injected(Map<String, Object> ansibleFacts) {
        Map<String, Object> vars = new LinkedHashMap<>();
        for (String name : List.of("hostname", "fqdn", "kernel", "architecture", "processor_vcpus", "memtotal_mb", "pkg_mgr",
                "service_mgr", "os_family", "distribution", "distribution_version", "distribution_major_version",
                "all_ipv4_addresses", "default_ipv4", "system", "mounts", "local", "services", "packages")) {
            if (ansibleFacts.containsKey(name)) {
                vars.put("ansible_" + name, ansibleFacts.get(name));
            }
        }
        return vars;
    }

    static String distribution(String id) {
        String lower = id.toLowerCase(Locale.ROOT);
        String known = DISTRIBUTIONS.get(lower);
        if (known != null) {
            return known;
        }
        return lower.isEmpty() || lower.equals("unknown") ? "NA" : Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    }

    private static void copy(Map<String, Object> from, Map<String, Object> to, String ours, String theirs) {
        Object v = from.get(ours);
        if (v != null) {
            to.put(theirs, v);
        }
    }
}
