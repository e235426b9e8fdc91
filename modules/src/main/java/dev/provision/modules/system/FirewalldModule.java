package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code firewalld} (Ansible's {@code ansible.posix.firewalld}): one setting of a firewalld zone
 * enabled or disabled, in the permanent configuration, the runtime one, or both; or a zone itself
 * present or absent.
 *
 * <p>Read and changed with firewalld's own command line: {@code firewall-cmd --state} says whether the
 * daemon runs; each configuration is asked with {@code --query-*} ({@code --permanent} for the
 * permanent one) and changed with {@code --add-*}/{@code --remove-*}. As in Ansible, {@code permanent}
 * changes the permanent configuration, {@code immediate} (or {@code permanent} false or not given)
 * the runtime one; a stopped daemon takes permanent changes through {@code firewall-offline-cmd}, and
 * runtime ones are refused. Each configuration is its own change, so a dry run says which will move.
 */
public final class FirewalldModule implements TaskModule {
    static final List<String> STATE = List.of("firewall-cmd", "--state");
    /** firewalld's exit code for "the daemon is not running" (firewall/errors.py NOT_RUNNING). */
    static final int NOT_RUNNING = 252;
    private static final List<String> SETTINGS = List.of("service", "port", "port_forward", "rich_rule", "source", "interface",
            "icmp_block", "icmp_block_inversion", "masquerade");
    private static final Pattern PORT = Pattern.compile("[0-9]+(-[0-9]+)?/(tcp|udp|sctp|dccp)");
    private static final Pattern PORT_NUMBER = Pattern.compile("[0-9]+(-[0-9]+)?");
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final Pattern ZONE = Pattern.compile("[A-Za-z0-9_+-][A-Za-z0-9_.+-]*");
    private static final String NOT_PERMANENT_ZONE = "Zone operations must be permanent. Make sure you didn't set the"
            + " 'permanent' flag to 'false' or the 'immediate' flag to 'true'.";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("service", Type.STRING)
            .optional("port", Type.STRING)
            .optional("port_forward", Type.LIST)
            .optional("rich_rule", Type.STRING)
            .optional("source", Type.STRING)
            .optional("interface", Type.STRING)
            .optional("icmp_block", Type.STRING)
            .optional("icmp_block_inversion", Type.BOOL)
            .optional("masquerade", Type.BOOL)
            .optional("zone", Type.STRING)
            .optional("permanent", Type.BOOL)
            .withDefault("immediate", Type.BOOL, false)
            .add(new ParamSpec.Param("state", Type.STRING, true, Optional.empty(),
                    List.of("enabled", "disabled", "present", "absent"), List.of(), false))
            .withDefault("timeout", Type.INT, 0)
            .optional("offline", Type.BOOL)
            .refused("target", "a zone's target is not managed; use 'command: firewall-cmd --permanent --zone=ZONE --set-target=TARGET'")
            .refused("default", "the default zone is not managed; use 'command: firewall-cmd --set-default-zone=ZONE'")
            .mutuallyExclusive(SETTINGS.toArray(String[]::new))
            .build();

    public FirewalldModule() {
    }

    @Override
    public String name() {
        return "firewalld";
    }

    @Override
    public String description() {
        return """
                One setting of a firewalld zone enabled or disabled (Ansible's ansible.posix.firewalld), or a zone
                present or absent. Give exactly one of: service, port (PORT/PROTO or FROM-TO/PROTO), port_forward
                (one item: port, proto, toport, toaddr IPv4), rich_rule, source, interface (needs zone),
                icmp_block, icmp_block_inversion: true, masquerade: true; with state enabled or disabled. zone
                (default: the daemon's default zone) alone with state present or absent creates or deletes it
                (permanent: true only).
                  permanent: change the permanent configuration (firewall-cmd --permanent)
                  immediate (default false): also change the runtime one; permanent false or not given
                    means runtime only, as in Ansible
                  timeout: seconds a runtime addition lasts (service, port, port_forward, rich_rule, icmp_block)
                Each configuration is asked with firewall-cmd --query-* and changed with --add-*/--remove-*
                (an interface moves with --change-interface). A stopped firewalld (firewall-cmd --state)
                takes permanent changes through firewall-offline-cmd; runtime changes then fail, as in
                Ansible. offline is accepted and changes nothing: a stopped daemon is always handled so.
                source needs permanent given (Ansible's rule). Not supported: target, default.""";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** Whether the daemon runs: another item of a loop of firewalld tasks cannot change it. */
    @Override
    public List<List<String>> prefetch(Params params) {
        return List.of(STATE);
    }

    /** Where a query or a change goes: the daemon's runtime or permanent configuration, or the files of a stopped one. */
    enum Config {
        RUNTIME("runtime", List.of("firewall-cmd")),
        PERMANENT("permanent", List.of("firewall-cmd", "--permanent")),
        OFFLINE("permanent, firewalld stopped", List.of("firewall-offline-cmd"));

        final String label;
        final List<String> prefix;

        Config(String label, List<String> prefix) {
            this.label = label;
            this.prefix = prefix;
        }

        List<String> argv(Optional<String> zone, String option) {
            List<String> argv = new ArrayList<>(prefix);
            zone.ifPresent(z -> argv.add("--zone=" + z));
            argv.add(option);
            return List.copyOf(argv);
        }
    }

    /**
     * One setting of a zone as firewall-cmd spells it: {@code --query-service=nfs}, {@code --add-masquerade}.
     *
     * @param what how the summary names it ({@code service nfs})
     * @param stem the option's noun ({@code service}, {@code forward-port})
     * @param value the option's value; empty for a flag ({@code masquerade})
     * @param addVerb {@code add}, or {@code change} for an interface (which leaves its old zone)
     * @param timed whether a runtime addition takes {@code --timeout}
     */
    record Setting(String what, String stem, Optional<String> value, String addVerb, boolean timed) {
        String option(String verb) {
            return "--" + verb + "-" + stem + value.map(v -> "=" + v).orElse("");
        }
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String state = params.string("state");
        Optional<String> zone = params.optString("zone").map(String::strip);
        if (zone.isPresent() && !ZONE.matcher(zone.get()).matches()) {
            throw new ModuleException("zone '" + zone.get() + "' is not a firewalld zone name");
        }
        boolean permanent = params.has("permanent") && params.bool("permanent");
        // Ansible: "if this is no, immediate is assumed yes".
        boolean immediate = params.bool("immediate") || !permanent;
        Optional<Setting> setting = setting(params, state);
        HostView host = context.host();
        if (setting.isEmpty()) {
            if (state.equals("enabled") || state.equals("disabled")) {
                throw new ModuleException("state " + state + " needs one of " + String.join(", ", SETTINGS)
                        + " (zone alone takes state present or absent)");
            }
            if (zone.isEmpty()) {
                throw new ModuleException("state " + state + " creates or deletes a zone: give zone");
            }
            if (!permanent || params.bool("immediate")) {
                throw new ModuleException(NOT_PERMANENT_ZONE);
            }
            return zonePlan(host, zone.get(), state.equals("present"), running(host));
        }
        if (state.equals("present") || state.equals("absent")) {
            throw new ModuleException("absent and present state can only be used in zone level operations;"
                    + " use enabled or disabled for " + setting.get().what());
        }
        if (params.has("interface") && zone.isEmpty()) {
            throw new ModuleException("interface needs zone: the zone the interface is bound to");
        }
        if (params.has("source") && !params.has("permanent")) {
            throw new ModuleException("source needs permanent (true or false), as in Ansible");
        }
        long timeout = params.integer("timeout");
        if (timeout < 0) {
            throw new ModuleException("timeout must be 0 (none) or a number of seconds, got " + timeout);
        }
        if (timeout > 0 && !setting.get().timed()) {
            throw new ModuleException("timeout applies to service, port, port_forward, rich_rule and icmp_block, not to "
                    + setting.get().what());
        }
        if (timeout > 0 && !immediate) {
            throw new ModuleException("timeout applies to the runtime configuration only: with permanent: true set immediate: true");
        }
        boolean running = running(host);
        List<Config> configs = new ArrayList<>();
        if (permanent) {
            configs.add(running ? Config.PERMANENT : Config.OFFLINE);
        }
        if (immediate) {
            if (!running) {
                throw new ModuleException("firewall is not currently running, unable to perform immediate actions without a"
                        + " running firewall daemon (firewall-cmd --state: not running); with permanent: true and"
                        + " immediate: false the permanent configuration is changed through firewall-offline-cmd");
            }
            configs.add(Config.RUNTIME);
        }
        return settingPlan(host, zone, setting.get(), state.equals("enabled"), timeout, configs);
    }

    private static Plan settingPlan(HostView host, Optional<String> zone, Setting setting, boolean wanted, long timeout,
                                    List<Config> configs) throws ModuleException {
        String where = zone.map(z -> "zone " + z).orElse("the default zone");
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Map<List<String>, ProbeResult> afterwards = new LinkedHashMap<>();
        for (Config config : configs) {
            List<String> query = config.argv(zone, setting.option("query"));
            boolean enabled = queried(host, query);
            if (enabled == wanted) {
                reasons.add(setting.what() + " is " + (wanted ? "enabled in " : "not enabled in ") + where + " (" + config.label + ")");
                continue;
            }
            List<String> argv = new ArrayList<>(config.argv(zone, setting.option(wanted ? setting.addVerb() : "remove")));
            if (wanted && timeout > 0 && config == Config.RUNTIME) {
                argv.add("--timeout=" + timeout);
            }
            changes.add(Change.of((wanted ? "enable " : "disable ") + setting.what() + " in " + where + " (" + config.label
                    + (wanted && timeout > 0 && config == Config.RUNTIME ? ", for " + timeout + " s" : "") + ")",
                    Command.Exec.of(argv.toArray(String[]::new))));
            afterwards.put(query, answer(wanted));
        }
        Plan plan = Plan.of(changes, String.join("; ", reasons));
        for (Map.Entry<List<String>, ProbeResult> e : afterwards.entrySet()) {
            plan = plan.withProbeAfterwards(e.getKey(), e.getValue());
        }
        return plan;
    }

    private static Plan zonePlan(HostView host, String zone, boolean wanted, boolean running) throws ModuleException {
        Config config = running ? Config.PERMANENT : Config.OFFLINE;
        List<String> probe = config.argv(Optional.empty(), "--get-zones");
        ProbeResult listed = host.probe(probe.toArray(String[]::new));
        if (!listed.ok()) {
            throw new ModuleException("cannot list firewalld's zones (" + String.join(" ", probe) + " exited " + listed.exitCode()
                    + "): " + (listed.stderr().isBlank() ? listed.stdout() : listed.stderr()).strip());
        }
        List<String> zones = zones(listed.stdout());
        if (zones.contains(zone) == wanted) {
            return Plan.converged("zone " + zone + (wanted ? " exists" : " does not exist") + " (" + config.label + ")");
        }
        List<String> after = new ArrayList<>(zones);
        if (wanted) {
            after.add(zone);
        } else {
            after.remove(zone);
        }
        String option = (wanted ? "--new-zone=" : "--delete-zone=") + zone;
        return Plan.of(Change.of((wanted ? "create zone " : "delete zone ") + zone + " (" + config.label + ")",
                        Command.Exec.of(config.argv(Optional.empty(), option).toArray(String[]::new))))
                .withProbeAfterwards(probe, new ProbeResult(0, String.join(" ", after) + "\n", ""));
    }

    /** The setting the parameters name, checked; empty when none is given (a zone operation). */
    private static Optional<Setting> setting(Params params, String state) throws ModuleException {
        if (params.has("service")) {
            String service = single(params, "service");
            return Optional.of(new Setting("service " + service, "service", Optional.of(service), "add", true));
        }
        if (params.has("port")) {
            String port = single(params, "port");
            if (!PORT.matcher(port).matches()) {
                throw new ModuleException("improper port format (missing protocol?): port '" + port
                        + "' must be PORT/PROTOCOL or FROM-TO/PROTOCOL, protocol tcp, udp, sctp or dccp");
            }
            return Optional.of(new Setting("port " + port, "port", Optional.of(port), "add", true));
        }
        if (params.has("port_forward")) {
            String spec = forwardPort(params.list("port_forward"));
            return Optional.of(new Setting("port forward " + spec, "forward-port", Optional.of(spec), "add", true));
        }
        if (params.has("rich_rule")) {
            String rule = single(params, "rich_rule");
            return Optional.of(new Setting("rich rule '" + rule + "'", "rich-rule", Optional.of(rule), "add", true));
        }
        if (params.has("source")) {
            String source = single(params, "source");
            return Optional.of(new Setting("source " + source, "source", Optional.of(source), "add", false));
        }
        if (params.has("interface")) {
            String iface = single(params, "interface");
            return Optional.of(new Setting("interface " + iface, "interface", Optional.of(iface), "change", false));
        }
        if (params.has("icmp_block")) {
            String type = single(params, "icmp_block");
            return Optional.of(new Setting("icmp block " + type, "icmp-block", Optional.of(type), "add", true));
        }
        if (params.has("icmp_block_inversion")) {
            flag(params, "icmp_block_inversion", state);
            return Optional.of(new Setting("icmp block inversion", "icmp-block-inversion", Optional.empty(), "add", false));
        }
        if (params.has("masquerade")) {
            flag(params, "masquerade", state);
            return Optional.of(new Setting("masquerade", "masquerade", Optional.empty(), "add", false));
        }
        return Optional.empty();
    }

    /** A one-line, non-empty value: it becomes the one argument {@code --add-NAME=VALUE}. */
    private static String single(Params params, String name) throws ModuleException {
        String value = params.string(name).strip();
        if (value.isEmpty() || value.contains("\n")) {
            throw new ModuleException(name + " must be a non-empty single line");
        }
        return value;
    }

    /**
     * masquerade and icmp_block_inversion only name the setting; state says on or off. Ansible reads
     * {@code masquerade: no} with {@code state: enabled} as "enable", which no reader expects: refused.
     */
    private static void flag(Params params, String name, String state) throws ModuleException {
        if (!params.bool(name) && state.equals("enabled")) {
            throw new ModuleException(name + ": false with state: enabled is ambiguous (Ansible enables it: the value only"
                    + " names the setting, state decides); write " + name + ": true with state: enabled or disabled");
        }
    }

    /** firewall-cmd's {@code port=P:proto=X:toport=T[:toaddr=A]} from Ansible's one-item list. */
    private static String forwardPort(List<Object> items) throws ModuleException {
        if (items.size() != 1 || !(items.getFirst() instanceof Map<?, ?> item)) {
            throw new ModuleException("port_forward takes exactly one item with port, proto, toport and optionally toaddr"
                    + " (Ansible: only one port forward supported at a time)");
        }
        for (Object key : item.keySet()) {
            if (!List.of("port", "proto", "toport", "toaddr").contains(String.valueOf(key))) {
                throw new ModuleException("port_forward: unknown key '" + key + "' (port, proto, toport, toaddr)");
            }
        }
        String port = forwardPart(item, "port");
        String proto = forwardPart(item, "proto");
        String toport = forwardPart(item, "toport");
        if (!PORT_NUMBER.matcher(port).matches() || !PORT_NUMBER.matcher(toport).matches()) {
            throw new ModuleException("port_forward: port and toport must be a port or FROM-TO range, got '" + port + "' and '" + toport + "'");
        }
        if (!proto.equals("tcp") && !proto.equals("udp")) {
            throw new ModuleException("port_forward: proto must be tcp or udp, got '" + proto + "'");
        }
        String spec = "port=" + port + ":proto=" + proto + ":toport=" + toport;
        if (item.get("toaddr") != null && !String.valueOf(item.get("toaddr")).isBlank()) {
            String toaddr = String.valueOf(item.get("toaddr")).strip();
            if (!IPV4.matcher(toaddr).matches()) {
                throw new ModuleException("port_forward: toaddr '" + toaddr + "' is not an IPv4 address (IPv6 forwards: use a rich_rule)");
            }
            spec += ":toaddr=" + toaddr;
        }
        return spec;
    }

    private static String forwardPart(Map<?, ?> item, String key) throws ModuleException {
        Object value = item.get(key);
        if (value == null || String.valueOf(value).isBlank()) {
            throw new ModuleException(key + " must be specified for port forward");
        }
        return String.valueOf(value).strip();
    }

    /** Whether firewalld runs, from {@code firewall-cmd --state}. */
    private static boolean running(HostView host) throws ModuleException {
        ProbeResult state = host.probe(STATE.toArray(String[]::new));
        return switch (parseState(state)) {
            case RUNNING -> true;
            case NOT_RUNNING -> false;
            case NOT_INSTALLED -> throw new ModuleException("firewall-cmd is not installed on this host: install the firewalld package first");
            case FAILED -> throw new ModuleException("firewalld is running but failed to load its configuration"
                    + " (firewall-cmd --state: " + output(state) + "); see journalctl -u firewalld");
        };
    }

    enum DaemonState { RUNNING, NOT_RUNNING, FAILED, NOT_INSTALLED }

    /**
     * {@code firewall-cmd --state}: {@code running} (exit 0), {@code not running} (exit 252, on stderr),
     * {@code failed} (exit 251: running, its configuration not loaded); exit 127 from the shell when
     * there is no firewall-cmd. firewalld 2.5 and later print "Waiting on dbus connection..." on
     * stderr first while they wait for a starting daemon.
     */
    static DaemonState parseState(ProbeResult state) throws ModuleException {
        String out = output(state);
        if (state.ok() && state.stdout().strip().equals("running")) {
            return DaemonState.RUNNING;
        }
        if (state.exitCode() == NOT_RUNNING || out.endsWith("not running")) {
            return DaemonState.NOT_RUNNING;
        }
        if (state.exitCode() == 127) {
            return DaemonState.NOT_INSTALLED;
        }
        if (out.endsWith("failed")) {
            return DaemonState.FAILED;
        }
        throw new ModuleException("cannot tell whether firewalld runs: firewall-cmd --state exited " + state.exitCode() + ": " + out);
    }

    /** A {@code --query-*} answer: {@code yes} (exit 0) or {@code no} (exit 1); anything else is an error. */
    private static boolean queried(HostView host, List<String> query) throws ModuleException {
        return parseQuery(query, host.probe(query.toArray(String[]::new)));
    }

    static boolean parseQuery(List<String> query, ProbeResult answer) throws ModuleException {
        String said = answer.stdout().strip();
        if (answer.exitCode() == 0 && said.equals("yes")) {
            return true;
        }
        if (answer.exitCode() == 1 && said.equals("no")) {
            return false;
        }
        throw new ModuleException(String.join(" ", query) + " exited " + answer.exitCode() + ": " + output(answer)
                + (output(answer).contains("INVALID_SERVICE") ? " (firewall-cmd --get-services lists the services this host knows)" : ""));
    }

    /** {@code firewall-cmd --get-zones}: the names on one line, separated by spaces. */
    static List<String> zones(String stdout) {
        return Arrays.stream(stdout.strip().split("\\s+")).filter(z -> !z.isEmpty()).toList();
    }

    private static ProbeResult answer(boolean yes) {
        return yes ? new ProbeResult(0, "yes\n", "") : new ProbeResult(1, "no\n", "");
    }

    private static String output(ProbeResult r) {
        String both = (r.stdout().strip() + "\n" + r.stderr().strip()).strip();
        return both.isEmpty() ? "no output" : both;
    }
}
