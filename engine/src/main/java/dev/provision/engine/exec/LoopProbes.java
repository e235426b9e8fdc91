package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskModule;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The read-only probes a loop's items will ask and that the module vouches no other item changes
 * ({@link TaskModule#prefetch}), read in one exchange ({@link ProbeBatch}) before the first item
 * plans, or taken from what the host's tasks read ahead ({@link ReadAhead}).
 */
final class LoopProbes {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final TaskInputs inputs;

    LoopProbes(PlayContext play, ModuleRegistry modules, TaskInputs inputs) {
        this.play = play;
        this.modules = modules;
        this.inputs = inputs;
    }

    /** Reads them into {@code reads}; an item whose arguments do not render, or whose condition is false, is left to itself. */
    void prefetch(Task task, HostState host, List<?> items, Loop loop, TaskStep step, HostReads reads) throws UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (items.size() < 2 || EngineActs.carriesOut(module)) {
            return;
        }
        LinkedHashSet<List<String>> probes = new LinkedHashSet<>();
        Map<String, Object> firstVars = null;
        for (int index = 0; index < items.size(); index++) {
            try {
                Map<String, Object> vars = play.varsFor(task, host, Map.of(loop.loopVar(), items.get(index)));
                if (inputs.falseCondition(task, vars).isPresent()) {
                    continue;
                }
                Params params = step.render(host.name(), index, vars, v -> module.params().validate(inputs.arguments(task, module.params(), v)));
                probes.addAll(module.prefetch(params));
                firstVars = firstVars == null ? vars : firstVars;
            } catch (TemplateException | ParamException | RuntimeException e) {
                // this item reports its own problem when it runs
            }
        }
        if (probes.size() < 2 || firstVars == null) {
            return;
        }
        try {
            Connection connection = inputs.connection(task, host, firstVars, reads.exchanges);
            // what was read ahead is kept for the items as a prefetched answer: it outlives a change by an item
            Map<List<String>, ProbeResult> known = new LinkedHashMap<>();
            for (List<String> probe : probes) {
                reads.ahead().answer(connection.target(), ExecRequest.argv(probe)).ifPresent(r ->
                        known.put(probe, new ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText())));
            }
            reads.prefetched(known);
            probes.removeAll(known.keySet());
            if (probes.size() >= 2) {
                reads.prefetched(ProbeBatch.run(connection, List.copyOf(probes)));
            }
        } catch (TemplateException e) {
            // the items report it
        }
    }
}
