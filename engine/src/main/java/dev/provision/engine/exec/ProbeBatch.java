package dev.provision.engine.exec;

import dev.provision.engine.connection.Boundary;
import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.text.ShellWords;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several read-only exchanges in one: probes ({@link dev.provision.modules.spi.TaskModule#prefetch})
 * or any command lines a host view would send alone ({@link ReadAhead}). Each runs in a subshell
 * of its own, as it would alone (no variable or {@code exit} of one reaches another), its
 * standard output and error and exit status framed by a boundary line that holds a random token,
 * so that no output can end another. The shell adds no program of its own per command, and one
 * fork: the substitution that keeps its error output is the command's subshell.
 */
final class ProbeBatch {

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
        String boundary = boundary();
        StringBuilder script = head(boundary);
        lines.forEach(line -> append(script, line, false));
        ExecResult r;
        try {
            r = connection.exec(ExecRequest.shell(script.toString()));
        } catch (ConnectionException e) {
            return List.of();
        }
        return parse(r.stdout(), boundary, lines.size());
    }

    /**
     * Runs {@code request} (a write, with its input) and then, in the same exchange, {@code lines}
     * (what the next tasks will read, read after the write as they would be in their turn).
     *
     * @return what {@code request} said, then what each line said; only the request's answer (or
     * none: then its exchange's own) where the lines' answers cannot be read
     */
    static List<ExecResult> runAfter(Connection connection, ExecRequest request, List<String> lines) throws ConnectionException {
        String boundary = boundary();
        StringBuilder script = head(boundary);
        append(script, request.commandLine(), true);
        lines.forEach(line -> append(script, line, false));
        ExecResult r = connection.exec(request.withCommandLine(script.toString()));
        List<ExecResult> all = parse(r.stdout(), boundary, lines.size() + 1);
        if (!all.isEmpty()) {
            return all;
        }
        List<ExecResult> first = parse(r.stdout(), boundary, 1);
        return first.isEmpty() ? List.of(r) : first;
    }

    private static String boundary() {
        return Boundary.random("PROVISION-PROBE-");
    }

    /**
     * What every command line's framing uses, said once per batch: the boundary ({@code pv_b}) and
     * the function that frames an answer ({@code pv_f}). Said once, not per line: a batch of the
     * reads ahead holds a dozen lines, and what the shell is sent is encrypted and quoted on the
     * controller, per host.
     */
    private static StringBuilder head(String boundary) {
        return new StringBuilder("pv_b=").append(boundary).append('\n')
                .append("pv_f() { case $pv_e in *\"$pv_b\"*) pv_r=${pv_e##*\"$pv_b\"}; pv_e=${pv_e%\"$pv_b\"*};; esac; ")
                .append("printf '\\n%s %s\\n%s%s\\n' \"$pv_b\" \"$pv_r\" \"$pv_e\" \"$pv_b\"; }\n");
    }

    /**
     * One command line, in a subshell of its own: the command substitution that keeps its error
     * output (one fork, no program, no temp file); its output goes out as it comes. The status
     * follows the error output behind the boundary; a read that calls {@code exit} ends the
     * substitution before that, and its status is the substitution's (its error output then loses
     * its trailing newlines; a write runs in a subshell of its own, so never). The line stands on
     * lines of its own: it may end in a comment or a here-document. The batch's variables and
     * function have names no command line of the engine uses.
     */
    private static void append(StringBuilder script, String line, boolean withInput) {
        // a write keeps its error output exact, exit or not: its own subshell inside the substitution
        script.append("{ pv_e=$( ").append(withInput ? "(" : "{").append("\n").append(line).append("\n")
                .append(withInput ? ") " : "} </dev/null ")
                .append("2>&1 1>&3 3>&-; printf '%s%s' \"$pv_b\" \"$?\" ); pv_r=$?; } 3>&1; pv_f\n");
    }

    /** Per command: its output, then "\n" + boundary + " " + status, its error output, boundary. */
    static List<ExecResult> parse(byte[] out, String boundary, int count) {
        byte[] head = ("\n" + boundary + " ").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = (boundary + "\n").getBytes(StandardCharsets.US_ASCII);
        List<ExecResult> answers = new ArrayList<>();
        int at = 0;
        for (int n = 0; n < count; n++) {
            int h = Boundary.indexOf(out, out.length, head, at);
            if (h < 0) {
                return List.of();
            }
            int statusFrom = h + head.length;
            int statusEnd = Boundary.indexOf(out, out.length, new byte[] {'\n'}, statusFrom);
            int t = statusEnd < 0 ? -1 : Boundary.indexOf(out, out.length, tail, statusEnd + 1);
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

}
