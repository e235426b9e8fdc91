package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.output;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class VersionParsersTest {

    @Test
    void driverVersionFromProc() {
        assertEquals(Optional.of("580.159.04"), DriverVersion.parse(output("h200-1gpu/driver-version.txt")));
        assertEquals(Optional.of("535.104.05"), DriverVersion.parse(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"));
        assertEquals(Optional.empty(), DriverVersion.parse(""));
    }

    @Test
    void toolkitReleaseFromNvcc() {
        assertEquals(Optional.of("13.0"), NvccVersion.parse(output("h200-1gpu/nvcc.txt")));
    }

    @Test
    void torchVersionsFromTheOneLineCapture() {
        TorchVersions t = TorchVersions.parse(output("h200-1gpu/torch.txt"));
        assertEquals(new TorchVersions("2.11.0+cu130", "13.0", "9.19.0", "2.28.9", true, 1), t);
    }

    @Test
    void torchVersionsFromTheScriptsKeyValueLines() {
        TorchVersions t = TorchVersions.parse(output("h200-1gpu/torch-versions.txt"));
        assertEquals(new TorchVersions("2.11.0+cu130", "13.0", "9.19.0", "2.28.9", true, 1), t);
    }

    @Test
    void cpuBuildHasNoCuda() {
        TorchVersions t = TorchVersions.parse("torch=2.4.0+cpu\ncuda=None\ncudnn=None\nnccl=None\ncuda_available=False\ndevice_count=0\n");
        assertEquals("", t.cuda());
        assertEquals("", t.cudnn());
        assertEquals("", t.nccl());
        assertFalse(t.cudaAvailable());
    }

    @Test
    void missingTorchIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TorchVersions.parse("error=No module named 'torch'\n"));
        assertTrue(e.getMessage().contains("No module named 'torch'"), e.getMessage());
    }

    @Test
    void versionCodesBecomeDotted() {
        assertEquals("9.19.0", TorchVersions.cudnn("91900"));
        assertEquals("8.9.2", TorchVersions.cudnn("8902"));
        assertEquals("2.28.9", TorchVersions.nccl("(2, 28, 9)"));
        assertEquals("2.18.1", TorchVersions.nccl("21801"));
        assertEquals("2.7.8", TorchVersions.nccl("2708"));
    }

    @Test
    void versionsCompareNumerically() {
        assertTrue(Versions.compare("13.0", "12.9") > 0);
        assertTrue(Versions.compare("12.10", "12.9") > 0, "not as strings");
        assertEquals(0, Versions.compare("13", "13.0"));
        assertTrue(Versions.compare("580.159.04", "580.65") > 0);
    }

    @Test
    void expectedVersionsMatchByTheComponentsWritten() {
        assertTrue(Versions.matches("580.159.04", "580"));
        assertTrue(Versions.matches("580.159.04", "580.159"));
        assertFalse(Versions.matches("580.159.04", "580.15"));
        assertTrue(Versions.matches("2.11.0+cu130", "2.11"));
        assertFalse(Versions.matches("2.11.0+cu128", "2.11.0+cu130"));
        assertFalse(Versions.matches("13.0", "12"));
    }
}
