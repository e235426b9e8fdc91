package dev.provision.modules.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Each shared fact's parser on captured answers (this machine's, and the H200 host's in docs/preflight-h200). */
class FactsTest {
    private static Optional<String> nothing(String s) {
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // exit | stdout | what it says
            "0 | /usr/bin/skopeo\\n | /usr/bin/skopeo",
            "1 |                  | ",
            "127 |                | "})
    void aProgramIsWhereTheShellFindsIt(int exit, String stdout, String says) throws Exception {
        String out = stdout == null ? "" : stdout.replace("\\n", "\n");
        assertEquals(nothing(says == null ? "" : says), Facts.program("skopeo").of(new ProbeResult(exit, out, "")));
    }

    @Test
    void theFirstOfSeveralProgramsIsTheOneTheShellFindsFirst() throws Exception {
        Fact<Optional<String>> engine = Facts.firstProgram("podman", "docker");
        assertEquals(List.of("sh", "-c", "command -v podman || command -v docker"), engine.argv());
        assertEquals(Optional.of("/usr/bin/docker"), engine.of(new ProbeResult(0, "/usr/bin/docker\n", "")));
        assertEquals("docker", Facts.baseName("/usr/bin/docker"));
        assertEquals(Optional.empty(), engine.of(new ProbeResult(1, "", "")));
    }

    @Test
    void aProgramNameNeverCarriesScriptText() {
        assertThrows(IllegalArgumentException.class, () -> Facts.program("skopeo; reboot"));
        assertThrows(IllegalArgumentException.class, () -> Facts.program("-v"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0 | active\\n | | active",
            "3 | inactive\\n | | inactive",
            "3 | failed\\n | | failed",
            // the H200 host (docs/preflight-h200/captures-2026-12-02.txt): no systemctl
            "127 | | bash: line 1: systemctl: command not found | ",
            // a container not booted with systemd (this test machine)
            "1 | | System has not been booted with systemd as init system (PID 1). Can't operate. | "})
    void aUnitIsWhatSystemdSaysOfItOrNothingWhereSystemdCannotSay(int exit, String stdout, String stderr, String says) throws Exception {
        ProbeResult answer = new ProbeResult(exit, stdout == null ? "" : stdout.replace("\\n", "\n"), stderr == null ? "" : stderr);
        assertEquals(nothing(says == null ? "" : says), Facts.unitActivity("nvidia-fabricmanager").of(answer));
        assertEquals(List.of("systemctl", "is-active", "nvidia-fabricmanager"), Facts.unitActivity("nvidia-fabricmanager").argv());
    }
}
