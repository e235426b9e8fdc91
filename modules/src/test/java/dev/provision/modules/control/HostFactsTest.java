package dev.provision.modules.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostFactsTest {
    private static final String OUTPUT = String.join("\n",
            "hostname=node07",
            "fqdn=node07.cluster",
            "kernel=6.1.0-18-amd64",
            "architecture=x86_64",
            "processor_count=16",
            "user=root",
            "service_mgr=none",
            "pkg_mgr=apt",
            "--- os-release",
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"",
            "ID=debian",
            "VERSION_ID=\"12\"",
            "--- meminfo",
            "MemTotal:       24576000 kB",
            "--- addresses",
            "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever",
            "2: eth0    inet 10.213.0.17/24 brd 10.213.0.255 scope global eth0\\       valid_lft forever",
            "--- mounts",
            "overlay /etc overlay rw,relatime 0 0",
            "server:/data /mnt/my\\040data fuse.sshfs rw 0 0",
            "");

    @Test
    void parsesEveryFactOfTheScript() {
        Map<String, Object> f = HostFacts.parse(OUTPUT);
        assertEquals("node07", f.get("hostname"));
        assertEquals(16L, f.get("processor_count"));
        assertEquals("debian", f.get("distribution"));
        assertEquals("12", f.get("distribution_version"));
        assertEquals("Debian", f.get("os_family"));
        assertEquals(24000L, f.get("memtotal_mb"));
        assertEquals(List.of("10.213.0.17"), f.get("all_ipv4_addresses"));
        assertEquals("10.213.0.17", f.get("default_ipv4"));
        assertEquals("apt", f.get("pkg_mgr"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> mounts = (List<Map<String, Object>>) f.get("mounts");
        assertEquals("/mnt/my data", mounts.get(1).get("mount"));
        assertEquals("fuse.sshfs", mounts.get(1).get("fstype"));
    }

    @Test
    void mapsDistributionsToTheirFamily() {
        assertEquals("Debian", HostFacts.osFamily("ubuntu", "debian"));
        assertEquals("RedHat", HostFacts.osFamily("rocky", "rhel centos fedora"));
        assertEquals("alpine", HostFacts.osFamily("alpine", ""));
    }

    @Test
    void survivesEmptyOutput() {
        Map<String, Object> f = HostFacts.parse("");
        assertEquals(0L, f.get("processor_count"));
        assertEquals("", f.get("default_ipv4"));
    }

    private static String b64(String s) {
        return java.util.Base64.getEncoder().encodeToString(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void readsLocalFactsAsAnsibleDoes() {
        String output = String.join("\n", "hostname=node07", "--- local",
                "exec:0 " + b64("{\"count\": 8, \"model\": \"H200\"}") + " gpus",
                "file " + b64("[general]\nName = rack4\n# note\nslot: 12\n") + " placement",
                "file " + b64("{\"a\": [1, 2]}") + " json file",
                "exec:3 " + b64("") + " broken",
                "file " + b64("not json\nnor ini") + " garbled", "");
        @SuppressWarnings("unchecked")
        Map<String, Object> local = (Map<String, Object>) HostFacts.parse(output).get("local");
        assertEquals(Map.of("count", 8, "model", "H200"), local.get("gpus"));
        assertEquals(Map.of("general", Map.of("name", "rack4", "slot", "12")), local.get("placement"), "INI keys lowercased, as configparser does");
        assertEquals(Map.of("a", List.of(1, 2)), local.get("json file"), "a name with a space survives");
        assertEquals("Failure executing fact script (broken.fact), rc: 3", local.get("broken"));
        assertEquals("error loading facts as JSON or ini - please check content: garbled.fact", local.get("garbled"));
    }

    @Test
    void theDefaultScriptIsWholeAndReadsTheDefaultFactPath() {
        assertTrue(HostFacts.SCRIPT.startsWith("printf 'hostname=%s\\n'"), HostFacts.SCRIPT);
        assertTrue(HostFacts.SCRIPT.contains("for f in /etc/ansible/facts.d/*.fact; do"), HostFacts.SCRIPT);
    }

    @Test
    void noLocalFactsIsAnEmptyMapping() {
        assertEquals(Map.of(), HostFacts.parse("hostname=a\n--- local\n").get("local"));
    }

    @Test
    void theScriptReadsLocalFactsFromTheQuotedFactPath() {
        String script = HostFacts.script("/srv/my facts;rm -rf /");
        assertTrue(script.contains("for f in '/srv/my facts;rm -rf /'/*.fact; do"), script);
    }
}
