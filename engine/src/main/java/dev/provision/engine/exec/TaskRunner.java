package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.Steps;
import dev.provision.engine.connection.CountingConnection;
import dev.provision.engine.connection.EnvironmentConnection;
import dev.provision.engine.connection.TimeLimitedConnection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.modules.text.ShellWords;
import dev.provision.engine.playbook.Expression;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ConnectionWait;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.control.MetaModule;
import dev.provision.modules.control.SetupModule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs one task on one host: conditions, loop, templated arguments, validation, plan, and (unless
 * check mode) application; then {@code changed_when}/{@code failed_when}/{@code until},
 * {@code register} and {@code set_fact}. Never throws for a task failure: it is a result.
 */
final class TaskRunner {
    private final PlayContext play;
    private final ModuleRegistry modules;
    private final Connections connections;

    private final Optional<PlanRecording> recording;

    TaskRunner(PlayContext play, ModuleRegistry modules, Connections connections, Optional<PlanRecording> recording) {
        this.play = play;
        this.modules = modules;
        this.connections = connections;
        this.recording = recording;
    }

    /** {@code task} on {@code host}, as part of {@code step} (the task's run over the batch's hosts). */
    TaskResult run(Task task, HostState host, boolean handler, TaskStep step) {
        return run(task, host, handler, step, new ReadAhead());
    }

    /** {@code task} on {@code host}, finding what it reads in {@code ahead} where {@link #readAhead} read it. */
    TaskResult run(Task task, HostState host, boolean handler, TaskStep step, ReadAhead ahead) {
        long started = System.nanoTime();
        TaskResult r;
        HostReads reads = new HostReads(ahead);
        try {
            r = task.loop().isPresent() ? runLoop(task, host, task.loop().get(), handler, step, reads)
                    : runItem(task, host, Map.of(), "", handler, reads, step, 0);
        } catch (TemplateException e) {
            r = failure(host, task, e.getMessage());
        } catch (UnreachableException e) {
            r = TaskResult.simple(host.name(), TaskStatus.UNREACHABLE, e.getMessage());
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started).plus(ahead.takeTime());
        r = r.withDuration(took).withRoundTrips(reads.exchanges.get() + ahead.takeExchanges());
        if (r.status() == TaskStatus.FAILED && task.ignoreErrors()) {
            r = r.withStatus(TaskStatus.IGNORED);
        }
        TaskResult planned = r;
        recording.ifPresent(plans -> plans.record(host.name(), task, play.play, handler, planned, !checkMode(task)));
        if (task.loop().isEmpty()) {
            // every outcome is registered, failures and skips included, so later tasks can test it
            TaskResult registered = r;
            task.register().ifPresent(name -> host.setVar(name, registerValue(registered)));
        }
        return r;
    }

    /** A task (one item of its loop) planned ahead of its turn, to learn what it reads. */
    private record Ahead(Task task, TaskModule module, Params params, Map<String, Object> vars, TaskStep step) {
    }

    /**
     * Reads for {@code host} what tasks {@code from} on will read, in one exchange (two at most), unless
     * {@code ahead} still holds answers: see {@link ReadAhead}. Each task (each item of a loop) whose
     * condition holds and whose arguments render now is planned over a connection that notes what it
     * reads; up to the first task that may set variables, and only tasks that run through the same
     * connection as the first. A task that cannot be planned ahead is left to read for itself.
     */
    void readAhead(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead ahead) {
        if (!ahead.wantsReading(from)) {
            return;
        }
        long started = System.nanoTime();
        try {
            planAhead(tasks, steps, from, host, ahead);
        } finally {
            ahead.spent(System.nanoTime() - started);
        }
    }

    private void planAhead(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead ahead) {
        Planned planned = aheadOf(tasks, steps, from, host, ahead.window(), ahead);
        ahead.planned(planned.end());
        if (planned.tasks().size() < 2) {
            return; // one task reads as soon alone
        }
        for (int round = 0; round < ReadAhead.ROUNDS; round++) {
            java.util.Set<String> wanted = noteReads(planned, host, ahead);
            if (wanted.isEmpty() || !ahead.read(planned.through(), wanted)) {
                return;
            }
        }
    }

    /**
     * What tasks {@code from} on will read first, for the write of the task before them to read in
     * its exchange ({@link ReadAhead#readingAfter}): empty where they read through another connection
     * than {@code key}'s or cannot be planned now.
     */
    List<String> readsAfter(List<Task> tasks, List<TaskStep> steps, int from, HostState host, ReadAhead.Key key) {
        ReadAhead none = new ReadAhead(); // nothing read yet: every read is noted
        Planned planned = aheadOf(tasks, steps, from, host, ReadAhead.AFTER_A_WRITE, none);
        if (planned.through() == null || !ReadAhead.keyOf(planned.through()).equals(key)) {
            return List.of();
        }
        return List.copyOf(noteReads(planned, host, none));
    }

    /** Tasks (items) planned ahead, the connection they read through, and the task the window ended before. */
    private record Planned(List<Ahead> tasks, Connection through, int end) {
    }

    /**
     * The tasks from {@code from} on, at most {@code window}, that can be planned ahead: up to the
     * first that may set variables, and only those that run through the same connection as the first.
     */
    private Planned aheadOf(List<Task> tasks, List<TaskStep> steps, int from, HostState host, int window, ReadAhead ahead) {
        List<Ahead> planned = new ArrayList<>();
        Connection through = null;
        ReadAhead.Key key = null;
        int j = from;
        for (; j < tasks.size() && j < from + window; j++) {
            Task task = tasks.get(j);
            TaskModule module = modules.module(task.module()).orElseThrow();
            if (module instanceof ConnectionWait || module instanceof MetaModule) {
                break;
            }
            // a task with a time limit of its own reads within it, never in an exchange bounded by another's
            boolean ownLimit = task.timeoutSeconds().isPresent();
            try {
                List<Map<String, Object>> items = ownLimit ? List.of() : List.of(Map.of());
                if (task.loop().isPresent() && !ownLimit) {
                    Loop loop = task.loop().get();
                    items = loopItems(task, host, loop).stream().limit(ReadAhead.MAX_ITEMS)
                            .map(item -> Map.<String, Object>of(loop.loopVar(), item)).toList();
                }
                for (int index = 0; index < items.size(); index++) {
                    Map<String, Object> vars = play.varsFor(task, host, items.get(index));
                    if (falseCondition(task, vars).isPresent()) {
                        continue;
                    }
                    TaskStep step = steps.get(j);
                    Params params = step.renderAhead(index, vars, v -> module.params().validate(arguments(task, module.params(), v)));
                    Connection connection = taskConnection(task, host, vars, ahead.exchanges);
                    ReadAhead.Key of = ReadAhead.keyOf(connection);
                    if (key == null) {
                        key = of;
                        through = connection;
                    } else if (!key.equals(of)) {
                        continue; // read as another user, or with other variables: read in its turn
                    }
                    planned.add(new Ahead(task, module, params, vars, step));
                }
            } catch (TemplateException | ParamException | LoopLookups.LookupException | UnreachableException | RuntimeException e) {
                // this task reports its own problem in its turn
            }
            if (setsVariables(task, module)) {
                j++;
                break;
            }
        }
        return new Planned(planned, through, j);
    }

    /** Whether later tasks may see what {@code task} does through variables (so cannot be planned before it ran). */
    private static boolean setsVariables(Task task, TaskModule module) {
        return task.register().isPresent() || module.setsVariables() || task.keywords().delegateFacts();
    }

    /** Plans each task over a connection that answers what {@code ahead} read and notes the rest. */
    private java.util.Set<String> noteReads(Planned planned, HostState host, ReadAhead ahead) {
        java.util.Set<String> wanted = new java.util.LinkedHashSet<>();
        for (Ahead a : planned.tasks()) {
            boolean check = checkMode(a.task());
            ConnectionHostView view = new ConnectionHostView(host.name(), ahead.noting(planned.through(), wanted), host.facts(),
                    check ? Optional.of(host.forecast) : Optional.empty(), new HostReads(), a.step().contents());
            if (!a.module().probesAhead()) {
                view.refuseProbes();
            }
            try {
                a.module().plan(a.params(), new EngineTaskContext(view, play, a.task(), a.vars(), a.step()));
            } catch (ModuleException | RuntimeException e) {
                // a read not made yet ended the plan (or the plan fails: it does so again in its turn)
            }
        }
        return wanted;
    }

    /** The items of {@code task}'s loop on {@code host}, its expression evaluated or its list rendered. */
    private List<?> loopItems(Task task, HostState host, Loop loop) throws TemplateException, LoopLookups.LookupException {
        Map<String, Object> vars = play.varsFor(task, host, Map.of());
        Object evaluated = loop.items() instanceof String s ? play.templates.evaluate(stripBraces(s), vars, loop.position())
                : play.templates.interpolate(loop.items(), vars, loop.position());
        return LoopLookups.items(loop, evaluated, task, play.playbookDirectory);
    }

    private TaskResult runLoop(Task task, HostState host, Loop loop, boolean handler, TaskStep step, HostReads reads)
            throws TemplateException, UnreachableException {
        List<?> list;
        try {
            list = loopItems(task, host, loop);
        } catch (LoopLookups.LookupException e) {
            return failure(host, task, loop.position() + ": " + e.getMessage());
        }
        prefetch(task, host, list, loop, step, reads);
        List<TaskResult> results = new ArrayList<>(runTogether(task, host, loop, list, handler, step, reads));
        for (int index = results.size(); index < list.size(); index++) {
            Map<String, Object> itemVars = Map.of(loop.loopVar(), list.get(index));
            results.add(runItem(task, host, itemVars, itemLabel(task, host, loop, list.get(index)), handler, reads, step, index));
        }
        List<Object> registered = new ArrayList<>();
        for (int index = 0; index < list.size(); index++) {
            Map<String, Object> reg = registerValue(results.get(index));
            reg.put(loop.loopVar(), list.get(index));
            registered.add(reg);
        }
        TaskStatus status = aggregate(results);
        List<Change> changes = results.stream().flatMap(r -> r.changes().stream()).toList();
        String message = results.stream().filter(r -> r.status() == TaskStatus.FAILED).map(TaskResult::message).findFirst().orElse("");
        boolean check = checkMode(task);
        TaskResult whole = TaskResult.builder(host.name(), status).changes(changes).message(message).items(results)
                .forecast(check && status == TaskStatus.CHANGED).conditional(handler && check).hidden(task.noLog()).build();
        task.register().ifPresent(name -> {
            Map<String, Object> reg = registerValue(whole);
            reg.put("results", registered);
            host.setVar(name, reg);
        });
        return whole;
    }

    private String itemLabel(Task task, HostState host, Loop loop, Object item) throws TemplateException {
        return loop.label().isEmpty() ? render(item) : String.valueOf(play.templates.interpolate(loop.label(),
                play.varsFor(task, host, Map.of(loop.loopVar(), item)), loop.position()));
    }

    /** One item of a loop planned with the others ({@link #runTogether}): its plan, or its result where it has one already. */
    private record Together(String label, Params params, Map<String, Object> vars, ItemPlan planned, TaskResult result) {
    }

    /**
     * A run of the loop's items whose module plans them together ({@link TaskModule#plansItemsTogether}):
     * each item planned against what the items before it would have done (the forecast a dry run
     * plans against), then the writes and programs of all of them in one exchange: a dozen kernel
     * parameters in one round trip instead of a dozen. Returns the results of the items it settled,
     * in order: all of them, or those up to the first whose write or program failed (the items after
     * it then run one by one, planned afresh); none at all where the items cannot go together (a plan
     * that is more than writes and programs, items on other connections, keywords that judge each
     * item as it runs).
     */
    private List<TaskResult> runTogether(Task task, HostState host, Loop loop, List<?> items, boolean handler, TaskStep step,
                                         HostReads reads)
            throws TemplateException, UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (checkMode(task) || items.size() < 2 || !module.plansItemsTogether() || task.until().isPresent()
                || task.failedWhen().isPresent() || task.timeoutSeconds().isPresent() || task.delegateTo().isPresent()
                || task.keywords().backgroundSeconds().isPresent() || task.keywords().becomeMethod().isPresent()) {
            return List.of();
        }
        Forecast forecast = new Forecast();
        List<Together> planned = new ArrayList<>();
        Connection connection = null;
        List<Command> steps = new ArrayList<>();
        for (int index = 0; index < items.size(); index++) {
            String label = itemLabel(task, host, loop, items.get(index));
            Map<String, Object> vars = play.varsFor(task, host, Map.of(loop.loopVar(), items.get(index)));
            Optional<Expression> skips = falseCondition(task, vars);
            if (skips.isPresent()) {
                planned.add(new Together(label, null, vars, null, TaskResult.simple(host.name(), TaskStatus.SKIPPED,
                        "condition false: " + skips.get().text()).withItemLabel(label)));
                continue;
            }
            Params params;
            try {
                params = step.render(index, vars, v -> module.params().validate(arguments(task, module.params(), v)));
            } catch (ParamException e) {
                SourcePosition at = task.argPositions().getOrDefault(e.param(), task.position());
                planned.add(new Together(label, null, vars, null, failure(host, task, at + ": " + e.getMessage()).withItemLabel(label)));
                continue;
            }
            Connection itemConnection = taskConnection(task, host, vars, reads);
            if (connection == null) {
                connection = itemConnection;
            } else if (!ReadAhead.keyOf(connection).equals(ReadAhead.keyOf(itemConnection))) {
                return List.of(); // another user or environment: each item in its turn
            }
            ItemPlan plan = planItem(task, host, module, params, itemConnection, vars, label, reads, step, Optional.of(forecast));
            if (plan.failure() != null) {
                planned.add(new Together(label, params, vars, null, plan.failure()));
                continue;
            }
            List<Command> commands = plan.plan().changes().stream().flatMap(c -> c.commands().stream()).toList();
            if (!commands.stream().allMatch(TaskRunner::inOneExchange)) {
                return List.of();
            }
            steps.addAll(commands);
            planned.add(new Together(label, params, vars, plan, null));
        }
        Steps done = new Steps(List.of(), Optional.empty());
        String lost = null;
        if (!steps.isEmpty()) {
            reads.forget(); // the host is about to change
            reads.ahead().invalidate();
            try {
                done = connection.inOneExchange(steps);
            } catch (UnreachableException e) {
                throw e;
            } catch (ConnectionException e) {
                lost = e.getMessage();
            }
        }
        List<TaskResult> results = new ArrayList<>();
        int first = 0; // the item's first step
        for (Together item : planned) {
            if (item.result() != null) {
                results.add(item.result());
                continue;
            }
            Plan plan = item.planned().plan();
            int count = (int) plan.changes().stream().mapToLong(c -> c.commands().size()).sum();
            Applied applied = Applied.NOTHING;
            boolean stopped = false;
            if (count > 0) {
                List<Optional<ExecResult>> ran = done.ran().subList(Math.min(first, done.ran().size()),
                        Math.min(first + count, done.ran().size()));
                Optional<ExecResult> last = ran.stream().flatMap(Optional::stream).reduce((a, b) -> b);
                stopped = lost != null || ran.size() < count || last.isPresent() && ran.getLast().isPresent()
                        && last.get().exitCode() != 0;
                String failure = lost != null ? lost
                        : ran.size() < count ? done.failedWrite().map(Throwable::getMessage).orElse(null) : null;
                applied = new Applied(last, failure);
                if (!stopped) {
                    reads.wrote(plan);
                }
                first += count;
            }
            results.add(outcome(task, host, item.planned(), applied, item.params(), item.vars(), item.label(), handler, step));
            if (stopped) {
                break; // the items after it run one by one
            }
        }
        return results;
    }

    /**
     * The read-only probes the loop's items will ask and that the module vouches no other item
     * changes ({@link TaskModule#prefetch}), run in one exchange before the first item plans. An item
     * whose arguments do not render, or whose condition is false, is left to itself.
     */
    private void prefetch(Task task, HostState host, List<?> items, Loop loop, TaskStep step, HostReads reads)
            throws UnreachableException {
        TaskModule module = modules.module(task.module()).orElseThrow();
        if (items.size() < 2 || module instanceof ConnectionWait || module instanceof MetaModule) {
            return;
        }
        java.util.LinkedHashSet<List<String>> probes = new java.util.LinkedHashSet<>();
        Map<String, Object> firstVars = null;
        for (int index = 0; index < items.size(); index++) {
            try {
                Map<String, Object> vars = play.varsFor(task, host, Map.of(loop.loopVar(), items.get(index)));
                if (falseCondition(task, vars).isPresent()) {
                    continue;
                }
                Params params = step.render(index, vars, v -> module.params().validate(arguments(task, module.params(), v)));
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
            Connection connection = taskConnection(task, host, firstVars, reads.exchanges);
            // what was read ahead is kept for the items as a prefetched answer: it outlives a change by an item
            Map<List<String>, dev.provision.modules.spi.ProbeResult> known = new LinkedHashMap<>();
            for (List<String> probe : probes) {
                reads.ahead().answer(ReadAhead.keyOf(connection), ExecRequest.argv(probe)).ifPresent(r ->
                        known.put(probe, new dev.provision.modules.spi.ProbeResult(r.exitCode(), r.stdoutText(), r.stderrText())));
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

    /** The first of the task's {@code when:} conditions that is false here (the later ones are not evaluated). */
    private Optional<Expression> falseCondition(Task task, Map<String, Object> vars) throws TemplateException {
        for (Expression when : task.when()) {
            if (!play.templates.test(when.text(), vars, when.position())) {
                return Optional.of(when);
            }
        }
        return Optional.empty();
    }

    private static TaskStatus aggregate(List<TaskResult> results) {
        if (results.stream().anyMatch(r -> r.status() == TaskStatus.FAILED)) {
            return TaskStatus.FAILED;
        }
        if (results.stream().anyMatch(r -> r.status() == TaskStatus.CHANGED)) {
            return TaskStatus.CHANGED;
        }
        // no items at all is skipped too, as in Ansible ("No items in the list")
        if (results.stream().allMatch(r -> r.status() == TaskStatus.SKIPPED)) {
            return TaskStatus.SKIPPED;
        }
        return TaskStatus.OK;
    }

    private TaskResult runItem(Task task, HostState host, Map<String, Object> itemVars, String label, boolean handler,
                               HostReads reads, TaskStep step, int item) throws TemplateException, UnreachableException {
        Map<String, Object> vars = play.varsFor(task, host, itemVars);
        Optional<Expression> skips = falseCondition(task, vars);
        if (skips.isPresent()) {
            return TaskResult.simple(host.name(), TaskStatus.SKIPPED, "condition false: " + skips.get().text()).withItemLabel(label);
        }
        if (task.keywords().becomeMethod().isPresent()) {
            Object method = play.templates.interpolate(task.keywords().becomeMethod().get(), vars, task.position());
            if (!"sudo".equals(String.valueOf(method).strip())) {
                return failure(host, task, positioned(task, "become_method '" + method + "' is not supported: become runs "
                        + "through sudo")).withItemLabel(label);
            }
        }
        TaskModule module = modules.module(task.module()).orElseThrow();
        Params params;
        try {
            params = step.render(item, vars, v -> module.params().validate(arguments(task, module.params(), v)));
        } catch (ParamException e) {
            SourcePosition at = task.argPositions().getOrDefault(e.param(), task.position());
            return failure(host, task, at + ": " + e.getMessage()).withItemLabel(label);
        }
        if (module instanceof MetaModule) {
            // flush_handlers and noop: nothing here (the walker runs the handlers after this task)
            String action = params.string("action");
            if (action.equals("end_host")) {
                host.endedPlay(true);
            } else if (action.equals("end_play")) {
                play.hosts.values().forEach(h -> h.endedPlay(true));
            }
            return TaskResult.builder(host.name(), TaskStatus.OK).itemLabel(label).message(switch (action) {
                case "end_host" -> "the play ends here for this host";
                case "end_play" -> "the play ends here for every host";
                case "flush_handlers" -> "the handlers notified so far run now";
                default -> "";
            }).build();
        }
        if (module instanceof ConnectionWait wait) {
            return awaitConnection(task, host, wait, params, label);
        }
        Connection connection = taskConnection(task, host, vars, reads);
        int attempts = task.until().isPresent() ? Math.max(1, task.retries() + 1) : 1;
        TaskResult result = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
                reads.forget(); // until waits for the host to change: read it afresh
                reads.ahead().invalidate();
            }
            result = attempt(task, host, module, params, connection, vars, label, handler, reads, step);
            if (task.until().isEmpty() || result.status() == TaskStatus.FAILED && attempt == attempts) {
                break;
            }
            Map<String, Object> withResult = withRegistered(task, vars, result);
            if (play.templates.test(task.until().get().text(), withResult, task.until().get().position())) {
                break;
            }
            if (attempt == attempts) {
                result = result.withStatus(TaskStatus.FAILED).withMessage("until condition still false after " + attempts + " attempts: " + task.until().get().text());
                break;
            }
            sleep(task.delaySeconds());
        }
        return result;
    }

    private TaskResult attempt(Task task, HostState host, TaskModule module, Params params, Connection connection,
                               Map<String, Object> vars, String label, boolean handler, HostReads reads, TaskStep step)
            throws TemplateException, UnreachableException {
        boolean check = checkMode(task);
        ItemPlan planned = planItem(task, host, module, params, connection, vars, label, reads, step,
                check ? Optional.of(host.forecast) : Optional.empty());
        if (planned.failure() != null) {
            return planned.failure();
        }
        Applied applied = planned.plan().isEmpty() || check ? Applied.NOTHING
                : applyItem(task, host, module, planned.plan(), connection, vars, handler, reads);
        return outcome(task, host, planned, applied, params, vars, label, handler, step);
    }

    /** An item's plan and the output it starts from; or, where it could not be planned, its failure. */
    private record ItemPlan(Plan plan, Map<String, Object> output, TaskResult failure) {
        static ItemPlan failed(TaskResult failure) {
            return new ItemPlan(null, Map.of(), failure);
        }
    }

    /** What applying a plan came to: the last program's result, or why a write failed (null when none did). */
    private record Applied(Optional<ExecResult> last, String failure) {
        static final Applied NOTHING = new Applied(Optional.empty(), null);
    }

    /**
     * The planning step: the module plans against the host ({@code forecast}, where given, answering
     * for what earlier plans not applied yet would have done), its facts and variables are set, and
     * in check mode its effect is forecast.
     */
    private ItemPlan planItem(Task task, HostState host, TaskModule module, Params params, Connection connection,
                              Map<String, Object> vars, String label, HostReads reads, TaskStep step, Optional<Forecast> forecast)
            throws TemplateException, UnreachableException {
        boolean check = checkMode(task);
        ConnectionHostView view = new ConnectionHostView(host.name(), reads.ahead().serving(connection), host.facts(),
                forecast, reads, step.contents());
        EngineTaskContext context = new EngineTaskContext(view, play, task, vars, step);
        Plan plan;
        try {
            plan = module.plan(params, context);
        } catch (ModuleException e) {
            Optional<UnreachableException> lost = connectionLost(e);
            if (lost.isPresent()) {
                throw lost.get(); // the host, not the module, failed: unreachable
            }
            return ItemPlan.failed(failure(host, task, e.isAsWritten() ? e.getMessage() : positioned(task, e.getMessage())).withItemLabel(label));
        }
        HostState receiver = host;
        if (task.keywords().delegateFacts() && task.delegateTo().isPresent()) {
            Optional<HostState> delegate = play.stateOf(task.delegateTo().get());
            if (delegate.isEmpty()) {
                return ItemPlan.failed(failure(host, task, positioned(task, "delegate_facts: '" + task.delegateTo().get()
                        + "' is not in the inventory, so the variables set for it would be lost")).withItemLabel(label));
            }
            receiver = delegate.get();
        }
        plan.facts().forEach(receiver::setVar);
        if (plan.result().get(SetupModule.FACTS_RESULT) instanceof Map<?, ?> gathered) {
            Map<String, Object> facts = new LinkedHashMap<>(receiver.facts());
            gathered.forEach((name, value) -> facts.put(String.valueOf(name), value));
            receiver.facts(facts);
        }
        Map<String, Object> output = new LinkedHashMap<>(plan.result());
        if (forecast.isPresent()) {
            forecast(view, forecast.get(), plan);
        }
        if (check) {
            if (!plan.isEmpty()) {
                RunTimeOutput.resolve(output, RunTimeOutput.placeholder(task));
            }
            if (RunTimeOutput.runsAProgram(plan.changes()) && !output.containsKey("stdout")) {
                // not run: what it prints is known only when it runs (never an empty string that looks real)
                String unknown = RunTimeOutput.placeholder(task);
                output.put("stdout", unknown);
                output.put("stdout_lines", List.of(unknown));
            }
        }
        if (task.keywords().backgroundSeconds().isPresent() && !plan.isEmpty()) {
            try {
                plan = inBackground(plan, task.keywords().backgroundSeconds().get());
            } catch (ModuleException e) {
                return ItemPlan.failed(failure(host, task, positioned(task, e.getMessage())).withItemLabel(label));
            }
            output.put("started", 1);
            output.put("finished", 0);
        }
        return new ItemPlan(plan, output, null);
    }

    /** The applying step: the plan's commands run on the host (a restart awaited), what the last program said. */
    private Applied applyItem(Task task, HostState host, TaskModule module, Plan plan, Connection connection,
                              Map<String, Object> vars, boolean handler, HostReads reads) throws UnreachableException {
        reads.forget(); // the host is about to change
        reads.ahead().invalidate();
        // the write also reads what the next task reads first, unless this task's outcome can change what that is
        boolean alone = task.loop().isPresent() || task.until().isPresent() || handler || setsVariables(task, module)
                || task.timeoutSeconds().isPresent();
        Connection applying = alone ? connection : reads.ahead().readingAfter(connection);
        try {
            Optional<ExecResult> last = apply(applying, plan, reboot -> {
                reads.ahead().invalidate(); // what was read before the restart is gone with it
                if (task.delegateTo().isPresent() && !task.delegateTo().get().equals(host.name())) {
                    throw new CommandRunner.CommandFailedException("a restart cannot be awaited through delegate_to; "
                            + "run the task on the host that restarts");
                }
                HostReturn.awaitReboot(connections, host, reboot);
                try {
                    return taskConnection(task, host, vars, reads);
                } catch (TemplateException e) {
                    throw new CommandRunner.CommandFailedException(e.getMessage());
                }
            });
            if (last.isEmpty() || last.get().exitCode() == 0) {
                reads.wrote(plan);
            }
            return new Applied(last, null);
        } catch (UnreachableException e) {
            throw e;
        } catch (ConnectionException | CommandRunner.CommandFailedException e) {
            return new Applied(Optional.empty(), e.getMessage());
        }
    }

    /**
     * The outcome step: the item's status, message and output from its plan and what applying it
     * came to, then {@code changed_when} and {@code failed_when}.
     */
    private TaskResult outcome(Task task, HostState host, ItemPlan planned, Applied applied, Params params,
                               Map<String, Object> vars, String label, boolean handler, TaskStep step) throws TemplateException {
        boolean check = checkMode(task);
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
        if (Boolean.TRUE.equals(output.get("failed")) && status != TaskStatus.FAILED) {
            // a read-only check that found a fault: the plan is empty, the verdict is in the result
            status = TaskStatus.FAILED;
            message = FleetRows.failingSummary(output);
        }
        if (output.get("msg") instanceof Object msg && message.isEmpty()) {
            message = String.valueOf(msg);
        }
        TaskResult result = TaskResult.builder(host.name(), status).changes(plan.changes()).message(message).itemLabel(label)
                .forecast(check && !plan.isEmpty())
                .conditional(check && (handler || step.holdsRunTimeOutput(params))).hidden(task.noLog()).output(output).build();
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

    /**
     * {@code async: N} with {@code poll: 0}: each program of the plan started in its own session,
     * detached from the connection (which may even go away: a restart), stopped after {@code seconds}.
     */
    static Plan inBackground(Plan plan, int seconds) throws ModuleException {
        List<Change> changes = new ArrayList<>();
        for (Change change : plan.changes()) {
            List<Command> commands = new ArrayList<>();
            for (Command command : change.commands()) {
                String script = switch (command) {
                    case Command.Exec e when e.stdin().length == 0 -> ShellWords.join(e.argv());
                    case Command.Shell sh -> sh.script();
                    default -> throw new ModuleException("'poll: 0' can start only a program in the background, and this "
                            + "task's plan holds more (" + change.summary() + ")");
                };
                commands.add(new Command.Shell("nohup setsid timeout " + seconds + " sh -c " + ShellWords.quote(script)
                        + " </dev/null >/dev/null 2>&1 &"));
            }
            changes.add(new Change(change.summary() + " (in the background, at most " + seconds + " s)", change.diffs(),
                    commands, change.sensitive()));
        }
        return new Plan(changes, plan.reason(), plan.facts(), plan.result(), plan.afterwards());
    }

    /** {@code wait_for_connection}: waits for the host itself (never a delegate), in a dry run too. */
    private TaskResult awaitConnection(Task task, HostState host, ConnectionWait wait, Params params, String label)
            throws UnreachableException {
        ConnectionWait.Timing timing;
        try {
            timing = wait.timing(params);
        } catch (ModuleException e) {
            return failure(host, task, positioned(task, e.getMessage())).withItemLabel(label);
        }
        Duration took = HostReturn.awaitConnection(connections, host, timing.delay(), timing.timeout());
        Map<String, Object> output = new LinkedHashMap<>();
        output.put("elapsed", took.toSeconds());
        return TaskResult.builder(host.name(), TaskStatus.OK).message("answered after " + took.toSeconds() + " s")
                .itemLabel(label).output(output).build();
    }

    /** The connection a task's commands run on: the host's (or delegate's), become, {@code environment:}, time limit. */
    private Connection taskConnection(Task task, HostState host, Map<String, Object> vars, HostReads reads)
            throws TemplateException, UnreachableException {
        return taskConnection(task, host, vars, reads.exchanges);
    }

    /** {@link #taskConnection(Task, HostState, Map, HostReads)}, its exchanges counted in {@code exchanges}. */
    private Connection taskConnection(Task task, HostState host, Map<String, Object> vars,
                                      java.util.concurrent.atomic.AtomicInteger exchanges)
            throws TemplateException, UnreachableException {
        // Ansible's timeout: each item of a loop (with its until retries) gets the task's time limit.
        return TimeLimitedConnection.of(
                EnvironmentConnection.of(CountingConnection.of(connections.forTask(task, play.play, host), exchanges),
                        environment(task, vars)),
                task.timeoutSeconds().map(Duration::ofSeconds).orElse(play.options.taskTimeout()),
                task.timeoutSeconds().map(s -> "timeout: " + s).orElse("--task-timeout " + play.options.taskTimeout().toSeconds()));
    }

    /**
     * The connection a cross-host round runs {@code task}'s commands on for {@code host}: the run's
     * connection with the task's become and {@code environment:}, as its own commands get; the round
     * bounds each command itself.
     */
    Connection launchConnection(Task task, HostState host) throws TemplateException, UnreachableException {
        Map<String, Object> vars = play.varsFor(task, host, Map.of());
        return EnvironmentConnection.of(connections.forTask(task, play.play, host), environment(task, vars));
    }

    /**
     * The task's {@code environment:} for this host: its layers (play, blocks, task) templated with the
     * task's variables and merged, a later layer's variable winning.
     */
    private Map<String, String> environment(Task task, Map<String, Object> vars) throws TemplateException {
        Map<String, String> merged = new LinkedHashMap<>();
        for (Object layer : task.keywords().environment()) {
            Object value = layer instanceof String expression
                    ? play.templates.evaluate(stripBraces(expression), vars, task.position())
                    : play.templates.interpolate(layer, vars, task.position());
            if (!(value instanceof Map<?, ?> variables)) {
                throw new TemplateException(task.position(), "'environment' must give a mapping of variable names "
                        + "to values, got " + describe(value));
            }
            for (Map.Entry<?, ?> e : variables.entrySet()) {
                String name = String.valueOf(e.getKey());
                if (!ShellWords.isName(name)) {
                    throw new TemplateException(task.position(), "'environment' names '" + name
                            + "', which is not an environment variable name (letters, digits and '_')");
                }
                Object v = e.getValue();
                if (v instanceof Map<?, ?> || v instanceof List<?>) {
                    throw new TemplateException(task.position(), "environment variable '" + name
                            + "' needs a single value, got " + describe(v));
                }
                merged.put(name, v == null ? "" : render(v));
            }
        }
        return merged;
    }

    /** Whether this task only plans: the run's {@code --check}, unless the task's {@code check_mode:} says otherwise. */
    boolean checkMode(Task task) {
        return task.checkMode().orElse(play.options.check());
    }

    /** The lost connection behind a module's failure, when that is what it was (a probe's transport broke). */
    private static Optional<UnreachableException> connectionLost(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnreachableException lost) {
                return Optional.of(lost);
            }
        }
        return Optional.empty();
    }

    private static void forecast(ConnectionHostView view, Forecast forecast, Plan plan) throws UnreachableException {
        for (Change change : plan.changes()) {
            for (Command command : change.commands()) {
                String path = switch (command) {
                    case Command.SetAttributes a -> a.path();
                    case Command.PutFile p -> p.path();
                    case Command.UploadFile u -> u.path();
                    case Command.MakeDirectory d -> d.path();
                    case Command.HardLink h -> h.target();
                    case Command.CopyFile f -> f.source();
                    default -> "";
                };
                Optional<dev.provision.modules.spi.FileStat> current = Optional.empty();
                if (!path.isEmpty()) {
                    try {
                        current = view.stat(path);
                    } catch (ModuleException e) {
                        current = Optional.empty();
                    }
                }
                forecast.record(command, current);
            }
        }
        forecast.record(plan);
    }

    /** What a plan's {@link Command.AwaitReboot} does: waits for the host and gives the connection to go on with. */
    interface Reboots {
        Connection await(Command.AwaitReboot reboot) throws UnreachableException, CommandRunner.CommandFailedException;
    }

    static Optional<ExecResult> apply(Connection connection, Plan plan, Reboots reboots)
            throws ConnectionException, CommandRunner.CommandFailedException {
        Optional<ExecResult> last = Optional.empty();
        // in order across the plan's changes: a write in one change and the program that applies
        // it in the next (sysctl's drop-in, then its live value) still go together
        List<Command> commands = plan.changes().stream().flatMap(c -> c.commands().stream()).toList();
        for (int i = 0; i < commands.size(); i++) {
            Command command = commands.get(i);
            if (command instanceof Command.AwaitReboot reboot) {
                connection = reboots.await(reboot);
                continue;
            }
            // writes and the programs that apply them (sysctl -w after the drop-in): one exchange
            int run = 0;
            while (i + run < commands.size() && inOneExchange(commands.get(i + run))) {
                run++;
            }
            if (run >= 2) {
                List<Command> steps = commands.subList(i, i + run);
                Steps done = connection.inOneExchange(steps);
                if (done.failedWrite().isPresent()) {
                    throw done.failedWrite().get();
                }
                if (done.lastProgram().isPresent()) {
                    last = done.lastProgram();
                }
                i += run - 1;
                if (done.stopped(run)) {
                    return last;
                }
                continue;
            }
            Optional<ExecResult> r = CommandRunner.run(connection, command);
            if (r.isPresent()) {
                last = r;
                if (r.get().exitCode() != 0) {
                    return last; // a failed program stops the plan, like a failed shell step
                }
            }
        }
        return last;
    }

    /** Whether {@code command} can run with others in one exchange ({@link Connection#inOneExchange}). */
    static boolean inOneExchange(Command command) {
        return command instanceof Command.PutFile || command instanceof Command.Exec e && e.stdin().length == 0;
    }

    /** The task's arguments with the free form mapped to its parameter and templates rendered. */
    private Map<String, Object> arguments(Task task, ParamSpec spec, Map<String, Object> vars) throws TemplateException, ParamException {
        Set<String> bare = spec.expressions(); // evaluated by the module, not interpolated first
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : task.args().entrySet()) {
            String key = e.getKey();
            if (key.equals(Task.FREE_FORM)) {
                key = spec.freeForm().orElseThrow(() -> new ParamException(Task.FREE_FORM,
                        "module '" + task.module() + "' takes no free-form argument; give its parameters as a mapping"));
            }
            SourcePosition at = task.argPositions().getOrDefault(e.getKey(), task.position());
            Object value = bare.contains(key) ? e.getValue() : withoutOmitted(play.templates.interpolate(e.getValue(), vars, at));
            if (!PlayContext.OMIT.equals(value)) {
                out.put(key, value);
            }
        }
        return out;
    }

    /** A rendered value with the mapping entries that rendered to {@code omit} left out, at any depth (Ansible's remove_omit). */
    private static Object withoutOmitted(Object value) {
        return switch (value) {
            case Map<?, ?> m -> {
                Map<Object, Object> kept = new LinkedHashMap<>();
                m.forEach((k, v) -> {
                    if (!PlayContext.OMIT.equals(v)) {
                        kept.put(k, withoutOmitted(v));
                    }
                });
                yield kept;
            }
            case List<?> l -> l.stream().map(TaskRunner::withoutOmitted).toList();
            case null, default -> value;
        };
    }

    private Map<String, Object> withRegistered(Task task, Map<String, Object> vars, TaskResult result) {
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
        m.putAll(r.output());
        m.put("changed", r.status() == TaskStatus.CHANGED);
        m.put("failed", r.status() == TaskStatus.FAILED || r.status() == TaskStatus.IGNORED);
        m.put("skipped", r.status() == TaskStatus.SKIPPED);
        m.put("check_mode", r.forecast());
        m.put("msg", r.message());
        m.put("changes", r.changes().stream().map(Change::summary).toList());
        return m;
    }

    private static TaskResult failure(HostState host, Task task, String message) {
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

    private static String stripBraces(String s) {
        String t = s.strip();
        if (t.startsWith("${") && t.endsWith("}") && t.indexOf("${", 2) < 0) {
            return t.substring(2, t.length() - 1);
        }
        return t;
    }

    private static String render(Object item) {
        return item instanceof Map<?, ?> || item instanceof List<?> ? String.valueOf(item) : String.valueOf(item);
    }

    private static String describe(Object o) {
        return o == null ? "nothing" : o instanceof Map ? "a mapping" : "'" + o + "'";
    }

    /**
     * How a program that exited non-zero fails its task, in a run and when a saved plan is applied
     * alike: the code and the first line it printed (stderr, else stdout), none under {@code no_log}.
     */
    static String nonZero(ExecResult r, boolean hidden) {
        String text = r.stderrText().isBlank() ? r.stdoutText() : r.stderrText();
        return "non-zero return code " + r.exitCode() + (text.isBlank() || hidden ? "" : ": " + text.strip().lines().findFirst().orElse(""));
    }

    private static void sleep(int seconds) {
        try {
            Thread.sleep(Duration.ofSeconds(Math.max(0, seconds)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
