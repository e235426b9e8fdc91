package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostParsersTest {

    @Test
    void ibstatPortsActiveAndDown() {
        List<IbStatus.Port> ports = IbStatus.parseIbstat(output("synthetic/ibstat-active-and-down.txt"));
        assertEquals(List.of(new IbStatus.Port("mlx5_0", 1, "Active", "LinkUp", 400, "InfiniBand"),
                new IbStatus.Port("mlx5_1", 1, "Down", "Disabled", 10, "InfiniBand")), ports);
        assertTrue(ports.get(0).up());
        assertFalse(ports.get(1).up());
    }

    @Test
    void sysfsPortsAreNormalisedToIbstatWords() {
        List<IbStatus.Port> ports = IbStatus.parseSysfs(output("synthetic/ib-sysfs.txt"));
        assertEquals(List.of(new IbStatus.Port("mlx5_0", 1, "Active", "LinkUp", 400, "InfiniBand"),
                new IbStatus.Port("mlx5_1", 1, "Down", "Polling", 10, "InfiniBand"),
                new IbStatus.Port("mlx5_2", 1, "Active", "LinkUp", 200, "Ethernet")), ports);
    }

    /** The probe script is valid sh and its output parses, whatever this machine's HCAs. */
    @Test
    void sysfsScriptRunsUnderSh() throws Exception {
        Process p = new ProcessBuilder("sh", "-c", IbStatus.SYSFS_SCRIPT).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertEquals(out.lines().filter(l -> l.startsWith("port=")).count(), IbStatus.parseSysfs(out).size());
    }

    @Test
    void hostWithoutIbToolsHasNoPorts() {
        ChecksFixtures.Capture c = ChecksFixtures.load("h200-1gpu/ibstat.txt");
        assertEquals(127, c.exitCode());
        assertEquals(List.of(), IbStatus.parseIbstat(c.output()));
    }

    @Test
    void ncclIbHcaWithoutEqualsMatchesByPrefix() {
        assertTrue(IbStatus.ncclIbHcaPitfall("mlx5_1,mlx5_2").orElseThrow().contains("NCCL_IB_HCA==mlx5_1,mlx5_2"));
        assertTrue(IbStatus.ncclIbHcaPitfall("^mlx5_1").orElseThrow().contains("NCCL_IB_HCA=^=mlx5_1"));
        assertEquals(Optional.empty(), IbStatus.ncclIbHcaPitfall("=mlx5_0:1,mlx5_1:1"));
        assertEquals(Optional.empty(), IbStatus.ncclIbHcaPitfall("^=mlx5_4"));
    }

    @Test
    void chronyTrackingSlowIsANegativeOffset() {
        ChronyTracking t = ChronyTracking.parse(output("synthetic/chronyc-tracking.txt"));
        assertEquals("0A0D0001 (10.213.0.1)", t.referenceId());
        assertEquals(3, t.stratum());
        assertEquals(-0.000012345, t.systemOffsetSeconds(), 1e-15);
        assertTrue(t.synchronised());
    }

    @Test
    void chronyNotSynchronised() {
        ChronyTracking t = ChronyTracking.parse(output("synthetic/chronyc-unsynchronised.txt"));
        assertFalse(t.synchronised());
        assertEquals(2.5, t.systemOffsetSeconds(), 1e-12);
    }

    @Test
    void chronyWithoutDaemonIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ChronyTracking.parse(output("synthetic/chronyc-no-daemon.txt")));
    }

    @Test
    void ulimitTableFromTheRealCapture() {
        assertEquals(new Ulimits("20000", "unlimited"), Ulimits.parse(output("h200-1gpu/ulimit.txt")));
    }

    @Test
    void ulimitTwoLinesAfterAMotd() {
        assertEquals(new Ulimits("1048576", "8192"), Ulimits.parse("Welcome to node01\n1048576\n8192\n"));
        assertTrue(Ulimits.atLeast("unlimited", 65535));
        assertFalse(Ulimits.atLeast("1024", 65535));
    }

    @Test
    void findmntOfTheRealRootAndOfAnNfsMount() {
        FindmntOutput root = FindmntOutput.parse(output("h200-1gpu/findmnt.txt")).orElseThrow();
        assertEquals("/", root.target());
        assertEquals("ext4", root.fstype());
        assertFalse(root.readOnly());
        FindmntOutput nfs = FindmntOutput.parse(output("synthetic/findmnt-nfs.txt")).orElseThrow();
        assertEquals(new FindmntOutput("/shared", "nfs1:/export/shared", "nfs4",
                List.of("rw", "relatime", "vers=4.2", "rsize=1048576", "wsize=1048576", "hard", "proto=tcp")), nfs);
        assertEquals("/my dir", FindmntOutput.parse("TARGET=\"/my\\x20dir\" SOURCE=\"x\" FSTYPE=\"nfs\" OPTIONS=\"ro\"\n").orElseThrow().target());
    }
}
