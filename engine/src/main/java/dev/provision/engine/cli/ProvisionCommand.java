package dev.provision.engine.cli;

import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.connection.SshConnectionFactory;
import dev.provision.engine.exec.Executor;
import dev.provision.engine.exec.FactCache;
import dev.provision.engine.exec.ModuleRegistry;
import dev.provision.engine.exec.PlanRecording;
import dev.provision.engine.exec.RunChecks;
import dev.provision.engine.exec.RunOptions;
import dev.provision.engine.exec.RunSummary;
import dev.provision.engine.config.AnsibleConfig;
import dev.provision.engine.inventory.Host;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.plan.PlanApply;
import dev.provision.engine.plan.SavedPlan;
import dev.provision.engine.plan.SavedPlans;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.playbook.PlaybookLoader;
import dev.provision.engine.report.HumanOutput;
import dev.provision.engine.report.HtmlReport;
import dev.provision.engine.report.JsonReport;
import dev.provision.engine.report.Listeners;
import dev.provision.engine.report.ProgressLine;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.modules.text.ShellWords;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code provision [OPTIONS] PLAYBOOK}. */
@Command(name = "provision", mixinStandardHelpOptions = true, versionProvider = ProvisionCommand.Version.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"Converge hosts to the state a YAML playbook describes, over one SSH connection per host.", ""},
        footerHeading = "%nExamples:%n",
        // Every footer line fits 80 columns: picocli would break longer ones in the middle of a word.
        footer = {
            "  Converge the cluster:",
            "    provision -i inventory.yml playbooks/cluster.yml",
            "  Show what would change, change nothing:",
            "    provision -i inventory.yml --check --diff playbooks/cluster.yml",
            "  Accept a rebuilt node's new host key; converge it and update the others:",
            "    provision -i inventory.yml --replaced node07 playbooks/cluster.yml",
            "  Rewrite an Ansible playbook's Jinja2 as FreeMarker (shows the diff):",
            "    provision migrate site.yml roles/*/tasks/*.yml",
            "  Run against this machine, with variables from a file:",
            "    provision -i localhost, -e @vars.yml -e dir=/tmp/x site.yml",
            "",
            "Exit codes:",
            "  0 ok                        4 invalid playbook, inventory or variables",
            "  1 internal error            5 usage error (unknown option, no playbook)",
            "  2 a task failed             6 changes made, or pending under --check",
            "  3 a host was unreachable      (only with --detailed-exitcodes)",
            "  7 --apply-plan: a host moved since the plan; it was left untouched",
            "  8 a check could not be judged (UNKNOWN), none failed: see the recap",
            "  130 interrupted (Ctrl-C): the running tasks finished, recap written"})
public final class ProvisionCommand implements Callable<Integer> {
    /** A run this large shows a live progress line on a terminal; smaller ones finish too fast to need it. */
    static final int PROGRESS_MIN_HOSTS = 10;
    /** At most this many hosts are named in a sentence of the end hints (the command still names all). */
    static final int NAMED_IN_BRIEF = 5;
    /** What a printed hint shows instead of an inline {@code -e} value (see {@link #argsForHint}). */
    static final String HIDDEN_VARS = "<your -e values>";

    @Parameters(index = "0", arity = "0..1", paramLabel = "PLAYBOOK",
            description = "The playbook to run (not needed with --apply-plan or --show-plan: the plan names it).")
    Path playbook;

    @Option(names = {"-i", "--inventory"}, paramLabel = "SOURCE",
            description = "Inventory file (YAML or INI), directory, or comma list of hosts (host1,host2 or host1,). Repeatable."
                    + " Default: localhost only.")
    List<String> inventory = new ArrayList<>();

    /** What picocli parsed: whether an option was given, not just what it holds. */
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--roles-path", paramLabel = "DIRS", description = "Also look for roles in these directories (colon-separated;"
            + " as ansible-playbook's; else $ANSIBLE_ROLES_PATH, else ansible.cfg's roles_path).")
    String rolesPath;

    @Option(names = {"-l", "--limit"}, paramLabel = "PATTERN", description = "Further limit the hosts (pattern, e.g. 'gpu:!node07' or 'node01,node02').")
    String limit;

    @Option(names = {"-C", "--check"}, description = "Plan only: report what would change, change nothing.")
    boolean check;

    @Option(names = {"-D", "--diff"}, description = "Show unified diffs of the files and values that change (or would change).")
    boolean diff;

    @Option(names = {"-t", "--tags"}, split = ",", paramLabel = "TAGS", description = "Run only tasks with these tags.")
    Set<String> tags = new LinkedHashSet<>();

    @Option(names = "--skip-tags", split = ",", paramLabel = "TAGS", description = "Skip tasks with these tags.")
    Set<String> skipTags = new LinkedHashSet<>();

    @Option(names = {"-f", "--forks"}, paramLabel = "N", description = "Hosts worked on at once (default: all selected hosts, up to ${DEFAULT-VALUE}).", defaultValue = "1000")
    int forks;

    @Option(names = {"-e", "--extra-vars"}, paramLabel = "VARS", description = "Variables that override all others: key=value, YAML/JSON, or @file. Repeatable.")
    List<String> extraVars = new ArrayList<>();

    @Option(names = "--list-hosts", description = "List the hosts each play would run on, then exit.")
    boolean listHosts;

    @Option(names = "--list-tasks", description = "List the tasks of each play, then exit.")
    boolean listTasks;

    @Option(names = "--syntax-check", description = "Load and validate the playbook and inventory, then exit.")
    boolean syntaxCheck;

    @Option(names = "--start-at-task", paramLabel = "NAME", description = "Start at the task with this name.")
    String startAtTask;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write a machine-readable report to FILE.")
    Path json;

    @Option(names = "--save-baseline", paramLabel = "FILE", description = "Also write this run's figures (the --json report) "
            + "to FILE: the acceptance baseline a later run compares each node with (--baseline).")
    Path saveBaseline;

    @Option(names = "--baseline", paramLabel = "FILE", description = "Judge each node also against its own figures in FILE "
            + "(an earlier run's --save-baseline or --json report): gpu_acceptance's *_vs_baseline rows "
            + "(the same as -e acceptance_baseline=FILE).")
    Path baseline;

    @Option(names = "--profile", description = "After the recap, per task: hosts, time (median, slowest) and round trips "
            + "to each host (median, most): where the run's time went.")
    boolean profile;

    @Option(names = "--report", paramLabel = "FILE.html", description = "Also write the check rows (preflight.yml) as one self-contained HTML page: node x check grid, charts, verdict.")
    Path htmlReport;

    @Option(names = "--drain-file", paramLabel = "FILE", description = "Also write, for each node not ready (a failing check, a "
            + "failed task, unreachable), a Slurm 'scontrol update ... state=drain reason=...' line to FILE, for you to review and run.")
    Path drainFile;

    @Option(names = "--detailed-exitcodes", description = "Exit with 6 when changes were made (or, with --check, are pending).")
    boolean detailedExitCodes;

    @Option(names = "--private-key", paramLabel = "FILE", description = "SSH private key (default: inventory's ansible_ssh_private_key_file, else ~/.ssh/id_*).")
    Path privateKey;

    @Option(names = "--known-hosts", paramLabel = "FILE", description = "The controller's known-hosts store (default: $PROVISION_KNOWN_HOSTS or ~/.provision/known_hosts).")
    Path knownHosts;

    @Option(names = "--strict-host-keys", description = "Refuse hosts whose key is not yet known (default: accept and record new hosts, like OpenSSH accept-new).")
    boolean strictHostKeys;

    @Option(names = "--replaced", split = ",", paramLabel = "HOST", description = "Hosts that were rebuilt: accept and record their new host key once. Repeatable.")
    Set<String> replaced = new LinkedHashSet<>();

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10", description = "SSH connect timeout (default: ${DEFAULT-VALUE}).")
    int connectTimeout;

    @Option(names = {"-u", "--user"}, paramLabel = "USER",
            description = "Log in as USER where the inventory sets no ansible_user (as ansible-playbook -u).")
    String user;

    @Option(names = {"-b", "--become"}, description = "Run tasks with sudo unless a play or task says become: false (as ansible-playbook -b).")
    boolean become;

    @Option(names = "--become-user", paramLabel = "USER", description = "The user -b becomes (default: root).")
    String becomeUser;

    @Option(names = "--list-tags", description = "List the tags of each play, then exit.")
    boolean listTags;

    @Option(names = "--flush-cache", description = "Forget the facts cached from earlier runs before this one.")
    boolean flushCache;

    @Option(names = {"-k", "--ask-pass"}, hidden = true)
    boolean askPass;

    @Option(names = "--step", hidden = true)
    boolean step;

    @Option(names = "--save-plan", paramLabel = "FILE",
            description = "Dry run (implies --check) and save the plan to FILE, for --show-plan and --apply-plan.")
    Path savePlan;

    @Option(names = "--apply-plan", paramLabel = "FILE",
            description = "Apply exactly the plan in FILE on the hosts that did not change since it was made; refuse the others.")
    Path applyPlan;

    @Option(names = "--show-plan", paramLabel = "FILE", description = "Show the plan in FILE as --check --diff showed it, then exit.")
    Path showPlan;

    @Option(names = "--max-plan-age", paramLabel = "HOURS", defaultValue = "24",
            description = "--apply-plan refuses a plan older than this (default: ${DEFAULT-VALUE}).")
    int maxPlanAge;

    @Option(names = "--task-timeout", paramLabel = "SECONDS", defaultValue = "3600",
            description = "Time limit of one task on one host, unless the task's timeout: says otherwise (default: ${DEFAULT-VALUE}); past it, its command is killed and the task fails.")
    int taskTimeout;

    @Option(names = {"-K", "--ask-become-pass"}, description = "Ask for the sudo password (or set PROVISION_BECOME_PASSWORD).")
    boolean askBecomePass;

    @Option(names = "-v", description = "More output; repeat for more (-vvv shows stack traces of internal errors).")
    boolean[] verbose = new boolean[0];

    private final PrintStream out;
    private final PrintStream err;
    private final List<String> args;

    ProvisionCommand(PrintStream out, PrintStream err, List<String> args) {
        this.out = out;
        this.err = err;
        this.args = List.copyOf(args);
    }

    /** Parses and runs; returns the exit code. Never calls {@link System#exit}. */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        ProvisionCommand command = new ProvisionCommand(out, err, List.of(args));
        CommandLine cli = new CommandLine(command);
        // Before the settings below: picocli passes them on to the subcommands it already has.
        cli.addSubcommand("migrate", new MigrateCommand(out, err));
        cli.addSubcommand("doc", new DocCommand(out, err));
        cli.addSubcommand("completion", new CompletionCommand(out));
        cli.addSubcommand("man", new ManCommand(out));
        // "-e @vars.yml" is ours (extra vars from a file), not picocli's argument-file expansion.
        cli.setExpandAtFiles(false);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((ex, a) -> command.usageError(ex.getMessage() + suggestion(ex)).code());
        cli.setExecutionExceptionHandler((ex, c, parsed) -> {
            err.println("provision: internal error: " + ex + " (please report it; -vvv shows the stack trace)");
            if (command.verbose.length >= 3) {
                ex.printStackTrace(err);
            }
            return ExitCode.INTERNAL.code();
        });
        try {
            return cli.execute(args);
        } catch (VirtualMachineError e) {
            // The last line of defence: input is bounded where it is read, so this is a bug; still no trace.
            err.println("provision: internal error: " + e + " (please report it)");
            return ExitCode.INTERNAL.code();
        }
    }

    private ExitCode usageError(String message) {
        err.println("provision: " + message);
        err.println("Try 'provision --help' for more information.");
        return ExitCode.USAGE;
    }

    @Override
    public Integer call() throws Exception {
        if (forks < 1) {
            return usageError("--forks must be at least 1, not " + forks).code();
        }
        if (connectTimeout < 1) {
            return usageError("--connect-timeout must be at least 1 second, not " + connectTimeout).code();
        }
        try {
            return run().code();
        } catch (InvalidInputException e) {
            // A user's mistake: the message names file:line:column; a trace would only hide it.
            err.println("ERROR: " + e.getMessage());
            return ExitCode.INVALID_INPUT.code();
        }
    }

    private ExitCode run() throws Exception {
        if (taskTimeout < 1) {
            return usageError("--task-timeout must be at least 1 second, got " + taskTimeout);
        }
        if (showPlan != null) {
            SavedPlans.show(SavedPlan.read(showPlan), showPlan, out, hints());
            return ExitCode.OK;
        }
        if (applyPlan != null) {
            return applyPlan();
        }
        if (playbook == null) {
            return usageError("Missing required parameter: 'PLAYBOOK'");
        }
        if (askPass) {
            return usageError("-k/--ask-pass: provision logs in with keys only (ansible_ssh_private_key_file, --private-key or ~/.ssh/id_*);"
                    + " passwords are not sent over SSH");
        }
        if (step) {
            return usageError("--step is not supported: review the plan first (--check --diff, or --save-plan and --show-plan), then run it");
        }
        if (savePlan != null) {
            check = true; // a plan is made by a dry run
        }
        if (!Files.isRegularFile(playbook)) {
            err.println("ERROR: " + playbook + ": no such playbook file");
            return ExitCode.INVALID_INPUT;
        }
        ModuleRegistry modules = ModuleRegistry.load();
        Playbook book = loadPlaybook(playbook, modules);
        Inventory inv = Inventory.load(inventory.isEmpty() ? config.inventory() : inventory, book.directory()).withDefaults(connectionDefaults());
        if (flushCache) {
            FactCache.at(FactCache.defaultDirectory()).clear();
        }
        if (!inv.skippedFiles().isEmpty()) {
            // one line, whatever the number: a directory kept with keys and notes beside it is common
            err.println("[WARNING]: inventory: skipped what is not an inventory: " + String.join(", ", inv.skippedFiles()));
        }
        List<String> vars = new ArrayList<>();
        if (baseline != null) {
            if (!java.nio.file.Files.isReadable(baseline)) {
                err.println("provision: --baseline " + baseline + ": no such readable file (an earlier run's --save-baseline or --json report)");
                return ExitCode.USAGE;
            }
            // first, so that an explicit -e acceptance_baseline still wins, as -e always does
            vars.add(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
                    java.util.Map.of("acceptance_baseline", baseline.toAbsolutePath().toString())));
        }
        vars.addAll(extraVars);
        RunOptions options = new RunOptions(check, diff, tags, skipTags, forks,
                ExtraVars.parse(vars), Optional.ofNullable(limit), Optional.ofNullable(startAtTask), verbose.length,
                Duration.ofSeconds(taskTimeout));
        TemplateEngine templates = new TemplateEngine(templateRoots());
        RunChecks.playbook(book, options, templates);
        if (syntaxCheck) {
            out.println("playbook: " + playbook + " (" + book.plays().size() + " plays) — syntax OK");
            return ExitCode.OK;
        }
        if (listHosts || listTasks || listTags) {
            list(book, inv, options);
            return ExitCode.OK;
        }
        RunChecks.selection(book, inv, options, replaced, templates);
        Optional<char[]> becomePassword = becomePassword();
        if (becomePassword.isEmpty()) {
            return ExitCode.USAGE;
        }
        JsonReport report = reportFile() == null ? null : new JsonReport(reportFile());
        RunListener listener = listener(report);
        PlanRecording recording = new PlanRecording();
        RunSummary summary;
        Set<String> changedKeys;
        try (ConnectionFactory connections = ConnectionSetup.factory(this)) {
            Executor executor = new Executor(modules, templates, connections, listener, options,
                    FactCache.at(FactCache.defaultDirectory()), becomePassword.get());
            if (savePlan != null) {
                executor.record(recording);
            }
            try (Interruption interruption = Interruption.forwardTo(executor::requestStop, err)) {
                summary = executor.run(book, inv);
            }
            changedKeys = connections instanceof SshConnectionFactory ssh ? ssh.knownHosts().changedKeyHosts() : Set.of();
        } finally {
            java.util.Arrays.fill(becomePassword.get(), '\0');
        }
        List<String> saved = savePlan != null && !summary.interrupted()
                ? SavedPlans.save(savePlan, recording, summary, playbook, inventory, options, new Version().getVersion()[0], hints()) : List.of();
        ExitCode code = finish(summary, listener, report, changedKeys);
        saved.forEach(out::println);
        return code;
    }

    /** Where the --json report goes: --json, else --save-baseline (the same report). */
    private Path reportFile() {
        return json != null ? json : saveBaseline;
    }

    /** --save-baseline beside --json: the same report, written whole or not at all (temp, then rename). */
    private void saveBaselineCopy() {
        try {
            Path target = saveBaseline.toAbsolutePath();
            Path tmp = java.nio.file.Files.createTempFile(target.getParent(), ".provision-baseline-", ".tmp");
            java.nio.file.Files.copy(json, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            java.nio.file.Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            err.println("WARNING: could not write the baseline " + saveBaseline + ": " + e.getMessage());
        }
    }

    /** The recap, the hints and the exit code of a run (or of an apply). */
    private ExitCode finish(RunSummary summary, RunListener listener, JsonReport report, Set<String> changedKeys) {
        if (summary.interrupted()) {
            listener.warning("the run was interrupted: no task started after that; the hosts are as the recap says");
        }
        // A host whose key changed would be refused again by a plain retry: it gets its own hint below.
        List<String> retry = new ArrayList<>(summary.failedHosts());
        summary.unreachableHosts().stream().filter(h -> !changedKeys.contains(h)).forEach(retry::add);
        listener.recap(summary.stats(), retry.isEmpty() ? "" : retryCommand(retry, List.of()));
        printAcceptReplacedCommand(summary.unreachableHosts().stream().filter(changedKeys::contains).toList());
        if (report != null && report.failure().isPresent()) {
            err.println("WARNING: could not write the JSON report " + reportFile() + ": " + report.failure().get().getMessage());
        } else if (report != null && json != null && saveBaseline != null) {
            saveBaselineCopy();
        }
        if (html != null && html.failure().isPresent()) {
            err.println("WARNING: could not write the HTML report " + htmlReport + ": " + html.failure().get().getMessage());
        }
        if (drain != null && drain.failure().isPresent()) {
            err.println("WARNING: could not write the drain file " + drainFile + ": " + drain.failure().get().getMessage());
        }
        if (summary.interrupted()) {
            return ExitCode.INTERRUPTED;
        }
        if (!summary.failedHosts().isEmpty()) {
            return ExitCode.HOST_FAILED;
        }
        if (!summary.unreachableHosts().isEmpty()) {
            return ExitCode.UNREACHABLE;
        }
        if (notJudged != null && !notJudged.isEmpty()) {
            return ExitCode.NOT_JUDGED;
        }
        return detailedExitCodes && summary.anyChanged() ? ExitCode.CHANGES : ExitCode.OK;
    }

    /**
     * {@code --apply-plan}: the plan's own playbook, inventory and options; a dry run on its hosts
     * (read-only) must plan every step exactly as recorded, and only those hosts get the changes,
     * exactly those. A host that moved is refused and left untouched.
     */
    private ExitCode applyPlan() throws Exception {
        SavedPlan plan = SavedPlan.read(applyPlan);
        if (check || savePlan != null) {
            return usageError("--apply-plan applies a reviewed plan; leave out --check and --save-plan");
        }
        SavedPlans.Applicable applicable = SavedPlans.verifyHeader(plan, applyPlan, playbook, inventory,
                ExtraVars.parse(extraVars), Duration.ofHours(Math.max(1, maxPlanAge)), new Version().getVersion()[0]);
        ModuleRegistry modules = ModuleRegistry.load();
        Playbook book = loadPlaybook(applicable.playbook(), modules);
        Inventory inv = Inventory.load(applicable.inventory(), book.directory()).withDefaults(connectionDefaults());
        List<String> hosts = SavedPlans.hostsToApply(plan, inv, Optional.ofNullable(limit), applyPlan);
        RunOptions verify = new RunOptions(true, false, Set.copyOf(plan.header().tags()), Set.copyOf(plan.header().skipTags()),
                Math.max(1, forks), ExtraVars.parse(extraVars), Optional.of(String.join(",", hosts)), Optional.empty(), 0,
                Duration.ofSeconds(taskTimeout));
        TemplateEngine templates = new TemplateEngine(templateRoots());
        RunChecks.playbook(book, verify, templates);
        Optional<char[]> becomePassword = becomePassword();
        if (becomePassword.isEmpty()) {
            return ExitCode.USAGE;
        }
        JsonReport report = json == null ? null : new JsonReport(json);
        RunListener listener = listener(report);
        PlanApply.Outcome outcome;
        Set<String> changedKeys;
        try (ConnectionFactory connections = ConnectionSetup.factory(this)) {
            outcome = new PlanApply(modules, templates, connections, verify, becomePassword.get(), out, listener)
                    .apply(plan, applyPlan, book, inv, hosts);
            changedKeys = connections instanceof SshConnectionFactory ssh ? ssh.knownHosts().changedKeyHosts() : Set.of();
        } finally {
            java.util.Arrays.fill(becomePassword.get(), '\0');
        }
        ExitCode code = finish(outcome.summary(), listener, report, changedKeys);
        if (!outcome.drifted().isEmpty()) {
            PlanApply.printRefused(out, plan, applyPlan, outcome.drifted(), hints());
            if (code == ExitCode.OK || code == ExitCode.CHANGES || code == ExitCode.NOT_JUDGED) {
                return ExitCode.DRIFTED;
            }
        }
        return code;
    }

    /** How the commands a saved plan's hints name start. */
    private SavedPlans.Hints hints() {
        return new SavedPlans.Hints(invokedAs(), HIDDEN_VARS);
    }

    /** For a mistyped option ({@code --chek}), the closest real one. */
    private static String suggestion(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException unmatched)) {
            return "";
        }
        Set<String> names = ex.getCommandLine().getCommandSpec().optionsMap().keySet();
        for (String arg : unmatched.getUnmatched()) {
            if (arg.startsWith("-")) {
                String typed = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
                Optional<String> close = dev.provision.modules.spi.Suggestions.closest(typed, names);
                if (close.isPresent()) {
                    return " (did you mean " + close.get() + "?)";
                }
            }
        }
        return "";
    }

    /** The project's ansible.cfg as Ansible finds it for this playbook; read by {@link #loadPlaybook}. */
    private AnsibleConfig config = AnsibleConfig.NONE;

    /**
     * Reads the project's ansible.cfg (named once when it holds keys provision does not act on), then
     * the playbook, finding roles in --roles-path, else $ANSIBLE_ROLES_PATH, else roles_path.
     */
    private Playbook loadPlaybook(Path file, ModuleRegistry modules) throws InvalidInputException {
        config = AnsibleConfig.find(System.getenv(), Path.of("").toAbsolutePath(), file.toAbsolutePath().getParent());
        config.file().filter(f -> !config.ignored().isEmpty()).ifPresent(f ->
                err.println("[WARNING]: " + f + ": provision does not act on " + String.join(", ", config.ignored())));
        if (user == null) {
            user = config.remoteUser().orElse(null);
        }
        if (config.forks().isPresent() && !spec.commandLine().getParseResult().hasMatchedOption("--forks")) {
            forks = Math.max(1, config.forks().get());
        }
        String given = rolesPath != null ? rolesPath : System.getenv().getOrDefault("ANSIBLE_ROLES_PATH", "");
        List<Path> roles = given.isBlank() ? config.rolesPath()
                : java.util.Arrays.stream(given.split(":")).filter(d -> !d.isBlank()).map(d -> Path.of(d).toAbsolutePath().normalize()).toList();
        Playbook book = PlaybookLoader.load(file, modules, roles);
        book.warnings().forEach(w -> err.println("[WARNING]: " + w));
        return book;
    }

    /** {@code -u}, {@code -b}, {@code --become-user} as inventory defaults: the inventory's own values win, as in Ansible. */
    private Map<String, Object> connectionDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        if (user != null) {
            defaults.put("ansible_user", user);
        }
        if (become) {
            defaults.put("ansible_become", true);
        }
        if (becomeUser != null) {
            defaults.put("ansible_become_user", becomeUser);
        }
        return defaults;
    }


    /** The sudo password: asked with -K, else from the environment; empty (and the reason printed) when -K has no terminal. */
    private Optional<char[]> becomePassword() {
        if (askBecomePass) {
            java.io.Console console = System.console();
            if (console == null) {
                err.println("ERROR: -K asks for the sudo password on a terminal, and there is none; set PROVISION_BECOME_PASSWORD instead");
                return Optional.empty();
            }
            char[] typed = console.readPassword("BECOME password: "); // never echoed
            return Optional.of(typed == null ? new char[0] : typed);
        }
        String fromEnvironment = System.getenv("PROVISION_BECOME_PASSWORD");
        if (fromEnvironment != null && (fromEnvironment.indexOf('\n') >= 0 || fromEnvironment.indexOf('\r') >= 0)) {
            // sudo reads one line: a second one would be taken for something else (never shown: a secret)
            err.println("ERROR: PROVISION_BECOME_PASSWORD holds a line break; sudo reads the password as one line");
            return Optional.empty();
        }
        return Optional.of(fromEnvironment == null ? new char[0] : fromEnvironment.toCharArray());
    }

    private HtmlReport html;
    private dev.provision.engine.report.DrainFile drain;
    /** The check rows that could not be judged: printed after the recap, and exit 8 when nothing worse happened. */
    private dev.provision.engine.report.NotJudged notJudged;

    private RunListener listener(JsonReport report) {
        boolean color = System.console() != null && System.getenv("NO_COLOR") == null;
        List<RunListener> listeners = new ArrayList<>();
        if (color) {
            // First, so that it erases its line before the results are printed.
            listeners.add(new ProgressLine(err, PROGRESS_MIN_HOSTS));
        }
        listeners.add(new HumanOutput(out, color, diff, verbose.length));
        notJudged = new dev.provision.engine.report.NotJudged(out); // after the human output: its line follows the recap
        listeners.add(notJudged);
        if (report != null) {
            listeners.add(report);
        }
        if (profile) {
            listeners.add(new dev.provision.engine.report.ProfileReport(out));
        }
        html = htmlReport == null ? null : new HtmlReport(htmlReport);
        if (html != null) {
            listeners.add(html);
        }
        drain = drainFile == null ? null : new dev.provision.engine.report.DrainFile(drainFile);
        if (drain != null) {
            listeners.add(drain);
        }
        return new Listeners(listeners);
    }

    private void list(Playbook book, Inventory inv, RunOptions options) throws InvalidInputException {
        out.println("playbook: " + playbook);
        for (Play play : book.plays()) {
            out.println();
            out.println("  play #" + (book.plays().indexOf(play) + 1) + " (" + play.hosts() + "): " + play.name());
            if (listHosts) {
                List<Host> hosts = Executor.selectHosts(play, inv, options, new TemplateEngine(templateRoots()));
                out.println("    hosts (" + hosts.size() + "):");
                hosts.forEach(h -> out.println("      " + h.name()));
            }
            if (listTags) {
                java.util.TreeSet<String> all = new java.util.TreeSet<>();
                dev.provision.engine.exec.Executor.tasksOf(play).forEach(t -> all.addAll(t.tags()));
                out.println("    TASK TAGS: [" + String.join(", ", all) + "]");
            }
            if (listTasks) {
                out.println("    tasks:");
                for (var t : dev.provision.engine.exec.Executor.tasksOf(play)) {
                    out.println("      " + t.displayName() + (t.tags().isEmpty() ? "" : "\tTAGS: " + new java.util.TreeSet<>(t.tags())));
                }
            }
        }
    }

    /**
     * A retry of the hosts whose host key changed would be refused again: print the exact command that
     * accepts their new keys. Not folded into the retry command, because accepting a changed key is the
     * sysadmin's decision (the node was rebuilt), never a default.
     */
    private void printAcceptReplacedCommand(List<String> hosts) {
        if (hosts.isEmpty()) {
            return;
        }
        out.println();
        out.println("The host key of " + namesInBrief(hosts) + " changed (old and new fingerprints above). Only if "
                + (hosts.size() == 1 ? "it was" : "they were") + " rebuilt, accept the new key and converge "
                + (hosts.size() == 1 ? "it" : "them") + " with:");
        // The whole run again, not --limit: the other nodes must learn the new key (ssh_known_hosts).
        List<String> words = new ArrayList<>(List.of(invokedAs()));
        words.addAll(argsForHint());
        words.add("--replaced");
        words.add(String.join(",", hosts));
        out.println("    " + ShellWords.join(words));
        out.flush();
    }

    /** Hosts named in a sentence: all of a few; of many (a rack reinstalled), the first and how many more. */
    static String namesInBrief(List<String> hosts) {
        if (hosts.size() <= NAMED_IN_BRIEF) {
            return String.join(", ", hosts);
        }
        return hosts.size() + " hosts (" + String.join(", ", hosts.subList(0, NAMED_IN_BRIEF - 1)) + " and "
                + (hosts.size() - NAMED_IN_BRIEF + 1) + " more, all named in the command below)";
    }

    /** The same command line with {@code --limit} replaced by the hosts to retry, and {@code extra} options before it. */
    private String retryCommand(List<String> hosts, List<String> extra) {
        List<String> words = new ArrayList<>(List.of(invokedAs()));
        List<String> args = argsForHint();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-l") || a.equals("--limit")) {
                i++;
                continue;
            }
            if (a.startsWith("--limit=") || a.startsWith("-l") && a.length() > 2) {
                continue;
            }
            words.add(a);
        }
        words.addAll(extra);
        words.add("--limit");
        words.add(String.join(",", hosts));
        return ShellWords.join(words);
    }

    /**
     * The command line for a printed hint (and the JSON report's retry): values given inline with
     * {@code -e} may be secrets (a password), so they are never repeated; {@code -e @FILE} stays.
     * The hint shows {@value #HIDDEN_VARS} instead, for the user to give again.
     */
    List<String> argsForHint() {
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            boolean separate = (a.equals("-e") || a.equals("--extra-vars")) && i + 1 < args.size();
            String value = separate ? args.get(i + 1)
                    : a.startsWith("--extra-vars=") ? a.substring("--extra-vars=".length())
                    : a.startsWith("-e") && a.length() > 2 ? a.substring(2) : null;
            if (value == null) {
                shown.add(a);
                continue;
            }
            String replacement = value.startsWith("@") ? value : HIDDEN_VARS;
            boolean repeated = replacement.equals(HIDDEN_VARS) && shown.size() >= 2 && shown.getLast().equals(HIDDEN_VARS);
            if (!repeated) { // several inline -e in a row: one placeholder says it
                shown.add("-e");
                shown.add(replacement);
            }
            if (separate) {
                i++;
            }
        }
        return shown;
    }

    /** The launcher as the user typed it ({@code ./provision}), so that a printed command runs as pasted. */
    private static String invokedAs() {
        String launcher = System.getProperty("provision.command", "");
        return launcher.isBlank() ? "provision" : launcher;
    }

    /** The repository's {@code templates/}: beside the launcher ({@code provision.home}), else the working directory's. */
    private static List<Path> templateRoots() {
        String home = System.getProperty("provision.home");
        Path root = home != null ? Path.of(home) : Path.of("").toAbsolutePath();
        Path templates = root.resolve("templates");
        return Files.isDirectory(templates) ? List.of(templates) : List.of();
    }

    Duration connectTimeout() {
        return Duration.ofSeconds(connectTimeout);
    }

    /**
     * {@code --version}: the version baked into the jar's manifest, the commit the build was made from
     * ({@code build.properties}, written by the build: engine/pom.xml) and the Java runtime. The first
     * line alone is the version a saved plan records.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ProvisionCommand.class.getPackage().getImplementationVersion();
            return new String[] {"provision " + (v == null ? "development build" : v), "commit " + commit(),
                "Java " + Runtime.version()};
        }

        private static String commit() {
            java.util.Properties build = new java.util.Properties();
            try (java.io.InputStream in = Version.class.getResourceAsStream("build.properties")) {
                if (in != null) {
                    build.load(in);
                }
            } catch (java.io.IOException e) {
                return "unknown (build.properties unreadable)";
            }
            String commit = build.getProperty("commit", "").strip();
            return commit.isEmpty() ? "unknown (not built from a git checkout)" : commit;
        }
    }
}
