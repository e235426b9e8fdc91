package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskModule;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SystemdModuleTest extends ModuleTableTest<TaskModule> {
    private static final String FRAGMENT = "/usr/lib/systemd/system/chrony.service";

    SystemdModuleTest() {
        super(new SystemdModule());
    }

    /** A systemd host whose unit starts, stops, enables, masks and reloads like the real one. */
    static FakeHost systemd(String unit, boolean active, String enabled, boolean needsReload) {
        FakeHost host = ServiceModuleTest.systemd(unit, active, enabled);
        shown(host, unit, needsReload);
        host.onExec(List.of("systemctl", "mask", unit), h -> isEnabled(h, unit, "masked"));
        host.onExec(List.of("systemctl", "unmask", unit), h -> isEnabled(h, unit, "disabled"));
        host.onExec(List.of("systemctl", "daemon-reload"), h -> shown(h, unit, false));
        return host;
    }

    private static void shown(FakeHost host, String unit, boolean needsReload) {
        host.probe(0, "Id=" + unit + ".service\nLoadState=loaded\nFragmentPath=" + FRAGMENT + "\nNeedDaemonReload=" + (needsReload ? "yes" : "no") + "\n", "",
                ServiceModule.unitFilesProbe(unit).toArray(String[]::new));
    }

    private static void isEnabled(FakeHost host, String unit, String state) {
        boolean ok = state.equals("enabled") || state.equals("static");
        host.probe(ok ? 0 : 1, state + "\n", "", "systemctl", "is-enabled", unit);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("started and running", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "started"),
                        converged("chrony is running")),
                row("start", systemd("chrony", false, "enabled", false), Args.of("unit", "chrony", "state", "started"),
                        planned("exec [systemctl, start, chrony]")),
                row("stop", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "stopped"),
                        planned("exec [systemctl, stop, chrony]")),
                row("enable and start", systemd("chrony", false, "disabled", false), Args.of("name", "chrony", "state", "started", "enabled", true),
                        planned("exec [systemctl, start, chrony]", "exec [systemctl, enable, chrony]")),
                row("disable", systemd("chrony", true, "enabled", false), Args.of("service", "chrony", "enabled", "no"),
                        planned("exec [systemctl, disable, chrony]")),
                row("action: restarted", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "restarted"),
                        planned("exec [systemctl, restart, chrony]")),
                row("action: tried-restart restarts a running unit", systemd("chrony", true, "enabled", false),
                        Args.of("name", "chrony", "state", "tried-restart"), planned("exec [systemctl, restart, chrony]")),
                row("tried-restart leaves a stopped unit", systemd("chrony", false, "enabled", false), Args.of("name", "chrony", "state", "tried-restart"),
                        converged("chrony is not running (tried-restart restarts only a running unit)")),
                // masks
                row("mask", systemd("chrony", false, "disabled", false), Args.of("name", "chrony", "masked", true),
                        planned("exec [systemctl, mask, chrony]")),
                row("masked already", systemd("chrony", false, "masked", false), Args.of("name", "chrony", "masked", true), converged("chrony is masked")),
                row("stop, then mask", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "stopped", "masked", true),
                        planned("exec [systemctl, stop, chrony]", "exec [systemctl, mask, chrony]")),
                row("unmask, start and enable", systemd("chrony", false, "masked", false),
                        Args.of("name", "chrony", "masked", false, "state", "started", "enabled", true),
                        planned("exec [systemctl, unmask, chrony]", "exec [systemctl, start, chrony]", "exec [systemctl, enable, chrony]")),
                row("not masked", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "masked", false), converged("chrony is not masked")),
                row("masked and started contradict", systemd("chrony", false, "enabled", false), Args.of("name", "chrony", "masked", true, "state", "started"),
                        fails("masked: true and state: started contradict")),
                row("masked and enabled contradict", systemd("chrony", false, "enabled", false), Args.of("name", "chrony", "masked", true, "enabled", true),
                        fails("masked: true and enabled: true contradict")),
                row("a masked unit is not enabled without unmasking", systemd("chrony", false, "masked", false), Args.of("name", "chrony", "enabled", true),
                        fails("chrony is masked; unmask it (masked: false")),
                // daemon_reload
                row("action: daemon_reload when the unit file changed, before the restart", systemd("chrony", true, "enabled", true),
                        Args.of("name", "chrony", "state", "restarted", "daemon_reload", true),
                        planned("exec [systemctl, daemon-reload]", "exec [systemctl, restart, chrony]")),
                row("daemon_reload and start", systemd("chrony", false, "enabled", true), Args.of("name", "chrony", "state", "started", "daemon-reload", "yes"),
                        planned("exec [systemctl, daemon-reload]", "exec [systemctl, start, chrony]")),
                row("daemon_reload with a converged unit is ok", systemd("chrony", true, "enabled", false),
                        Args.of("name", "chrony", "state", "started", "daemon_reload", true),
                        converged("systemd has read chrony's unit files; chrony is running")),
                row("daemon_reload in a dry run after an earlier task writes a drop-in", systemd("chrony", true, "enabled", false)
                                .pending("/etc/systemd/system/chrony.service.d/override.conf"),
                        Args.of("name", "chrony", "daemon_reload", true), planned("exec [systemctl, daemon-reload]")),
                row("action: daemon_reload alone", systemd("chrony", true, "enabled", false), Args.of("daemon_reload", true),
                        planned("exec [systemctl, daemon-reload]")),
                row("action: daemon_reexec", systemd("chrony", true, "enabled", false), Args.of("daemon_reexec", true),
                        planned("exec [systemctl, daemon-reexec]")),
                // bad input
                row("neither state, enabled, masked nor daemon_reload", systemd("chrony", true, "enabled", false), Args.of("name", "chrony"),
                        fails("one of these parameters is required: daemon_reexec, daemon_reload, enabled, masked, state")),
                row("state without a name", systemd("chrony", true, "enabled", false), Args.of("state", "started"),
                        fails("state, enabled and masked need the unit's name")),
                row("a glob", systemd("chrony", true, "enabled", false), Args.of("name", "chrony*", "state", "started"),
                        fails("globs are not supported")),
                row("a name that would be an option", systemd("chrony", true, "enabled", false), Args.of("name", "--now", "state", "started"),
                        fails("is not a unit name")),
                row("scope user is refused", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "started", "scope", "user"),
                        fails("scope user is not supported")),
                row("no_block is refused", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "started", "no_block", true),
                        fails("parameter 'no_block' is not supported")),
                row("not a systemd host", new FakeHost().fact("service_mgr", "none"), Args.of("name", "chrony", "state", "started"),
                        fails("this host does not run systemd (facts.service_mgr is none); use service")),
                row("bad state", systemd("chrony", true, "enabled", false), Args.of("name", "chrony", "state", "running"),
                        fails("must be one of: started, stopped, restarted, reloaded, tried-restart")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void systemdServiceIsTheSameModule(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(new SystemdServiceModule(), new FakeContext(host, controller), args, expect);
    }

    /** Rows that plan a state change; actions plan every time, and a dry run's pending file is not on the fake host. */
    static Stream<Arguments> plannedCases() {
        return Table.plannedStates(cases()).filter(row -> !Table.name(row).contains("dry run"));
    }

    @Test
    void aPlanSaysWhatItsProbesAnswerAfterwards() throws Exception {
        FakeHost host = systemd("chrony", false, "disabled", true);
        Plan plan = module.plan(module.params().validate(Args.of("name", "chrony", "state", "started", "enabled", true, "daemon_reload", true)),
                new FakeContext(host, controller));
        assertEquals(new ProbeResult(0, "active\n", ""), plan.afterwards().get(List.of("systemctl", "is-active", "chrony")));
        assertEquals(new ProbeResult(0, "enabled\n", ""), plan.afterwards().get(List.of("systemctl", "is-enabled", "chrony")));
        assertEquals("Id=chrony.service\nLoadState=loaded\nFragmentPath=" + FRAGMENT + "\nNeedDaemonReload=no\n",
                plan.afterwards().get(ServiceModule.unitFilesProbe("chrony")).stdout());
    }

    @Test
    void maskingSaysIsEnabledAnswersMasked() throws Exception {
        FakeHost host = systemd("chrony", false, "enabled", false);
        Plan plan = module.plan(module.params().validate(Args.of("name", "chrony", "masked", true)), new FakeContext(host, controller));
        assertEquals(new ProbeResult(1, "masked\n", ""), plan.afterwards().get(List.of("systemctl", "is-enabled", "chrony")));
    }
}
