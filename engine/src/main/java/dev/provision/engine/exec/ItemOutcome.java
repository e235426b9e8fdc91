package dev.provision.engine.exec;

import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outcome step of one task (one item) on one host: its status, message and output from its plan
 * and what applying it came to, then {@code changed_when} and {@code failed_when}; and what
 * {@code register} keeps of it.
 */
final class ItemOutcome {
    private final PlayContext play;
    private final TaskInputs inputs;

    ItemOutcome(PlayContext play, TaskInputs inputs) {
        this.play = play;
        this.inputs = inputs;
    }

    /** What applying a plan came to: the last program's result, or why a write failed (null when none did). */
    record Applied(Optional<ExecResult> last, String failure) {
        static final Applied NOTHING = new Applied(Optional.empty(), null);
    }

    /**
     * The outcome step: the item's status, message and output from its plan and what applying it
     * came to, then {@code changed_when} and {@code failed_when}.
     */
    TaskResult of(Task task, HostState host, ItemPlanning.ItemPlan planned, Applied applied, Params params,
                  Map<String, Object> vars, String label, boolean handler, TaskStep step) throws TemplateException {
        boolean check = inputs.checkMode(task);
        Plan plan = planned.plan();
        Map<String, Object> output = new LinkedHashMap<>(planned.output());
        TaskStatus status = plan.isEmpty() ? TaskStatus.OK : TaskStatus.CHANGED;
        String message = plan.isEmpty() ? plan.reason() : "";
        if (applied.failure() != null) {
            status = TaskStatus.FAILED;
            message = applied.failure();
        } else if (applied.last().isPresent()) {
            ExecResult r = applied.last().get();
            output.put("rc", r.exitCode());
            output.put("stdout", r.stdoutText().stripTrailing());
            output.put("stderr", r.stderrText().stripTrailing());
            output.put("stdout_lines", r.stdoutText().lines().toList());
            output.put("stderr_lines", r.stderrText().lines().toList());
            if (r.exitCode() == 0) {
                RunTimeOutput.resolve(output, r.stdoutText().stripTrailing());
            }
            if (r.exitCode() != 0 && task.failedWhen().isEmpty()) {
                status = TaskStatus.FAILED;
                message = nonZero(r, task.noLog());
            }
        }
        RunTimeOutput.leaveOutUnresolved(output);
        if (dev.provision.modules.spi.CheckResult.anyFailed(plan.checks()) && status != TaskStatus.FAILED) {
            // a read-only check that found a fault: the plan is empty, the verdict is in its rows
            status = TaskStatus.FAILED;
            message = FleetRows.failingSummary(plan.checks());
        }
        TaskResult result = TaskResult.builder(host.name(), status).changes(plan.changes()).message(message).itemLabel(label)
                .forecast(check && !plan.isEmpty())
                .conditional(check && (handler || step.holdsRunTimeOutput(params))).hidden(task.noLog()).output(output).checks(plan.checks()).build();
        if (status != TaskStatus.FAILED || task.failedWhen().isPresent()) {
            Map<String, Object> withResult = withRegistered(task, vars, result);
            if (task.changedWhen().isPresent() && status != TaskStatus.FAILED) {
                boolean changed = play.templates.test(task.changedWhen().get().text(), withResult, task.changedWhen().get().position());
                result = result.withStatus(changed ? TaskStatus.CHANGED : TaskStatus.OK);
            }
            if (task.failedWhen().isPresent()) {
                boolean failed = play.templates.test(task.failedWhen().get().text(), withResult, task.failedWhen().get().position());
                if (failed) {
                    result = result.withStatus(TaskStatus.FAILED).withMessage("failed_when condition is true: " + task.failedWhen().get().text());
                } else if (result.status() == TaskStatus.FAILED) {
                    result = result.withStatus(plan.isEmpty() ? TaskStatus.OK : TaskStatus.CHANGED);
                }
            }
        }
        return result;
    }

    Map<String, Object> withRegistered(Task task, Map<String, Object> vars, TaskResult result) {
        Map<String, Object> m = new LinkedHashMap<>(vars);
        Map<String, Object> reg = registerValue(result);
        m.put("result", reg);
        task.register().ifPresent(name -> m.put(name, reg));
        return m;
    }

    /** What {@code register} stores: Ansible's keys (changed, failed, skipped, rc, stdout, ...). */
    static Map<String, Object> registerValue(TaskResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rc", 0);
        m.put("stdout", "");
        m.put("stderr", "");
        m.put("stdout_lines", List.of());
        m.put("stderr_lines", List.of());
        m.putAll(r.reported());
        m.put("changed", r.status() == TaskStatus.CHANGED);
        m.put("failed", r.status() == TaskStatus.FAILED || r.status() == TaskStatus.IGNORED);
        m.put("skipped", r.status() == TaskStatus.SKIPPED);
        m.put("check_mode", r.forecast());
        m.put("msg", r.message());
        m.put("changes", r.changes().stream().map(Change::summary).toList());
        return m;
    }

    /**
     * How a program that exited non-zero fails its task, in a run and when a saved plan is applied
     * alike: the code and the first line it printed (stderr, else stdout), none under {@code no_log}.
     */
    static String nonZero(ExecResult r, boolean hidden) {
        String text = r.stderrText().isBlank() ? r.stdoutText() : r.stderrText();
        return "non-zero return code " + r.exitCode() + (text.isBlank() || hidden ? "" : ": " + text.strip().lines().findFirst().orElse(""));
    }

    /** A failed item or task on {@code host}, its message hidden under {@code no_log}. */
    static TaskResult failure(HostState host, Task task, String message) {
        return TaskResult.builder(host.name(), TaskStatus.FAILED).message(message).hidden(task.noLog()).build();
    }

    /**
     * A module knows nothing of files: its message gets the task's file:line:column unless it names a
     * place already.
     */
    static String positioned(Task task, String message) {
        if (POSITIONED.matcher(message).lookingAt()) {
            return message;
        }
        return task.position() + ": " + message;
    }

    private static final java.util.regex.Pattern POSITIONED = java.util.regex.Pattern.compile("\\S[^\\n]*?:\\d+:\\d+: ");
}
