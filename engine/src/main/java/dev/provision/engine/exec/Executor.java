package dev.provision.engine.exec;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.SshArguments;
import dev.provision.engine.inventory.Host;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Block;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.playbook.TaskNode;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateEngine;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * Runs a playbook. Per play: select hosts, split them in {@code serial} batches, and hand each batch
 * to a {@link PlayWalker}: it connects to every host of the batch once (in parallel, at most
 * {@code forks} at a time), reads its facts in one round trip, then walks the tasks in order, each
 * run of tasks taken by a {@link Strategy} ({@link LinearStrategy}: Ansible's linear, each task on
 * all active hosts in parallel; {@link RunAheadStrategy}: hosts that need not wait for each other
 * do not), the {@link ResultRecorder} reporting results in host order and judging the failure
 * thresholds; handlers run at the end of each section for the hosts that were notified. The
 * executor itself owns the run: the thread pool, the connections, the stop request.
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

    /**
     * The hosts each play would run on, after {@code --limit}.
     *
     * @throws InvalidInputException a malformed pattern: at the play's {@code hosts:}, or on the command line
     */
    public static List<Host> selectHosts(Play play, Inventory inventory, RunOptions options, TemplateEngine templates)
            throws InvalidInputException {
        List<Host> selected;
        try {
            selected = inventory.select(hostPattern(play, options, templates));
        } catch (InvalidInputException e) {
            if (!e.position().equals(SourcePosition.UNKNOWN)) {
                throw e;
            }
            throw new InvalidInputException(play.hostsPosition(), e.problem(), e);
        }
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
            return new PlanApplier(connectionFactory, listener, becomePassword, options.forks(), options.taskTimeout()).apply(plans, hosts, inventory);
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

    /** Runs {@code playbook}, which {@link RunChecks#playbook} passed: the caller refuses it before this when it does not. */
    public RunSummary run(Playbook playbook, Inventory inventory) throws InvalidInputException {
        // every host the run meets (a delegate_facts target too); the recap is of those that played
        Map<String, HostState> states = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
        Set<HostState> played = new java.util.LinkedHashSet<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
             Connections connections = new Connections(connectionFactory, inventory, becomePassword)) {
            Semaphore forks = new Semaphore(options.forks());
            StartGate start = new StartGate(options.startAtTask().orElse(null));
            boolean stopped = false;
            Set<String> warned = new HashSet<>();
            for (Play play : playbook.plays()) {
                List<Host> hosts = selectHosts(play, inventory, options, templates);
                if (hosts.isEmpty()) {
                    listener.noHostsMatched(play.hosts());
                    continue;
                }
                warnUnusedSshArguments(hosts, warned);
                List<HostState> playHosts = new ArrayList<>();
                for (Host h : hosts) {
                    playHosts.add(states.computeIfAbsent(h.name(), n -> new HostState(h)));
                    played.add(playHosts.getLast());
                }
                listener.playStarted(play.name().isEmpty() ? play.hosts() : play.name(),
                        playHosts.stream().map(HostState::name).toList(), options.check());
                for (List<HostState> batch : Batches.split(playHosts, play.serial())) {
                    Map<String, HostState> batchMap = new LinkedHashMap<>();
                    batch.forEach(h -> batchMap.put(h.name(), h));
                    PlayContext ctx = new PlayContext(play, playbook.directory(), batchMap, states, inventory, options, templates,
                            factCache, connectionFactory::hostKeys);
                    BatchRun batchRun = new BatchRun(ctx, new TaskRunner(ctx, modules, connections, recording), modules,
                            pool, forks, listener, () -> stopRequested);
                    if (!new PlayWalker(batchRun, connections, factCache, options, start).execute()) {
                        // As in Ansible: a failure threshold is a brake on a rolling change, so it
                        // stops the remaining batches and the remaining plays.
                        stopped = true;
                        listener.warning(ResultRecorder.stoppedBy(play));
                        break;
                    }
                }
                if (stopped || stopRequested) {
                    break;
                }
            }
        } finally {
            synchronized (states) {
                states.values().forEach(HostState::closeConnection);
            }
            java.util.Arrays.fill(becomePassword, '\0');
        }
        return RunSummary.of(played, stopRequested);
    }

    /**
     * One warning per ssh argument variable and set of arguments provision does not act on (Ansible
     * hands them to ssh; provision has none), naming a few of the hosts; each only once per run.
     */
    private void warnUnusedSshArguments(List<Host> hosts, Set<String> warned) {
        Map<String, List<String>> hostsBySaying = new LinkedHashMap<>();
        for (Host h : hosts) {
            for (String variable : SshArguments.VARIABLES) {
                List<String> unused = SshArguments.unused(h.vars(), variable);
                if (!unused.isEmpty()) {
                    String saying = variable + ": provision does not act on " + String.join(", ", unused);
                    hostsBySaying.computeIfAbsent(saying, k -> new ArrayList<>()).add(h.name());
                }
            }
        }
        hostsBySaying.forEach((saying, names) -> {
            if (warned.add(saying)) {
                String who = String.join(", ", names.subList(0, Math.min(3, names.size())))
                        + (names.size() > 3 ? " and " + (names.size() - 3) + " more" : "");
                listener.warning(saying + " (" + who + "); it uses -o ProxyJump or -J, -o ServerAliveInterval and"
                        + " -o ServerAliveCountMax only, and always verifies host keys");
            }
        });
    }

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
}
