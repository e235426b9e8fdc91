package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.text.ShellWords;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several read-only exchanges in one: probes ({@link dev.provision.modules.spi.TaskModule#prefetch})
 * or any command lines a host view would send alone ({@link ReadAhead}). Each runs in a subshell
 * of its own, as it would alone (no variable or {@code exit} of one reaches another), its
 * standard output and error and exit status framed by a boundary line that holds a random token,
 * so that no output can end another. The shell adds no program of its own per command (the
 * subshell is a fork; its error output is copied back with builtins).
 */
final class ProbeBatch {
    private static final SecureRandom RANDOM = new SecureRandom();

    private ProbeBatch() {
    }

    /** The answers by probe; empty when the exchange itself failed (each item then asks alone). */
    static Map<List<String>, ProbeResult> run(Connection connection, List<List<String>> probes) {
        List<String> lines = probes.stream().map(ShellWords::join).toList();
        List<ExecResult> results = runLines(connection, lines);
        Map<List<String>, ProbeResult> answers = new LinkedHashMap<>();
        for (int i = 0; i < results.size(); i++) {
            ExecResult r = results.get(i);
            answers.put(List.copyOf(probes.get(i)), new ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText()));
        }
        return answers;
    }

    /**
     * What each command line said, in order, as if each had been run alone (its output as bytes);
     * empty when the exchange itself failed or its answer cannot be read.
     */
    static List<ExecResult> runLines(Connection connection, List<String> lines) {
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        String boundary = "PROVISION-PROBE-" + HexFormat.of().formatHex(token);
        // the batch's own variables have names no command line of the engine uses
        StringBuilder script = new StringBuilder("pv_d=$(mktemp -d) || exit 1; trap 'rm -rf \"$pv_d\"' EXIT\n");
        for (String line : lines) {
            // on lines of their own: a command line may end in a comment or a here-document
            script.append("(\n").append(line).append("\n) 2>\"$pv_d/e\" </dev/null; pv_r=$?\n")
                    .append("printf '\\n%s %s\\n' ").append(boundary).append(" \"$pv_r\"\n")
                    .append("while IFS= read -r pv_l || [ -n \"$pv_l\" ]; do printf '%s\\n' \"$pv_l\"; done <\"$pv_d/e\"\n")
                    .append("printf '%s\\n' ").append(boundary).append('\n');
        }
        ExecResult r;
        try {
            r = connection.exec(ExecRequest.shell(script.toString()));
        } catch (ConnectionException e) {
            return List.of();
        }
        if (r.exitCode() != 0) {
            return List.of();
        }
        return parse(r.stdout(), boundary, lines.size());
    }

    /** Per command: its output, then "\n" + boundary + " " + status, its error output, boundary. */
    static List<ExecResult> parse(byte[] out, String boundary, int count) {
        byte[] head = ("\n" + boundary + " ").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = (boundary + "\n").getBytes(StandardCharsets.US_ASCII);
        List<ExecResult> answers = new ArrayList<>();
        int at = 0;
        for (int n = 0; n < count; n++) {
            int h = indexOf(out, head, at);
            if (h < 0) {
                return List.of();
            }
            int statusFrom = h + head.length;
            int statusEnd = indexOf(out, new byte[] {'\n'}, statusFrom);
            int t = statusEnd < 0 ? -1 : indexOf(out, tail, statusEnd + 1);
            if (t < 0) {
                return List.of();
            }
            String status = new String(out, statusFrom, statusEnd - statusFrom, StandardCharsets.US_ASCII).strip();
            if (!status.matches("\\d{1,3}")) {
                return List.of();
            }
            answers.add(new ExecResult(Integer.parseInt(status), Arrays.copyOfRange(out, at, h),
                    Arrays.copyOfRange(out, statusEnd + 1, t)));
            at = t + tail.length;
        }
        return answers;
    }

    private static int indexOf(byte[] in, byte[] what, int from) {
        outer:
        for (int i = Math.max(0, from); i <= in.length - what.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
