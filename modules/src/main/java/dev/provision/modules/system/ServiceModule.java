package dev.provision.modules.system;

import dev.provision.modules.spi.Facts;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code service}: whether a service runs, and whether it starts at boot.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code name}, required: the unit or init script name ({@code chrony}, {@code nfs-server}).
 *   <li>{@code state}: {@code started}, {@code stopped}, {@code restarted} (an action: always
 *       planned), {@code reloaded} (planned when running; a stopped service is started instead).
 *   <li>{@code enabled}: start at boot. At least one of {@code state} and {@code enabled}.
 *   <li>{@code daemon} (a list: absolute program path and arguments) and {@code pidfile}: the
 *       fallback for hosts without systemd and without an init script, see below.
 * </ul>
 *
 * <p>How it reads and changes the host, by {@code facts.service_mgr}:
 * <ul>
 *   <li>{@code systemd}: probes {@code systemctl is-active NAME} (and {@code systemctl is-enabled
 *       NAME} when {@code enabled} is given) and plans {@code systemctl start|stop|restart|reload|
 *       enable|disable NAME}. A masked unit cannot be enabled (fails); a static one needs nothing.
 *   <li>otherwise, with {@code /etc/init.d/NAME}: running is {@code /etc/init.d/NAME status}
 *       exiting 0 (LSB: 1 to 3 mean not running, anything else fails the task); the script is run
 *       with {@code start}, {@code stop}, {@code restart} or {@code reload}. {@code enabled} uses
 *       {@code update-rc.d} when the host has it (enabled means an {@code S} link in a runlevel
 *       directory), else the plan says it is not applicable.
 *   <li>otherwise, with {@code daemon} and {@code pidfile} (test nodes and containers run no init
 *       system): running is {@code start-stop-daemon --status --pidfile PIDFILE} exiting 0; starting
 *       is {@code start-stop-daemon --start --background --make-pidfile --pidfile PIDFILE --exec
 *       PROGRAM -- ARGS}; stopping sends TERM (then KILL after 10 s) to the pid in the file;
 *       reloading sends HUP. {@code enabled} is not applicable and the plan says so.
 *   <li>otherwise the task fails and says which of these it looked for.
 * </ul>
 */
public final class ServiceModule implements TaskModule {
    // systemctl and update-rc.d would read a leading '-' as an option.
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.@:+-]*");
    /** is-enabled states that mean "started at boot by something" without an install of our own. */
    private static final Set<String> ENABLED_INDIRECTLY = Set.of("static", "indirect", "generated", "alias", "transient");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING, "service")
            .choice("state", null, "started", "stopped", "restarted", "reloaded")
            .optional("enabled", Type.BOOL)
            .optional("daemon", Type.LIST)
            .optional("pidfile", Type.STRING)
            .requiredOneOf("state", "enabled")
            .build();

    public ServiceModule() {
    }

    @Override
    public String name() {
        return "service";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = params.string("name");
        if (!NAME.matcher(name).matches()) {
            throw new ModuleException("name '" + name + "' is not a service name");
        }
        if (params.has("daemon") != params.has("pidfile")) {
            throw new ModuleException("daemon and pidfile go together: the pid file is how a started daemon is found again");
        }
        HostView host = context.host();
        Optional<String> state = params.optString("state");
        Optional<Boolean> enabled = params.has("enabled") ? Optional.of(params.bool("enabled")) : Optional.empty();
        Backend backend = backend(params, host, name);
        if (backend instanceof Systemd) {
            return planSystemd(host, Optional.of(name), new UnitRequest(state, enabled, Optional.empty(), false));
        }
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        if (state.isPresent()) {
            stateChanges(backend, name, state.get(), changes, reasons);
        }
        if (enabled.isPresent()) {
            backend.enablement(enabled.get(), changes, reasons);
        }
        String reason = String.join("; ", reasons);
        if (changes.isEmpty()) {
            return Plan.converged(reason);
        }
        Plan plan = new Plan(changes, reason, java.util.Map.of(), java.util.Map.of());
        return state.isEmpty() ? plan
                : plan.withProbeAfterwards(backend.statusProbe(), backend.statusAnswer(!state.get().equals("stopped")));
    }

    /** Whether {@code name} is a unit or service name (no option, no glob, no blank). */
    static boolean isServiceName(String name) {
        return NAME.matcher(name).matches();
    }

    /**
     * What a systemd task asks for ({@code service} on a systemd host, or {@code systemd}).
     *
     * @param masked empty: leave the mask as it is
     * @param daemonReload let systemd read changed unit files before the rest
     */
    record UnitRequest(Optional<String> state, Optional<Boolean> enabled, Optional<Boolean> masked, boolean daemonReload) {
    }

    /** The probe that tells whether systemd has read a unit's files as they are on disk. */
    static List<String> unitFilesProbe(String name) {
        return List.of("systemctl", "show", "--property=Id,LoadState,FragmentPath,NeedDaemonReload", name);
    }

    /**
     * Plans a systemd unit on a systemd host, in this order: {@code daemon-reload}, unmask, the
     * state, enabled, mask. Without a name only the reload is planned (always: what systemd has not
     * read cannot be asked without a unit). With a name the reload is planned only when systemd
     * says the unit's files changed on disk ({@code NeedDaemonReload}), or, in a dry run, when an
     * earlier task changes them and no earlier plan of the run reloads them already. The plan says
     * what {@code is-active}, {@code is-enabled} and that probe answer once it is applied.
     */
    static Plan planSystemd(HostView host, Optional<String> unit, UnitRequest request) throws ModuleException {
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        java.util.Map<List<String>, ProbeResult> afterwards = new java.util.LinkedHashMap<>();
        if (unit.isEmpty()) {
            changes.add(Change.of("reload systemd's unit files (daemon_reload)", Command.Exec.of("systemctl", "daemon-reload")));
            return new Plan(changes, "", java.util.Map.of(), java.util.Map.of());
        }
        String name = unit.get();
        Optional<String> state = request.state();
        if (request.masked().orElse(false)) {
            if (state.isPresent() && !state.get().equals("stopped")) {
                throw new ModuleException("masked: true and state: " + state.get() + " contradict: systemd cannot start a masked unit");
            }
            if (request.enabled().orElse(false)) {
                throw new ModuleException("masked: true and enabled: true contradict: systemd cannot enable a masked unit");
            }
        }
        Systemd systemd = new Systemd(host, name);
        if (request.daemonReload()) {
            daemonReload(host, name, changes, reasons, afterwards);
        }
        int afterReload = changes.size();
        if (state.isPresent()) {
            stateChanges(systemd, name, state.get(), changes, reasons);
        }
        Optional<ProbeResult> isEnabled = request.enabled().isPresent() || request.masked().isPresent()
                ? Optional.of(host.probe("systemctl", "is-enabled", name)) : Optional.empty();
        boolean isMasked = isEnabled.map(p -> p.stdout().strip().startsWith("masked")).orElse(false);
        boolean unmask = request.masked().isPresent() && !request.masked().get() && isMasked;
        if (request.masked().isPresent()) {
            if (request.masked().get() == isMasked) {
                reasons.add(name + (isMasked ? " is masked" : " is not masked"));
            } else if (unmask) {
                changes.add(afterReload, new Change("unmask " + name, List.of(new Diff("service " + name, "masked: true\n", "masked: false\n")),
                        List.of(Command.Exec.of("systemctl", "unmask", name))));
            }
        }
        if (request.enabled().isPresent()) {
            boolean wanted = request.enabled().get();
            if (unmask) {
                // What is-enabled says once the mask is gone is not known before: enable or disable it.
                changes.add(new Change((wanted ? "enable " : "disable ") + name + " (once unmasked)",
                        List.of(new Diff("service " + name, "enabled: masked\n", "enabled: " + wanted + "\n")),
                        List.of(Command.Exec.of("systemctl", wanted ? "enable" : "disable", name))));
                afterwards.put(List.of("systemctl", "is-enabled", name), isEnabledAnswer(wanted));
            } else {
                systemd.enablement(isEnabled.orElseThrow(), wanted, changes, reasons, afterwards);
            }
        }
        if (request.masked().orElse(false) && !isMasked) {
            changes.add(new Change("mask " + name, List.of(new Diff("service " + name, "masked: false\n", "masked: true\n")),
                    List.of(Command.Exec.of("systemctl", "mask", name))));
            afterwards.put(List.of("systemctl", "is-enabled", name), new ProbeResult(1, "masked\n", ""));
        }
        String reason = String.join("; ", reasons);
        if (changes.isEmpty()) {
            return Plan.converged(reason);
        }
        if (state.isPresent() && changes.size() > afterReload) {
            boolean running = switch (state.get()) {
                case "stopped" -> false;
                case "tried-restart" -> systemd.running();
                default -> true;
            };
            afterwards.put(systemd.statusProbe(), systemd.statusAnswer(running));
        }
        Plan plan = new Plan(changes, reason, java.util.Map.of(), java.util.Map.of());
        for (java.util.Map.Entry<List<String>, ProbeResult> e : afterwards.entrySet()) {
            plan = plan.withProbeAfterwards(e.getKey(), e.getValue());
        }
        return plan;
    }

    private static ProbeResult isEnabledAnswer(boolean enabled) {
        return enabled ? new ProbeResult(0, "enabled\n", "") : new ProbeResult(1, "disabled\n", "");
    }

    private static void daemonReload(HostView host, String name, List<Change> changes, List<String> reasons,
                                     java.util.Map<List<String>, ProbeResult> afterwards) throws ModuleException {
        List<String> probe = unitFilesProbe(name);
        ProbeResult shown = host.probe(probe.toArray(String[]::new));
        java.util.Map<String, String> unit = new java.util.HashMap<>();
        shown.stdout().lines().forEach(line -> {
            int eq = line.indexOf('=');
            if (eq > 0) {
                unit.put(line.substring(0, eq), line.substring(eq + 1).strip());
            }
        });
        String why;
        if (!shown.ok() || !unit.containsKey("NeedDaemonReload")) {
            why = "systemd cannot tell whether it has read " + name + "'s unit files" + (shown.stderr().isBlank() ? "" : ": " + shown.stderr().strip());
        } else if (unit.get("NeedDaemonReload").equals("yes")) {
            why = name + "'s unit files changed on disk";
        } else if (host.pendingAnswer(probe).isEmpty() && "loaded".equals(unit.get("LoadState"))
                && unitFilesPending(host, unit.getOrDefault("Id", name), unit.getOrDefault("FragmentPath", ""))) {
            // A dry run: an earlier task writes this loaded unit's files; once written, systemd says they changed.
            why = "an earlier task changes " + name + "'s unit files";
        } else {
            reasons.add("systemd has read " + name + "'s unit files");
            return;
        }
        changes.add(Change.of("reload systemd's unit files (" + why + ")", Command.Exec.of("systemctl", "daemon-reload")));
        afterwards.put(probe, new ProbeResult(0, shown.stdout().replace("NeedDaemonReload=yes", "NeedDaemonReload=no"), ""));
    }

    /** Whether an earlier task of a dry run changes the unit file or a drop-in directory of unit {@code id}. */
    private static boolean unitFilesPending(HostView host, String id, String fragment) {
        List<String> paths = new ArrayList<>(List.of("/etc/systemd/system/" + id, "/etc/systemd/system/" + id + ".d",
                "/run/systemd/system/" + id + ".d"));
        if (!fragment.isEmpty()) {
            paths.add(fragment);
            paths.add(fragment + ".d");
        }
        return paths.stream().anyMatch(host::changesPending);
    }

    /** The change (or the reason) that brings {@code name} to {@code wanted}. */
    private static void stateChanges(Backend backend, String name, String wanted, List<Change> changes, List<String> reasons)
            throws ModuleException {
        boolean running = backend.running();
        switch (wanted) {
            case "started" -> {
                if (running) {
                    reasons.add(name + " is running");
                } else {
                    changes.add(change("start " + name, name, "stopped", "running", backend.command("start")));
                }
            }
            case "stopped" -> {
                if (running) {
                    changes.add(change("stop " + name, name, "running", "stopped", backend.command("stop")));
                } else {
                    reasons.add(name + " is stopped");
                }
            }
            case "restarted" -> changes.add(change("restart " + name, name, running ? "running" : "stopped", "running (restarted)",
                    running ? backend.command("restart") : backend.command("start")));
            case "reloaded" -> changes.add(running
                    ? change("reload " + name, name, "running", "running (reloaded)", backend.command("reload"))
                    : change("start " + name + " (it was not running, so there was nothing to reload)", name, "stopped", "running",
                            backend.command("start")));
            case "tried-restart" -> {
                if (running) {
                    changes.add(change("restart " + name, name, "running", "running (restarted)", backend.command("restart")));
                } else {
                    reasons.add(name + " is not running (tried-restart restarts only a running unit)");
                }
            }
            default -> throw new ModuleException("unsupported state " + wanted);
        }
    }

    private static Change change(String summary, String name, String before, String after, List<Command> commands) {
        return new Change(summary, List.of(new Diff("service " + name, "state: " + before + "\n", "state: " + after + "\n")), commands);
    }

    private static Backend backend(Params params, HostView host, String name) throws ModuleException {
        if ("systemd".equals(host.facts().get("service_mgr"))) {
            return new Systemd(host, name);
        }
        String script = "/etc/init.d/" + name;
        if (host.stat(script).isPresent()) {
            return new InitScript(host, name, script);
        }
        if (params.has("daemon")) {
            List<String> daemon = params.list("daemon").stream().map(String::valueOf).toList();
            String pidfile = params.string("pidfile");
            if (daemon.isEmpty() || !daemon.getFirst().startsWith("/")) {
                throw new ModuleException("daemon must start with the absolute path of the program, got " + daemon);
            }
            if (!pidfile.startsWith("/")) {
                throw new ModuleException("pidfile must be an absolute path, got '" + pidfile + "'");
            }
            return new Daemon(host, name, daemon, pidfile);
        }
        throw new ModuleException("cannot manage " + name + ": this host runs no systemd, has no " + script
                + ", and the task gives no daemon/pidfile to start it with");
    }

    /** How one kind of host starts, stops and enables services. */
    private sealed interface Backend {
        boolean running() throws ModuleException;

        /** The probe {@link #running} asks. */
        List<String> statusProbe();

        /** What that probe answers for a running (or stopped) service: a dry run's forecast. */
        ProbeResult statusAnswer(boolean running);

        /** The commands for start, stop, restart or reload. */
        List<Command> command(String action);

        void enablement(boolean wanted, List<Change> changes, List<String> reasons) throws ModuleException;
    }

    private record Systemd(HostView host, String name) implements Backend {
        @Override
        public boolean running() throws ModuleException {
            return host.probe(statusProbe().toArray(String[]::new)).ok();
        }

        @Override
        public List<String> statusProbe() {
            return Facts.unitActivity(name).argv();
        }

        @Override
        public ProbeResult statusAnswer(boolean running) {
            return running ? new ProbeResult(0, "active\n", "") : new ProbeResult(3, "inactive\n", "");
        }

        @Override
        public List<Command> command(String action) {
            return List.of(Command.Exec.of("systemctl", action, name));
        }

        @Override
        public void enablement(boolean wanted, List<Change> changes, List<String> reasons) throws ModuleException {
            enablement(host.probe("systemctl", "is-enabled", name), wanted, changes, reasons, new java.util.HashMap<>());
        }

        /** From the answer of {@code systemctl is-enabled NAME}; records what it answers once changed. */
        void enablement(ProbeResult probe, boolean wanted, List<Change> changes, List<String> reasons,
                        java.util.Map<List<String>, ProbeResult> afterwards) throws ModuleException {
            String status = probe.stdout().strip();
            if (status.isEmpty()) {
                throw new ModuleException("systemd has no unit " + name + ": " + probe.stderr().strip());
            }
            if (status.startsWith("masked")) {
                if (wanted) {
                    throw new ModuleException(name + " is masked; unmask it (masked: false, or systemctl unmask " + name + ") before enabling it");
                }
                reasons.add(name + " is masked");
                return;
            }
            if (ENABLED_INDIRECTLY.contains(status)) {
                reasons.add(name + " is " + status + " (systemd starts it through other units; there is nothing to "
                        + (wanted ? "enable" : "disable") + ")");
                return;
            }
            boolean enabled = probe.ok();
            if (enabled == wanted) {
                reasons.add(name + " is " + status);
            } else {
                changes.add(new Change((wanted ? "enable " : "disable ") + name,
                        List.of(new Diff("service " + name, "enabled: " + enabled + "\n", "enabled: " + wanted + "\n")),
                        List.of(Command.Exec.of("systemctl", wanted ? "enable" : "disable", name))));
                afterwards.put(List.of("systemctl", "is-enabled", name), isEnabledAnswer(wanted));
            }
        }
    }

    private record InitScript(HostView host, String name, String script) implements Backend {
        static final int RESTART_WAIT_SECONDS = 30;

        @Override
        public boolean running() throws ModuleException {
            ProbeResult status = host.probe(statusProbe().toArray(String[]::new));
            return switch (status.exitCode()) {
                case 0 -> true;
                case 1, 2, 3 -> false;
                default -> throw new ModuleException("cannot tell whether " + name + " runs: " + script + " status exited "
                        + status.exitCode() + (status.stderr().isBlank() ? "" : ": " + status.stderr().strip()));
            };
        }

        @Override
        public List<String> statusProbe() {
            return List.of(script, "status");
        }

        @Override
        public ProbeResult statusAnswer(boolean running) {
            return new ProbeResult(running ? 0 : 3, "", "");
        }

        /**
         * A script's own {@code restart} may start before the old daemon is gone: Debian's chrony
         * script stops without waiting, its start then finds the daemon "already running", and the
         * old one exits, leaving none. So restart is stop, wait until status says stopped (at most
         * {@value #RESTART_WAIT_SECONDS} s), start.
         */
        @Override
        public List<Command> command(String action) {
            if (action.equals("restart")) {
                // Positional parameter: the script path never becomes part of the script text.
                String waitStopped = "i=0; while \"$0\" status >/dev/null 2>&1 && [ $i -lt " + RESTART_WAIT_SECONDS * 10
                        + " ]; do sleep 0.1; i=$((i+1)); done; :";
                return List.of(Command.Exec.of(script, "stop"), Command.Exec.of("sh", "-c", waitStopped, script),
                        Command.Exec.of(script, "start"));
            }
            return List.of(Command.Exec.of(script, action));
        }

        @Override
        public void enablement(boolean wanted, List<Change> changes, List<String> reasons) throws ModuleException {
            if (Facts.program("update-rc.d").read(host).isEmpty()) {
                reasons.add("enabled is not applicable to " + name + ": no systemd and no update-rc.d on this host");
                return;
            }
            // Positional parameter: the name never becomes part of the script text.
            boolean enabled = host.probe("sh", "-c", "ls /etc/rc[2345].d/S[0-9][0-9]\"$1\" >/dev/null 2>&1", "sh", name).ok();
            if (enabled == wanted) {
                reasons.add(name + " is " + (wanted ? "enabled" : "disabled") + " in the runlevel directories");
                return;
            }
            List<Command> commands = wanted
                    ? List.of(Command.Exec.of("update-rc.d", name, "defaults"), Command.Exec.of("update-rc.d", name, "enable"))
                    : List.of(Command.Exec.of("update-rc.d", name, "disable"));
            changes.add(new Change((wanted ? "enable " : "disable ") + name + " with update-rc.d",
                    List.of(new Diff("service " + name, "enabled: " + enabled + "\n", "enabled: " + wanted + "\n")), commands));
        }
    }

    private record Daemon(HostView host, String name, List<String> daemon, String pidfile) implements Backend {
        @Override
        public boolean running() throws ModuleException {
            ProbeResult status = host.probe(statusProbe().toArray(String[]::new));
            return switch (status.exitCode()) {
                case 0 -> true;
                case 1, 3 -> false;
                default -> throw new ModuleException("cannot tell whether " + name + " runs: start-stop-daemon --status exited "
                        + status.exitCode() + (status.stderr().isBlank() ? "" : ": " + status.stderr().strip()));
            };
        }

        @Override
        public List<String> statusProbe() {
            return List.of("start-stop-daemon", "--status", "--pidfile", pidfile);
        }

        @Override
        public ProbeResult statusAnswer(boolean running) {
            return new ProbeResult(running ? 0 : 3, "", "");
        }

        @Override
        public List<Command> command(String action) {
            return switch (action) {
                case "start" -> List.of(start());
                case "stop" -> List.of(stop());
                case "restart" -> List.of(stop(), start());
                case "reload" -> List.of(Command.Exec.of("start-stop-daemon", "--stop", "--signal", "HUP", "--pidfile", pidfile));
                default -> throw new IllegalArgumentException("unknown action " + action);
            };
        }

        private Command start() {
            List<String> argv = new ArrayList<>(List.of("start-stop-daemon", "--start", "--background", "--make-pidfile",
                    "--pidfile", pidfile, "--exec", daemon.getFirst()));
            if (daemon.size() > 1) {
                argv.add("--");
                argv.addAll(daemon.subList(1, daemon.size()));
            }
            return new Command.Exec(argv, new byte[0]);
        }

        private Command stop() {
            // --oknodo: a daemon that died between the probe and the stop is already where we want it.
            return Command.Exec.of("start-stop-daemon", "--stop", "--oknodo", "--retry", "TERM/10/KILL/5", "--remove-pidfile",
                    "--pidfile", pidfile);
        }

        @Override
        public void enablement(boolean wanted, List<Change> changes, List<String> reasons) {
            reasons.add("enabled is not applicable to " + name + ": no systemd and no init script; this task starts the daemon"
                    + " (run it again after a reboot)");
        }
    }
}
