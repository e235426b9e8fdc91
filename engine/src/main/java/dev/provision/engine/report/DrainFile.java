package dev.provision.engine.report;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --drain-file FILE}: the scheduler hand-off of a readiness run. For every node that is not
 * ready (a failing check row, a failed task, unreachable; the same judgement as {@link HtmlReport}'s
 * verdict) one Slurm command that drains it with the reason, e.g.
 * {@code scontrol update nodename=node07 state=drain 'reason=provision: gpu_acceptance.gpu0.gemm 270.9 TFLOPS'}.
 * provision never runs them: an operator reviews the file, then runs it. Every word is quoted for the
 * shell; a reason holds check names and measured figures only (never a task's message). Written at
 * the end of the run, atomically; a run with every node ready writes only the header.
 */
public final class DrainFile implements RunListener {
    /** Slurm keeps a reason short; past this the reason ends with "...". */
    private static final int REASON_MAX = 200;
    private final Path file;
    private final ReadinessGrid grid = new ReadinessGrid();
    private String task = "";
    private IOException failure;

    public DrainFile(Path file) {
        this.file = requireNonNull(file, "file cannot be null");
    }

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        grid.hosts(hosts);
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        task = name;
    }

    @Override
    public void hostResult(TaskResult result) {
        grid.add(task, result);
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        stats.forEach((host, s) -> {
            if (s.unreachable() > 0) {
                grid.unreachable(host);
            }
        });
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path tmp = Files.createTempFile(parent, ".provision-drain", ".sh");
            Files.writeString(tmp, render(grid), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    static String render(ReadinessGrid grid) {
        List<String> notReady = grid.notReady();
        StringBuilder out = new StringBuilder("# provision --drain-file: the nodes not ready to train (" + notReady.size() + " of "
                + grid.hosts().size() + "), one Slurm drain each; review, then run it (sh FILE)\n");
        for (String host : notReady) {
            out.append(ShellWords.join(List.of("scontrol", "update", "nodename=" + host, "state=drain", "reason=" + reason(grid, host))))
                    .append('\n');
        }
        return out.toString();
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

    /** Why the file could not be written, if it could not. */
    public Optional<IOException> failure() {
        return Optional.ofNullable(failure);
    }
}
