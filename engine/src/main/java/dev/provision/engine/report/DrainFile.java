package dev.provision.engine.report;

import dev.provision.modules.text.ShellWords;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --drain-file FILE}: the scheduler hand-off of a readiness run. For every node that is not
 * ready (a failing check row, a failed task, unreachable; the same judgement as {@link HtmlReport}'s
 * verdict) one Slurm command that drains it with the reason, e.g.
 * {@code scontrol update nodename=node07 state=drain 'reason=provision: gpu_acceptance.gpu0.gemm 270.9 TFLOPS'}.
 * provision never runs them: an operator reviews the file, then runs it. Every word is quoted for the
 * shell; a reason holds check names and measured figures only (never a task's message). A check that
 * could not be judged (UNKNOWN: a tool missing, a timeout) drains nothing by itself: such a node gets
 * a comment line naming those checks, for the operator to look at. Written at the end of the run,
 * atomically; a run with every node ready (and judged) writes only the header.
 */
public final class DrainFile extends ReadinessFile {
    /** Slurm keeps a reason short; past this the reason ends with "...". */
    private static final int REASON_MAX = 200;

    public DrainFile(Path file) {
        super(file);
    }

    @Override
    String render(ReadinessGrid grid, String title) {
        return render(grid);
    }

    static String render(ReadinessGrid grid) {
        List<String> notReady = grid.notReady();
        StringBuilder out = new StringBuilder("# provision --drain-file: the nodes not ready to train (" + notReady.size() + " of "
                + grid.hosts().size() + "), one Slurm drain each; review, then run it (sh FILE)\n");
        for (String host : notReady) {
            out.append(ShellWords.join(List.of("scontrol", "update", "nodename=" + host, "state=drain", "reason=" + reason(grid, host))))
                    .append('\n');
        }
        for (String host : grid.notJudged()) {
            out.append("# not drained, could not be judged (UNKNOWN): ").append(oneLine(host)).append(": ")
                    .append(oneLine(String.join(", ", grid.unknown(host)))).append('\n');
        }
        return out.toString();
    }

    /** A name in a comment line: no line break can end the comment and start a command. */
    private static String oneLine(String text) {
        return text.replaceAll("[\\p{Cntrl}]", " ");
    }

    private static String reason(ReadinessGrid grid, String host) {
        String why;
        if (grid.isUnreachable(host)) {
            why = "unreachable";
        } else if (!grid.failing(host).isEmpty()) {
            List<String> parts = grid.failing(host).stream()
                    .map(check -> check + grid.cell(host, check).map(c -> c.measured().isEmpty() ? "" : " " + c.measured()).orElse(""))
                    .toList();
            why = String.join(", ", parts);
        } else {
            why = grid.failedTasks(host).stream().map(t -> t.contains(":") ? t.substring(0, t.indexOf(':')) : t)
                    .map(t -> "task failed: " + t).findFirst().orElse("not ready");
        }
        String reason = "provision: " + why.replaceAll("[\\p{Cntrl}]", " ");
        return reason.length() <= REASON_MAX ? reason : reason.substring(0, REASON_MAX - 3) + "...";
    }
}
