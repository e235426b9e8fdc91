package dev.provision.modules.system;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.Optional;

/**
 * {@code systemd} (Ansible's {@code ansible.builtin.systemd}; {@link SystemdServiceModule} is its
 * other name {@code systemd_service}): a systemd unit, planned by {@link ServiceModule}'s systemd
 * planning, so both modules probe, change and forecast a unit the same way.
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code name} (aliases {@code service}, {@code unit}): the unit; needed by everything but
 *       {@code daemon_reload}.
 *   <li>{@code state}: {@code started}, {@code stopped}, {@code restarted}, {@code reloaded} (as
 *       {@code service}), {@code tried-restart} (restart only when running).
 *   <li>{@code enabled}: start at boot ({@code systemctl enable|disable}).
 *   <li>{@code masked}: {@code systemctl mask|unmask}; a masked unit cannot be started or enabled,
 *       so asking for both is refused.
 *   <li>{@code daemon_reload} (alias {@code daemon-reload}): {@code systemctl daemon-reload} before the
 *       rest. Without a name the task is that reload (planned every time). With a name it is planned
 *       when systemd says the unit's files changed since it read them ({@code systemctl show
 *       --property=NeedDaemonReload}), so a converged unit stays {@code ok}.
 *   <li>{@code daemon_reexec} (alias {@code daemon-reexec}): {@code systemctl daemon-reexec} first
 *       (planned every time).
 *   <li>{@code scope}: {@code system} (default); {@code user} and {@code global} are refused.
 * </ul>
 * At least one of {@code state}, {@code enabled}, {@code masked}, {@code daemon_reload},
 * {@code daemon_reexec}. On a host that does not run systemd the task fails and names {@code service}.
 */
public final class SystemdModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("name", Type.STRING, "service", "unit")
            .choice("state", null, "started", "stopped", "restarted", "reloaded", "tried-restart")
            .optional("enabled", Type.BOOL)
            .optional("masked", Type.BOOL)
            .withDefault("daemon_reload", Type.BOOL, false, "daemon-reload")
            .withDefault("daemon_reexec", Type.BOOL, false, "daemon-reexec")
            .choice("scope", "system", "system", "user", "global")
            .refused("force", "it replaces unit symlinks that something else made; remove the conflicting link"
                    + " (file: state: absent) first")
            .refused("no_block", "provision waits for each job, so that the next task (and --check's forecast)"
                    + " sees the state it made")
            .refused("user", "scope user is not supported either: run 'command: systemctl --user ...' as that user")
            .requiredOneOf("state", "enabled", "masked", "daemon_reload", "daemon_reexec")
            .build();

    public SystemdModule() {
    }

    @Override
    public String name() {
        return "systemd";
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
        String scope = params.string("scope");
        if (!scope.equals("system")) {
            throw new ModuleException("scope " + scope + " is not supported: provision manages the system's units; for a user's"
                    + " units run 'command: systemctl --user ...' as that user (become_user)");
        }
        Optional<String> name = params.optString("name").map(String::strip).filter(n -> !n.isEmpty());
        Optional<String> state = params.optString("state");
        Optional<Boolean> enabled = PackageModule.optBool(params, "enabled");
        Optional<Boolean> masked = PackageModule.optBool(params, "masked");
        boolean daemonReload = params.bool("daemon_reload");
        boolean daemonReexec = params.bool("daemon_reexec");
        if (name.isEmpty() && (state.isPresent() || enabled.isPresent() || masked.isPresent())) {
            throw new ModuleException("state, enabled and masked need the unit's name");
        }
        if (name.isPresent() && !ServiceModule.isServiceName(name.get())) {
            throw new ModuleException("name '" + name.get() + "' is not a unit name" + (name.get().matches(".*[*?\\[].*")
                    ? " (globs are not supported: one unit per task, or a loop)" : ""));
        }
        HostView host = context.host();
        Object manager = host.facts().getOrDefault("service_mgr", "unknown");
        if (!"systemd".equals(manager)) {
            throw new ModuleException("this host does not run systemd (facts.service_mgr is " + manager
                    + "); use service, which also manages init scripts");
        }
        Plan plan;
        if (name.isEmpty() && !daemonReload) {
            plan = Plan.converged("");
        } else {
            plan = ServiceModule.planSystemd(host, name, new ServiceModule.UnitRequest(state, enabled, masked, daemonReload));
        }
        if (daemonReexec) {
            java.util.List<dev.provision.modules.spi.Change> changes = new java.util.ArrayList<>();
            changes.add(dev.provision.modules.spi.Change.of("re-execute the systemd manager (daemon_reexec)",
                    dev.provision.modules.spi.Command.Exec.of("systemctl", "daemon-reexec")));
            changes.addAll(plan.changes());
            plan = new Plan(changes, "", plan.facts(), plan.result(), plan.afterwards(), plan.checks());
        }
        return plan;
    }
}
