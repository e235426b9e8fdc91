package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.text.ShellWords;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several read-only probes in one exchange ({@link dev.provision.modules.spi.TaskModule#prefetch}):
 * each runs as it would alone (its own argument vector, never through a shell), its standard output
 * and error and exit status framed by a boundary line that holds a random token, so that no output
 * can end another. The shell adds no process of its own per probe (its error output is copied back
 * with builtins).
 */
final class ProbeBatch {
    private static final SecureRandom RANDOM = new SecureRandom();

    private ProbeBatch() {
    }

    /** The answers by probe; empty when the exchange itself failed (each item then asks alone). */
    static Map<List<String>, ProbeResult> run(Connection connection, List<List<String>> probes) {
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        String boundary = "PROVISION-PROBE-" + HexFormat.of().formatHex(token);
        StringBuilder script = new StringBuilder("d=$(mktemp -d) || exit 1; trap 'rm -rf \"$d\"' EXIT\n");
        for (List<String> argv : probes) {
            script.append(ShellWords.join(argv)).append(" 2>\"$d/e\" </dev/null; r=$?\n")
                    .append("printf '\\n%s %s\\n' ").append(boundary).append(" \"$r\"\n")
                    .append("while IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done <\"$d/e\"\n")
                    .append("printf '%s\\n' ").append(boundary).append('\n');
        }
        ExecResult r;
        try {
            r = connection.exec(ExecRequest.shell(script.toString()));
        } catch (ConnectionException e) {
            return Map.of();
        }
        if (r.exitCode() != 0) {
            return Map.of();
        }
        return parse(r.stdoutText(), boundary, probes);
    }

    /** Per probe: its output, then "\n" + boundary + " " + status, its error output, boundary. */
    static Map<List<String>, ProbeResult> parse(String out, String boundary, List<List<String>> probes) {
        Map<List<String>, ProbeResult> answers = new LinkedHashMap<>();
        int at = 0;
        for (List<String> argv : probes) {
            int head = out.indexOf("\n" + boundary + " ", at);
            if (head < 0) {
                return Map.of();
            }
            String stdout = out.substring(at, head);
            int statusEnd = out.indexOf('\n', head + 1);
            int tail = out.indexOf(boundary + "\n", statusEnd + 1);
            if (statusEnd < 0 || tail < 0) {
                return Map.of();
            }
            String status = out.substring(head + 1 + boundary.length() + 1, statusEnd).strip();
            if (!status.matches("\\d{1,3}")) {
                return Map.of();
            }
            String stderr = out.substring(statusEnd + 1, tail);
            answers.put(List.copyOf(argv), new ProbeResult(Integer.parseInt(status), stdout, stderr));
            at = tail + boundary.length() + 1;
        }
        return answers;
    }
}
