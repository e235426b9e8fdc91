package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertDetail;
import dev.provision.modules.spi.Verdict;
import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.load;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageCheckModuleTest {
    private static final long NOW = 1796218580L;
    private final StorageCheckModule module = new StorageCheckModule(() -> Instant.ofEpochSecond(NOW));
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static FakeHost nfs() {
        return new FakeHost()
                .probe(FindmntOutput.command("/shared"), new ProbeResult(0, load("synthetic/findmnt-nfs.txt").output(), ""))
                .probe(List.of("test", "-w", "/shared"), new ProbeResult(0, "", ""));
    }

    @Test
    void mountedWritableSharePassesWithoutChanges() throws Exception {
        Plan plan = plan(nfs(), Args.of("path", "/shared", "fstype", "nfs4"));
        assertFalse(failed(plan), plan.reason());
        assertTrue(plan.isEmpty());
        assertVerdict(plan, "storage.fstype", Verdict.PASS);
    }

    @Test
    void unmountedPathFailsAndWritesNoMarker() throws Exception {
        FakeHost host = new FakeHost()
                .probe(FindmntOutput.command("/shared"), load("h200-1gpu/findmnt.txt").probe())
                .probe(List.of("test", "-w", "/shared"), new ProbeResult(0, "", ""));
        Plan plan = plan(host, Args.of("path", "/shared", "write_marker", true));
        assertVerdict(plan, "storage.mounted", Verdict.FAIL);
        assertDetail("/shared is on /, not a filesystem mounted at /shared", row(plan, "storage.mounted").get("detail"));
        assertTrue(plan.isEmpty(), "a marker would land on the local disk");
    }

    @Test
    void markerWriteIsTheOneChangeAndSaysItIsACheckWrite() throws Exception {
        Plan plan = plan(nfs(), Args.of("path", "/shared", "write_marker", true));
        assertEquals(List.of("put /shared/.provision-preflight-fake [0644 - -] \"provision-preflight fake 1796218580\\n\""),
                Expect.describe(plan));
        assertTrue(plan.changes().get(0).summary().startsWith("check write: "));
    }

    @Test
    void markersFromPeersAreReadBackAndMustBeFresh() throws Exception {
        FakeHost host = nfs()
                .file("/shared/.provision-preflight-node01", "provision-preflight node01 " + (NOW - 30) + "\n")
                .file("/shared/.provision-preflight-node02", "provision-preflight node02 " + (NOW - 86400) + "\n");
        Plan plan = plan(host, Args.of("path", "/shared", "read_markers_from", List.of("node01", "node02", "node03")));
        assertVerdict(plan, "storage.readback.node01", Verdict.PASS);
        assertVerdict(plan, "storage.readback.node02", Verdict.FAIL);
        assertVerdict(plan, "storage.readback.node03", Verdict.FAIL);
        assertEquals("missing", row(plan, "storage.readback.node03").get("measured"));
    }

    @Test
    void readBackTaskListsOnlyTheMarkersSoAMountFaultIsReportedOnce() throws Exception {
        FakeHost host = nfs().file("/shared/.provision-preflight-node01", "provision-preflight node01 " + NOW + "\n");
        Plan plan = plan(host, Args.of("path", "/shared", "read_markers_from", List.of("node01")));
        assertEquals(List.of("storage.readback.node01"), List.copyOf(ChecksFixtures.rows(plan).keySet()));
    }

    @Test
    void readBackOnAnUnmountedNodeIsOneRowBlamingTheMount() throws Exception {
        FakeHost host = new FakeHost()
                .probe(FindmntOutput.command("/shared"), load("h200-1gpu/findmnt.txt").probe())
                .probe(List.of("test", "-w", "/shared"), new ProbeResult(0, "", ""));
        Plan plan = plan(host, Args.of("path", "/shared", "read_markers_from", List.of("node01", "node02")));
        assertEquals(List.of("storage.readback"), List.copyOf(ChecksFixtures.rows(plan).keySet()));
        assertVerdict(plan, "storage.readback", Verdict.FAIL);
        assertDetail("/shared is not mounted on this node", row(plan, "storage.readback").get("detail"));
        assertEquals("markers from 2 hosts", row(plan, "storage.readback").get("expected"));
    }

    @Test
    void readOnlyMountIsNotWritable() throws Exception {
        FakeHost host = new FakeHost()
                .probe(FindmntOutput.command("/shared"), new ProbeResult(0, "TARGET=\"/shared\" SOURCE=\"nfs1:/x\" FSTYPE=\"nfs4\" OPTIONS=\"ro,relatime\"\n", ""))
                .probe(List.of("test", "-w", "/shared"), new ProbeResult(1, "", ""));
        Plan plan = plan(host, Args.of("path", "/shared"));
        assertVerdict(plan, "storage.writable", Verdict.FAIL);
        assertDetail("mounted read-only", row(plan, "storage.writable").get("detail"));
    }

    @Test
    void relativePathAndOddPeerNamesAreRefused() {
        assertThrows(ModuleException.class, () -> plan(new FakeHost(), Args.of("path", "shared")));
        assertThrows(ModuleException.class, () -> plan(nfs(), Args.of("path", "/shared", "read_markers_from", List.of("../etc"))));
    }
}
