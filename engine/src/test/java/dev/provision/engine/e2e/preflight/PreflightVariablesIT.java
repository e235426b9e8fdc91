package dev.provision.engine.e2e.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.Provision.Result;
import dev.provision.engine.e2e.preflight.PreflightIT.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code playbooks/preflight.yml} reads its expectations, on this machine alone ({@code -i
 * localhost,}, no cluster): one inventory serves the bring-up and the checks.
 */
class PreflightVariablesIT {
    @TempDir
    Path tmp;

    @Test
    void storageCheckDefaultsToTheBringUpsSharedStoragePath() throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("scratch"));
        Path json = tmp.resolve("report.json");
        Result run = Provision.run("-i", "localhost,",
                "playbooks/preflight.yml", "-e", "preflight_checks=storage", "-e", "shared_storage_path=" + shared,
                "--json", json.toString());
        // A plain directory is not a mount: the check fails, and says which path it expected.
        assertEquals(2, run.exitCode(), run.output());
        Report report = Report.read(json);
        assertEquals(shared.toString(), report.row("localhost", "storage.mounted").expected(), run.output());
        assertEquals("fail", report.row("localhost", "storage.mounted").verdict(), run.output());
    }

    @Test
    void memlockExpectationComesFromMinMemlock() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "limits_check opens a login session with runuser: needs root");
        Path json = tmp.resolve("report.json");
        Result run = Provision.run("-i", "localhost,",
                "playbooks/preflight.yml", "-e", "preflight_checks=limits", "-e", "min_nofile=1", "-e", "min_memlock=64",
                "--json", json.toString());
        Report report = Report.read(json);
        assertEquals(">= 64 KiB", report.row("localhost", "limits.memlock").expected(), run.output());
    }
}
