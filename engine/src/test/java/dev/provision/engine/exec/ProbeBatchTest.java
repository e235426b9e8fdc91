package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.engine.connection.LocalConnection;
import dev.provision.modules.spi.ProbeResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Probes in one exchange over a real shell: each answer exactly as the probe alone would give it. */
class ProbeBatchTest {
    @Test
    void eachProbeGetsItsOwnOutputErrorAndStatusWhateverItPrints() {
        List<String> plain = List.of("echo", "8192");
        List<String> noNewline = List.of("printf", "%s", "no newline");
        List<String> failing = List.of("sh", "-c", "echo out; echo 'sysctl: cannot stat /proc/sys/x: No such file' >&2; exit 255");
        List<String> tricky = List.of("printf", "%s\\n%s", "PROVISION-PROBE-fake 0", "$(touch /tmp/never) ; `x`");
        List<String> errNoNewline = List.of("sh", "-c", "printf 'half' >&2; exit 3");
        try (LocalConnection local = new LocalConnection("localhost")) {
            Map<List<String>, ProbeResult> answers = ProbeBatch.run(local, List.of(plain, noNewline, failing, tricky, errNoNewline));
            assertEquals(new ProbeResult(0, "8192\n", ""), answers.get(plain));
            assertEquals(new ProbeResult(0, "no newline", ""), answers.get(noNewline));
            assertEquals(new ProbeResult(255, "out\n", "sysctl: cannot stat /proc/sys/x: No such file\n"), answers.get(failing));
            assertEquals(new ProbeResult(0, "PROVISION-PROBE-fake 0\n$(touch /tmp/never) ; `x`", ""), answers.get(tricky),
                    "arguments are words, never shell; output that looks like a boundary is output");
            assertEquals(3, answers.get(errNoNewline).exitCode());
            assertEquals("half", answers.get(errNoNewline).stderr(), "the error output comes back as printed, a last line without its newline too");
        }
    }

    @Test
    void commandLinesRunAsAloneEvenWithExitCommentsHereDocumentsAndBinaryOutput() {
        byte[] every = new byte[256];
        for (int b = 0; b < 256; b++) {
            every[b] = (byte) b;
        }
        String binary = "printf '" + java.util.stream.IntStream.range(0, 256).mapToObj(b -> String.format("\\%03o", b))
                .reduce("", String::concat) + "'";
        List<String> lines = List.of(
                "x=1; exit 3",                               // ends its own subshell only
                "echo \"${x:-unset}\" # a comment to the end of the line",
                "cat <<'EOF'\nhere ) document\nEOF",
                binary);
        try (LocalConnection local = new LocalConnection("localhost")) {
            List<dev.provision.engine.connection.ExecResult> answers = ProbeBatch.runLines(local, lines);
            assertEquals(4, answers.size());
            assertEquals(3, answers.get(0).exitCode());
            assertEquals("unset\n", answers.get(1).stdoutText(), "no variable of one line reaches the next");
            assertEquals("here ) document\n", answers.get(2).stdoutText());
            org.junit.jupiter.api.Assertions.assertArrayEquals(every, answers.get(3).stdout(), "bytes come back as they are");
        }
    }

    @Test
    void aWriteWithItsInputThenTheReadsAfterItInOneExchange(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String file = dir.resolve("written").toString();
        String q = dev.provision.modules.text.ShellWords.quote(file);
        dev.provision.engine.connection.ExecRequest write = dev.provision.engine.connection.ExecRequest
                .shell("cat > " + q + " && echo wrote; echo 'a warning' >&2; exit 4")
                .withStdin("new content\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (LocalConnection local = new LocalConnection("localhost")) {
            List<dev.provision.engine.connection.ExecResult> r = ProbeBatch.runAfter(local, write,
                    List.of("cat -- " + q, "cat; echo \"stdin was empty\""));
            assertEquals(3, r.size());
            assertEquals(4, r.get(0).exitCode(), "the write's own status");
            assertEquals("wrote\n", r.get(0).stdoutText());
            assertEquals("a warning\n", r.get(0).stderrText());
            assertEquals("new content\n", r.get(1).stdoutText(), "read after the write: what it wrote");
            assertEquals("stdin was empty\n", r.get(2).stdoutText(), "only the write reads the input");
        }
    }
}
