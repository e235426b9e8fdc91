package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.inventory.Host;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Block;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.playbook.TaskNode;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.modules.spi.FleetCheck;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * Runs a playbook. Per play: select hosts, split them in {@code serial} batches, connect to every
 * host of a batch once (in parallel, at most {@code forks} at a time) and read its facts in one
 * round trip; then walk the tasks in order, each task on all active hosts of the batch in parallel
 * (Ansible's linear strategy), reporting results in host order; handlers run at the end of each
 * section for the hosts that were notified.
 */
public final class Executor {
    private volatile boolean stopRequested;
    private Optional<PlanRecording> recording = Optional.empty();
    private final ModuleRegistry modules;
    private final TemplateEngine templates;
    private final ConnectionFactory connectionFactory;
    private final RunListener listener;
    private final RunOptions options;
    private final FactCache factCache;
    private final char[] becomePassword;

    public Executor(ModuleRegistry modules, TemplateEngine templates, ConnectionFactory connectionFactory,
                    RunListener listener, RunOptions options) {
        this(modules, templates, connectionFactory, listener, options, FactCache.none(), new char[0]);
    }

    public Executor(ModuleRegistry modules, TemplateEngine templates, ConnectionFactory connectionFactory,
                    RunListener listener, RunOptions options, char[] becomePassword) {
        this(modules, templates, connectionFactory, listener, options, FactCache.none(), becomePassword);
    }

    /**
     * @param factCache where gathered facts are kept for runs that do not contact every host
     * @param becomePassword the sudo password for tasks with {@code become} ({@code -K} or
     *     {@code PROVISION_BECOME_PASSWORD}); copied, wiped at the end of {@link #run}; empty for none
     */
    public Executor(ModuleRegistry modules, TemplateEngine templates, ConnectionFactory connectionFactory,
                    RunListener listener, RunOptions options, FactCache factCache, char[] becomePassword) {
        this.factCache = requireNonNull(factCache, "factCache cannot be null");
        this.becomePassword = requireNonNull(becomePassword, "becomePassword cannot be null").clone();
        this.modules = requireNonNull(modules, "modules cannot be null");
        this.templates = requireNonNull(templates, "templates cannot be null");
        this.connectionFactory = requireNonNull(connectionFactory, "connectionFactory cannot be null");
        this.listener = requireNonNull(listener, "listener cannot be null");
        this.options = requireNonNull(options, "options cannot be null");
    }

    /** The hosts each play would run on, after {@code --limit}. */
    public static List<Host> selectHosts(Play play, Inventory inventory, RunOptions options, TemplateEngine templates)
            throws InvalidInputException {
        List<Host> selected = inventory.select(hostPattern(play, options, templates));
        if (options.limit().isPresent()) {
            Set<String> limited = new HashSet<>();
            inventory.select(options.limit().get()).forEach(h -> limited.add(h.name()));
            selected = selected.stream().filter(h -> limited.contains(h.name())).toList();
        }
        return selected;
    }

    /** {@code hosts:} may use play vars and extra vars ({@code hosts: "${target!'gpu'}"}), as in Ansible. */
    private static String hostPattern(Play play, RunOptions options, TemplateEngine templates) throws InvalidInputException {
        if (!play.hosts().contains("${")) {
            return play.hosts();
        }
        Map<String, Object> vars = new LinkedHashMap<>(play.varsFiles());
        vars.putAll(play.vars());
        vars.putAll(options.extraVars());
        try {
            return String.valueOf(templates.interpolate(play.hosts(), vars, play.position()));
        } catch (dev.provision.engine.template.TemplateException e) {
            throw new InvalidInputException(play.position(), "hosts: " + e.problem());
        }
    }

    /**
     * Makes {@link #run} (a check run) record every plan it makes into {@code plans}: for a saved
     * plan, and for {@link #applyRecorded}.
     */
    public Executor record(PlanRecording plans) {
        if (!options.check()) {
            throw new IllegalStateException("only a dry run records plans");
        }
        this.recording = Optional.of(plans);
        return this;
    }

    /**
     * Applies exactly what {@code plans} recorded for {@code hosts} (see {@link PlanApplier}): no
     * host is planned again, so what is applied is what the dry run showed.
     */
    public RunSummary applyRecorded(PlanRecording plans, List<String> hosts, Inventory inventory) {
        try {
            return new PlanApplier(connectionFactory, listener, becomePassword, options.forks()).apply(plans, hosts, inventory);
        } finally {
            java.util.Arrays.fill(becomePassword, '\0');
        }
    }

    /**
     * Asks a running {@link #run} to stop gracefully (the operator pressed Ctrl-C): no new task or
     * handler starts, the tasks running now finish, and {@code run} returns a summary that says it
     * was interrupted. Safe from any thread.
     */
    public void requestStop() {
        stopRequested = true;
    }

    public RunSummary run(Playbook playbook, Inventory inventory) throws InvalidInputException {
        RunChecks.playbook(playbook, options, templates);
        Map<String, HostState> states = new LinkedHashMap<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
             Connections connections = new Connections(connectionFactory, inventory, becomePassword)) {
            Semaphore forks = new Semaphore(options.forks());
            StartGate start = new StartGate(options.startAtTask().orElse(null));
            boolean stopped = false;
            for (Play play : playbook.plays()) {
                List<Host> hosts = selectHosts(play, inventory, options, templates);
                if (hosts.isEmpty()) {
                    listener.noHostsMatched(play.hosts());
                    continue;
                }
                List<HostState> playHosts = new ArrayList<>();
                for (Host h : hosts) {
                    playHosts.add(states.computeIfAbsent(h.name(), n -> new HostState(h)));
                }
                listener.playStarted(play.name().isEmpty() ? play.hosts() : play.name(),
                        playHosts.stream().map(HostState::name).toList(), options.check());
                for (List<HostState> batch : Batches.split(playHosts, play.serial())) {
                    Map<String, HostState> batchMap = new LinkedHashMap<>();
                    batch.forEach(h -> batchMap.put(h.name(), h));
                    PlayContext ctx = new PlayContext(play, playbook.directory(), batchMap, inventory, options, templates,
                            factCache, connectionFactory::hostKeys);
                    PlayRun run = new PlayRun(ctx, new TaskRunner(ctx, modules, connections, recording), connections, pool, forks, start);
                    if (!run.execute()) {
                        // As in Ansible: a failure threshold is a brake on a rolling change, so it
                        // stops the remaining batches and the remaining plays.
                        stopped = true;
                        listener.warning("play '" + (play.name().isEmpty() ? play.hosts() : play.name())
                                + "' stopped by " + (play.anyErrorsFatal() ? "any_errors_fatal" : "max_fail_percentage")
                                + "; no further tasks or plays run");
                        break;
                    }
                }
                if (stopped || stopRequested) {
                    break;
                }
            }
        } finally {
            states.values().forEach(HostState::closeConnection);
            java.util.Arrays.fill(becomePassword, '\0');
        }
        return RunSummary.of(states.values(), stopRequested);
    }

    /** A notify that names no handler is a mistake in the playbook, found before anything runs. */
    /** The play's tasks in run order (pre_tasks, roles and tasks, post_tasks), blocks flattened; no handlers. */
    public static List<Task> tasksOf(Play play) {
        List<Task> out = new ArrayList<>();
        for (List<TaskNode> section : List.of(play.preTasks(), play.tasks(), play.postTasks())) {
            collect(section, out);
        }
        return out;
    }

    static List<Task> allTasks(Play play) {
        List<Task> out = new ArrayList<>();
        for (List<TaskNode> section : List.of(play.preTasks(), play.tasks(), play.postTasks())) {
            collect(section, out);
        }
        collect(new ArrayList<>(play.handlers()), out);
        return out;
    }

    private static void collect(List<? extends TaskNode> nodes, List<Task> out) {
        for (TaskNode n : nodes) {
            switch (n) {
                case Task t -> out.add(t);
                case Block b -> {
                    collect(b.block(), out);
                    collect(b.rescue(), out);
                    collect(b.always(), out);
                }
            }
        }
    }

    /** {@code --start-at-task}: nothing runs until a task of that name is reached. */
    static final class StartGate {
        private String waitingFor;

        StartGate(String name) {
            this.waitingFor = name;
        }

        boolean open(Task task) {
            if (waitingFor != null && (task.name().equals(waitingFor) || task.displayName().equals(waitingFor))) {
                waitingFor = null;
            }
            return waitingFor == null;
        }
    }

    /** One batch of one play. */
    private final class PlayRun {
        private final PlayContext ctx;
        private final TaskRunner runner;
        private final Connections connections;
        private final ExecutorService pool;
        private final Semaphore forks;
        private final StartGate start;
        private final List<HostState> hosts;
        private boolean aborted;

        PlayRun(PlayContext ctx, TaskRunner runner, Connections connections, ExecutorService pool, Semaphore forks, StartGate start) {
            this.ctx = ctx;
            this.runner = runner;
            this.connections = connections;
            this.pool = pool;
            this.forks = forks;
            this.start = start;
            this.hosts = List.copyOf(ctx.hosts.values());
        }

        /** @return false when the play must stop for all hosts (failure thresholds) */
        boolean execute() {
            connectAndGather();
            for (List<TaskNode> section : List.of(ctx.play.preTasks(), ctx.play.tasks(), ctx.play.postTasks())) {
                runNodes(section, hosts);
                flushHandlers();
                if (aborted) {
                    return false;
                }
            }
            return true;
        }

        private void connectAndGather() {
            List<HostState> pending = hosts.stream().filter(h -> h.active()).toList();
            boolean gather = ctx.play.gatherFacts();
            if (gather) {
                listener.taskStarted("Gathering Facts", ctx.play.position().toString(), false);
            }
            Map<HostState, TaskResult> results = parallel(gather ? "Gathering Facts" : "Connecting", pending, h -> {
                try {
                    if (h.connection().isEmpty()) {
                        connections.open(h);
                    }
                    if (gather && h.facts().isEmpty()) {
                        ExecResult r = h.connection().orElseThrow().exec(ExecRequest.shell(Facts.SCRIPT));
                        h.facts(Facts.parse(r.stdoutText()));
                        if (!h.host.vars().containsKey("ansible_connection") || !"local".equals(h.host.vars().get("ansible_connection"))) {
                            factCache.store(h.name(), h.facts());
                        }
                    }
                    return TaskResult.simple(h.name(), TaskStatus.OK, "");
                } catch (UnreachableException e) {
                    return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
                } catch (ConnectionException e) {
                    return TaskResult.simple(h.name(), TaskStatus.UNREACHABLE, e.getMessage());
                }
            });
            for (HostState h : pending) {
                TaskResult r = results.get(h);
                if (r.status() == TaskStatus.UNREACHABLE) {
                    h.markUnreachable();
                    ctx.hostsChanged();
                    h.stats.count(TaskStatus.UNREACHABLE);
                    listener.hostResult(r);
                } else if (gather) {
                    h.stats.count(TaskStatus.OK);
                    listener.hostResult(r);
                }
            }
        }

        private void runNodes(List<TaskNode> nodes, List<HostState> scope) {
            for (int i = 0; i < nodes.size(); ) {
                List<HostState> active = scope.stream().filter(HostState::active).toList();
                if (active.isEmpty() || aborted || stopRequested) {
                    return;
                }
                int end = runAheadEnd(nodes, i, active);
                if (end > i + 1) {
                    runAhead(nodes.subList(i, end).stream().map(Task.class::cast).toList(), active);
                    i = end;
                    continue;
                }
                switch (nodes.get(i)) {
                    case Task t -> runTask(t, active, false);
                    case Block b -> runBlock(b, active);
                }
                i++;
            }
        }

        /**
         * The end of the tasks from {@code i} on that the hosts may go through without waiting for
         * each other at every task: consecutive tasks of host-local modules ({@link
         * dev.provision.modules.spi.TaskModule#isHostLocal}), none of which compares or joins hosts
         * ({@code run_once}, {@code delegate_to}, fleet checks). Any other task starts when every
         * host has finished the ones before it; blocks, handlers and {@code serial} batches keep
         * their points; a play with a failure threshold (judged after every task) never runs ahead.
         * More hosts than {@code forks} run ahead too: a host waiting on another gives its fork
         * back while it waits ({@link RunAhead#withFork}), so it never holds the fork that one needs.
         */
        private int runAheadEnd(List<TaskNode> nodes, int i, List<HostState> active) {
            if (active.size() < 2 || ctx.play.anyErrorsFatal() || ctx.play.maxFailPercentage().isPresent()) {
                return i;
            }
            int end = i;
            while (end < nodes.size() && nodes.get(end) instanceof Task t && mayRunAhead(t)) {
                end++;
            }
            return end;
        }

        /** A task of a host-local module, on its own host, that neither joins nor compares hosts. */
        private boolean mayRunAhead(Task task) {
            return !task.runOnce() && task.delegateTo().isEmpty() && !isFleetStep(task)
                    && modules.module(task.module()).orElseThrow().isHostLocal();
        }

        private boolean isFleetStep(Task task) {
            return task.loop().isEmpty() && modules.module(task.module()).orElseThrow() instanceof FleetCheck;
        }

        /**
         * Runs {@code tasks} with every host going on to its next task as soon as it is done with
         * one (no barrier across hosts), while results are still reported task by task, in host
         * order, exactly as the linear strategy reports them. A host that fails or becomes
         * unreachable stops, as it would drop out of the linear strategy's next task.
         */
        private void runAhead(List<Task> tasks, List<HostState> active) {
            List<Task> selected = tasks.stream().filter(t -> selectedByTags(t) && start.open(t)).toList();
            if (selected.size() < 2) {
                selected.forEach(t -> runTask(t, active, false));
                return;
            }
            List<Map<HostState, CompletableFuture<TaskResult>>> results = new ArrayList<>();
            for (int k = 0; k < selected.size(); k++) {
                Map<HostState, CompletableFuture<TaskResult>> byHost = new LinkedHashMap<>();
                active.forEach(h -> byHost.put(h, new CompletableFuture<>()));
                results.add(byHost);
            }
            RunAhead progress = new RunAhead(active.stream().map(HostState::name).collect(java.util.stream.Collectors.toSet()), forks);
            ctx.runAhead(progress);
            try {
                for (HostState h : active) {
                    pool.submit(() -> runAheadOn(h, selected, results, progress));
                }
                for (int k = 0; k < selected.size(); k++) {
                    Task task = selected.get(k);
                    Map<HostState, TaskResult> taskResults = new LinkedHashMap<>();
                    List<HostState> ran = new ArrayList<>();
                    int done = 0;
                    for (HostState h : active) {
                        TaskResult r = results.get(k).get(h).join();
                        done++;
                        if (r != null) {
                            if (ran.isEmpty()) { // as in the linear strategy: no header for a task no host runs
                                listener.taskStarted(task.displayName(), task.position().toString(), false);
                            }
                            taskResults.put(h, r);
                            ran.add(h);
                        }
                        if (!ran.isEmpty()) {
                            listener.progress(task.displayName(), done, active.size());
                        }
                    }
                    if (!ran.isEmpty()) {
                        record(task, ran, taskResults);
                    }
                }
            } finally {
                ctx.runAhead(null);
            }
        }

        private void runAheadOn(HostState h, List<Task> tasks, List<Map<HostState, CompletableFuture<TaskResult>>> results,
                                RunAhead progress) {
            int k = 0;
            try {
                for (; k < tasks.size() && !stopRequested; k++) {
                    progress.starting(h.name(), k);
                    Task task = tasks.get(k);
                    TaskResult r = progress.withFork(() -> {
                        try {
                            return runner.run(task, h, false);
                        } catch (RuntimeException e) {
                            // a bug in the engine or a module: the host fails with the cause, the run goes on
                            return TaskResult.simple(h.name(), TaskStatus.FAILED, "internal error: " + e);
                        }
                    });
                    results.get(k).get(h).complete(r);
                    boolean dropsOut = r.status() == TaskStatus.FAILED || r.status() == TaskStatus.UNREACHABLE;
                    if (dropsOut) {
                        progress.failed(h.name(), k); // before finished: a waiting reader must see both
                    }
                    progress.finished(h.name(), k);
                    if (dropsOut) {
                        k++;
                        break;
                    }
                }
            } finally {
                for (; k < tasks.size(); k++) {
                    results.get(k).get(h).complete(null); // not run: the host dropped out
                }
                progress.stopped(h.name());
            }
        }

        private void runBlock(Block b, List<HostState> scope) {
            runNodes(b.block(), scope);
            List<HostState> failedInBlock = scope.stream().filter(h -> h.failed() && !h.unreachable()).toList();
            if (!b.rescue().isEmpty() && !failedInBlock.isEmpty()) {
                failedInBlock.forEach(h -> {
                    h.failed(false);
                    h.stats.rescue();
                });
                ctx.hostsChanged();
                runNodes(b.rescue(), failedInBlock);
            }
            List<HostState> stillFailed = scope.stream().filter(h -> h.failed() && !h.unreachable()).toList();
            if (!b.always().isEmpty()) {
                stillFailed.forEach(h -> h.failed(false));
                ctx.hostsChanged();
                runNodes(b.always(), scope);
                stillFailed.forEach(h -> h.failed(true));
                ctx.hostsChanged();
            }
        }

        private void runTask(Task task, List<HostState> active, boolean handler) {
            if (stopRequested || !handler && (!selectedByTags(task) || !start.open(task))) {
                return;
            }
            listener.taskStarted(task.displayName(), task.position().toString(), handler);
            Map<HostState, TaskResult> results;
            if (task.runOnce()) {
                HostState first = active.get(0);
                TaskResult r = runner.run(task, first, handler);
                results = new LinkedHashMap<>();
                results.put(first, r);
                task.register().ifPresent(name -> first.runtimeVars().entrySet().stream()
                        .filter(e -> e.getKey().equals(name))
                        .forEach(e -> active.forEach(h -> h.setVar(name, e.getValue()))));
            } else {
                results = parallel(task.displayName(), active, h -> runner.run(task, h, handler));
            }
            if (isFleetStep(task)) {
                results = fleetStep(task, (FleetCheck) modules.module(task.module()).orElseThrow(), results);
            }
            record(task, active, results);
        }

        /** Counts and reports a task's results in host order; failures, notifications, thresholds. */
        private void record(Task task, List<HostState> active, Map<HostState, TaskResult> results) {
            int failures = 0;
            for (HostState h : active) {
                TaskResult r = results.get(h);
                if (r == null) {
                    continue;
                }
                h.stats.count(r.status());
                listener.hostResult(r);
                switch (r.status()) {
                    case FAILED -> {
                        h.failed(true);
                        failures++;
                    }
                    case UNREACHABLE -> h.markUnreachable();
                    case CHANGED -> task.notifies().forEach(h::notify);
                    default -> { }
                }
                if (task.runOnce() && r.status() == TaskStatus.CHANGED) {
                    active.forEach(o -> task.notifies().forEach(o::notify));
                }
            }
            if (results.values().stream().anyMatch(r -> r.status() == TaskStatus.FAILED || r.status() == TaskStatus.UNREACHABLE)) {
                ctx.hostsChanged();
            }
            if (failures > 0 && ctx.play.anyErrorsFatal()) {
                aborted = true;
            }
            if (ctx.play.maxFailPercentage().isPresent()) {
                long failedHosts = hosts.stream().filter(h -> h.failed() || h.unreachable()).count();
                if (failedHosts * 100.0 / hosts.size() > ctx.play.maxFailPercentage().get()) {
                    aborted = true;
                }
            }
        }

        /** The aggregation step: the module compares all hosts' results; registered values follow. */
        private Map<HostState, TaskResult> fleetStep(Task task, FleetCheck fleet, Map<HostState, TaskResult> results) {
            Map<String, TaskResult> byName = new LinkedHashMap<>();
            results.forEach((h, r) -> byName.put(h.name(), r));
            Map<String, TaskResult> compared = FleetRows.apply(fleet, byName, task.ignoreErrors());
            Map<HostState, TaskResult> out = new LinkedHashMap<>();
            results.forEach((h, r) -> {
                TaskResult updated = compared.getOrDefault(h.name(), r);
                if (updated != r) {
                    task.register().ifPresent(name -> h.setVar(name, TaskRunner.registerValue(updated)));
                }
                out.put(h, updated);
            });
            return out;
        }

        private boolean selectedByTags(Task task) {
            Set<String> tags = new HashSet<>(task.tags());
            tags.addAll(ctx.play.tags());
            if (!options.skipTags().isEmpty() && tags.stream().anyMatch(options.skipTags()::contains)) {
                return false;
            }
            if (options.tags().isEmpty() || options.tags().contains("all") || tags.contains("always")) {
                return true;
            }
            return tags.stream().anyMatch(options.tags()::contains);
        }

        private void flushHandlers() {
            Map<HostState, Set<String>> notified = new LinkedHashMap<>();
            for (HostState h : hosts) {
                Set<String> n = h.takeNotified();
                if (!n.isEmpty() && h.active()) {
                    notified.put(h, n);
                }
            }
            if (notified.isEmpty()) {
                return;
            }
            if (stopRequested) {
                // What the changes made so far still need: the next run does not notify again.
                Set<String> pending = new java.util.TreeSet<>();
                notified.forEach((h, topics) -> pending.add(h.name() + ": " + String.join(", ", topics)));
                listener.warning("interrupted before these handlers ran (run them by hand): " + String.join("; ", pending));
                return;
            }
            for (Task handler : ctx.play.handlers()) {
                List<HostState> targets = new ArrayList<>();
                notified.forEach((h, topics) -> {
                    if (topics.contains(handler.name()) || handler.listen().stream().anyMatch(topics::contains)) {
                        targets.add(h);
                    }
                });
                List<HostState> active = targets.stream().filter(HostState::active).toList();
                if (!active.isEmpty()) {
                    runTask(handler, active, true);
                }
            }
        }

        private Map<HostState, TaskResult> parallel(String step, List<HostState> targets, Function<HostState, TaskResult> work) {
            Map<HostState, Future<TaskResult>> futures = new LinkedHashMap<>();
            java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
            Object progressLock = new Object();
            for (HostState h : targets) {
                futures.put(h, pool.submit(() -> {
                    forks.acquireUninterruptibly();
                    try {
                        return work.apply(h);
                    } finally {
                        forks.release();
                        // Serialised, and over before the future completes: the listener contract holds.
                        synchronized (progressLock) {
                            listener.progress(step, done.incrementAndGet(), targets.size());
                        }
                    }
                }));
            }
            Map<HostState, TaskResult> results = new LinkedHashMap<>();
            for (Map.Entry<HostState, Future<TaskResult>> e : futures.entrySet()) {
                try {
                    results.put(e.getKey(), e.getValue().get());
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    results.put(e.getKey(), TaskResult.simple(e.getKey().name(), TaskStatus.FAILED, "interrupted"));
                } catch (ExecutionException ex) {
                    // a bug in the engine or a module: the host fails with the cause, the run goes on
                    Throwable cause = ex.getCause();
                    results.put(e.getKey(), TaskResult.simple(e.getKey().name(), TaskStatus.FAILED,
                            "internal error: " + cause));
                }
            }
            return results;
        }
    }
}
