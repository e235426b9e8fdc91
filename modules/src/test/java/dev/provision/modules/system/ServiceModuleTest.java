package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class ServiceModuleTest extends ModuleTableTest<ServiceModule> {
    private static final String PIDFILE = "/run/chronyd-test.pid";
    private static final List<String> STATUS = List.of("start-stop-daemon", "--status", "--pidfile", PIDFILE);
    private static final List<String> START = List.of("start-stop-daemon", "--start", "--background", "--make-pidfile", "--pidfile", PIDFILE,
            "--exec", "/usr/sbin/chronyd", "--", "-d", "-f", "/etc/chrony/chrony.conf");
    private static final List<String> STOP = List.of("start-stop-daemon", "--stop", "--oknodo", "--retry", "TERM/10/KILL/5",
            "--remove-pidfile", "--pidfile", PIDFILE);

    ServiceModuleTest() {
        super(new ServiceModule());
    }

    /** A systemd host whose unit starts, stops, enables and disables like the real one. */
    static FakeHost systemd(String unit, boolean active, String enabled) {
        FakeHost host = new FakeHost().fact("service_mgr", "systemd");
        active(host, unit, active);
        isEnabled(host, unit, enabled);
        host.onExec(List.of("systemctl", "start", unit), h -> active(h, unit, true));
        host.onExec(List.of("systemctl", "stop", unit), h -> active(h, unit, false));
        host.onExec(List.of("systemctl", "enable", unit), h -> isEnabled(h, unit, "enabled"));
        host.onExec(List.of("systemctl", "disable", unit), h -> isEnabled(h, unit, "disabled"));
        return host;
    }

    private static void active(FakeHost host, String unit, boolean active) {
        host.probe(active ? 0 : 3, active ? "active\n" : "inactive\n", "", "systemctl", "is-active", unit);
    }

    private static void isEnabled(FakeHost host, String unit, String state) {
        boolean ok = !state.equals("disabled") && !state.startsWith("masked") && !state.isEmpty();
        host.probe(ok ? 0 : 1, state.isEmpty() ? "" : state + "\n",
                state.isEmpty() ? "Failed to get unit file state for " + unit + ".service: No such file or directory\n" : "",
                "systemctl", "is-enabled", unit);
    }

    /** A host without systemd with an LSB init script. */
    static FakeHost initScript(String name, boolean running, boolean updateRcD, boolean enabled) {
        String script = "/etc/init.d/" + name;
        FakeHost host = new FakeHost().fact("service_mgr", "none").file(script, "#!/bin/sh\n", "0755", "root", "root");
        host.probe(running ? 0 : 3, "", "", script, "status");
        host.onExec(List.of(script, "start"), h -> h.probe(0, "", "", script, "status"));
        host.onExec(List.of(script, "stop"), h -> h.probe(3, "", "", script, "status"));
        host.probe(updateRcD ? 0 : 1, updateRcD ? "/usr/sbin/update-rc.d\n" : "", "", "sh", "-c", "command -v update-rc.d");
        List<String> enabledProbe = List.of("sh", "-c", "ls /etc/rc[2345].d/S[0-9][0-9]\"$1\" >/dev/null 2>&1", "sh", name);
        host.probe(enabledProbe, new dev.provision.modules.spi.ProbeResult(enabled ? 0 : 2, "", ""));
        host.onExec(List.of("update-rc.d", name, "enable"), h -> h.probe(enabledProbe, new dev.provision.modules.spi.ProbeResult(0, "", "")));
        host.onExec(List.of("update-rc.d", name, "disable"), h -> h.probe(enabledProbe, new dev.provision.modules.spi.ProbeResult(2, "", "")));
        return host;
    }

    /** A host with no init system at all: the daemon fallback. */
    static FakeHost bare(boolean running) {
        FakeHost host = new FakeHost().fact("service_mgr", "none").directory("/etc/init.d");
        host.probe(running ? 0 : 3, "", "", STATUS.toArray(String[]::new));
        host.onExec(START, h -> h.probe(0, "", "", STATUS.toArray(String[]::new)));
        host.onExec(STOP, h -> h.probe(3, "", "", STATUS.toArray(String[]::new)));
        return host;
    }

    private static Map<String, Object> daemon(String state) {
        return Args.of("name", "chronyd", "state", state, "daemon", List.of("/usr/sbin/chronyd", "-d", "-f", "/etc/chrony/chrony.conf"),
                "pidfile", PIDFILE);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // systemd
                row("systemd: started and running", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "state", "started"),
                        converged("chrony is running")),
                row("systemd: start", systemd("chrony", false, "enabled"), Args.of("name", "chrony", "state", "started"),
                        planned("exec [systemctl, start, chrony]")),
                row("systemd: stop", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "state", "stopped"),
                        planned("exec [systemctl, stop, chrony]")),
                row("systemd: stopped already", systemd("chrony", false, "enabled"), Args.of("name", "chrony", "state", "stopped"),
                        converged("chrony is stopped")),
                row("action: systemd restart always plans", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "state", "restarted"),
                        planned("exec [systemctl, restart, chrony]")),
                row("action: systemd reload when running", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "state", "reloaded"),
                        planned("exec [systemctl, reload, chrony]")),
                row("action: systemd reload of a stopped service starts it", systemd("chrony", false, "enabled"), Args.of("name", "chrony", "state", "reloaded"),
                        planned("exec [systemctl, start, chrony]")),
                row("systemd: enable and start", systemd("chrony", false, "disabled"), Args.of("name", "chrony", "state", "started", "enabled", true),
                        planned("exec [systemctl, start, chrony]", "exec [systemctl, enable, chrony]")),
                row("systemd: disable", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "enabled", false),
                        planned("exec [systemctl, disable, chrony]")),
                row("systemd: enabled and running", systemd("chrony", true, "enabled"), Args.of("name", "chrony", "state", "started", "enabled", "yes"),
                        converged("chrony is running; chrony is enabled")),
                row("systemd: static needs no enable", systemd("nfs-idmapd", true, "static"), Args.of("name", "nfs-idmapd", "enabled", true),
                        converged("nfs-idmapd is static (systemd starts it through other units; there is nothing to enable)")),
                row("systemd: masked cannot be enabled", systemd("chrony", false, "masked"), Args.of("name", "chrony", "enabled", true),
                        fails("chrony is masked; unmask it")),
                row("systemd: no such unit", systemd("nope", false, ""), Args.of("name", "nope", "enabled", true),
                        fails("systemd has no unit nope")),
                // init scripts
                row("init script: start", initScript("chrony", false, true, true), Args.of("name", "chrony", "state", "started"),
                        planned("exec [/etc/init.d/chrony, start]")),
                row("init script: running", initScript("chrony", true, true, true), Args.of("name", "chrony", "state", "started"),
                        converged("chrony is running")),
                row("init script: stop", initScript("chrony", true, true, true), Args.of("name", "chrony", "state", "stopped"),
                        planned("exec [/etc/init.d/chrony, stop]")),
                // Debian's chrony script restarts without waiting for the old daemon; ours waits.
                row("action: init script restart stops, waits until stopped, starts", initScript("chrony", true, true, true),
                        Args.of("name", "chrony", "state", "restarted"), planned("exec [/etc/init.d/chrony, stop]",
                                "exec [sh, -c, i=0; while \"$0\" status >/dev/null 2>&1 && [ $i -lt 300 ]; do sleep 0.1;"
                                        + " i=$((i+1)); done; :, /etc/init.d/chrony]",
                                "exec [/etc/init.d/chrony, start]")),
                row("init script: enable with update-rc.d", initScript("chrony", true, true, false), Args.of("name", "chrony", "enabled", true),
                        planned("exec [update-rc.d, chrony, defaults]", "exec [update-rc.d, chrony, enable]")),
                row("init script: disable with update-rc.d", initScript("chrony", true, true, true), Args.of("name", "chrony", "enabled", false),
                        planned("exec [update-rc.d, chrony, disable]")),
                row("init script: enabled without update-rc.d is not applicable", initScript("chrony", true, false, false),
                        Args.of("name", "chrony", "state", "started", "enabled", true),
                        converged("chrony is running; enabled is not applicable to chrony: no systemd and no update-rc.d on this host")),
                row("init script: unknown status fails", initScript("chrony", true, true, true).probe(4, "", "status unknown", "/etc/init.d/chrony", "status"),
                        Args.of("name", "chrony", "state", "started"), fails("cannot tell whether chrony runs: /etc/init.d/chrony status exited 4")),
                // no init system: start-stop-daemon
                row("daemon: start", bare(false), daemon("started"), planned("exec " + START)),
                row("daemon: running", bare(true), daemon("started"), converged("chronyd is running")),
                row("daemon: stop", bare(true), daemon("stopped"), planned("exec " + STOP)),
                row("action: daemon restart", bare(true), daemon("restarted"), planned("exec " + STOP, "exec " + START)),
                row("daemon: enabled is not applicable", bare(true), Args.of("name", "chronyd", "state", "started", "enabled", true,
                                "daemon", List.of("/usr/sbin/chronyd"), "pidfile", PIDFILE),
                        converged("chronyd is running; enabled is not applicable to chronyd: no systemd and no init script; this task starts"
                                + " the daemon (run it again after a reboot)")),
                // errors
                row("nothing to manage it with", new FakeHost().fact("service_mgr", "none"), Args.of("name", "chronyd", "state", "started"),
                        fails("cannot manage chronyd: this host runs no systemd, has no /etc/init.d/chronyd, and the task gives no daemon/pidfile")),
                row("daemon without pidfile", bare(false), Args.of("name", "chronyd", "state", "started", "daemon", List.of("/usr/sbin/chronyd")),
                        fails("daemon and pidfile go together")),
                row("daemon with a relative program", bare(false), Args.of("name", "chronyd", "state", "started", "daemon", List.of("chronyd"),
                        "pidfile", PIDFILE), fails("daemon must start with the absolute path")),
                row("neither state nor enabled", bare(false), Args.of("name", "chronyd"), fails("one of these parameters is required: enabled, state")),
                row("bad state", bare(false), Args.of("name", "chronyd", "state", "running"), fails("must be one of: started, stopped, restarted, reloaded")),
                row("name that would be an option", systemd("x", true, "enabled"), Args.of("name", "--now", "state", "started"),
                        fails("is not a service name")));
    }

    /** Rows that plan a state change; restarted and reloaded are actions that plan every time. */
    static Stream<Arguments> plannedCases() {
        return Table.plannedStates(cases());
    }

    @Test
    void restartedPlansAgainAfterApplying() throws Exception {
        FakeHost host = systemd("chrony", true, "enabled");
        FakeContext context = new FakeContext(host, controller);
        Map<String, Object> args = Args.of("name", "chrony", "state", "restarted");
        host.apply(module.plan(module.params().validate(args), context));
        assertFalse(module.plan(module.params().validate(args), context).isEmpty());
    }

    @Test
    void withoutSystemdTheInitScriptIsPreferredOverTheDaemonFallback() throws Exception {
        FakeHost host = initScript("chronyd", false, true, true);
        Plan plan = module.plan(module.params().validate(daemon("started")), new FakeContext(host, controller));
        assertEquals(List.of("exec [/etc/init.d/chronyd, start]"), Expect.describe(plan));
    }

    @Test
    void withSystemdNoInitScriptIsConsulted() throws Exception {
        FakeHost host = systemd("chrony", false, "enabled").file("/etc/init.d/chrony", "#!/bin/sh\n");
        module.plan(module.params().validate(Args.of("name", "chrony", "state", "started")), new FakeContext(host, controller));
        assertEquals(List.of(List.of("systemctl", "is-active", "chrony")), host.probesRun());
    }
}
