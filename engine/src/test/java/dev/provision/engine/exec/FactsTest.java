package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FactsTest {
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
        Map<String, Object> f = Facts.parse(OUTPUT);
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
        assertEquals("Debian", Facts.osFamily("ubuntu", "debian"));
        assertEquals("RedHat", Facts.osFamily("rocky", "rhel centos fedora"));
        assertEquals("alpine", Facts.osFamily("alpine", ""));
    }

    @Test
    void survivesEmptyOutput() {
        Map<String, Object> f = Facts.parse("");
        assertEquals(0L, f.get("processor_count"));
        assertEquals("", f.get("default_ipv4"));
    }
}
