package dev.provision.modules.system;

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
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code seboolean} (Ansible's {@code ansible.posix.seboolean}): an SELinux boolean on or off, live and,
 * with {@code persistent}, in the policy store so that it survives a reboot.
 *
 * <p>The live value is read with {@code getsebool NAME}, which also says when SELinux is disabled
 * (then the task fails, as in Ansible, unless {@code ignore_selinux_state}). The persistent value is
 * read from {@code semanage boolean -l} (its Default column). A change is {@code setsebool NAME on|off},
 * or {@code setsebool -P} when persistent, which sets both (and only the store while SELinux is
 * disabled). Unlike Ansible, a persistent boolean whose stored value is right but whose live one is not
 * is set too: both are what the task asks for.
 */
public final class SebooleanModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING)
            .required("state", Type.BOOL)
            .withDefault("persistent", Type.BOOL, false)
            .withDefault("ignore_selinux_state", Type.BOOL, false)
            .build();

    public SebooleanModule() {
    }

    @Override
    public String name() {
        return "seboolean";
    }

    @Override
    public String description() {
        return """
                An SELinux boolean on or off (Ansible's ansible.posix.seboolean).
                  name: the boolean; state: true (on) or false (off)
                  persistent (default false): also in the policy store, so that it survives a reboot
                  ignore_selinux_state (default false): go on when SELinux is disabled: a persistent value is
                    set in the store only, a live one is left (there is none)
                Read with getsebool NAME (live; it also says when SELinux is disabled, which fails the task
                unless ignore_selinux_state) and semanage boolean -l (persistent: policycoreutils-python-utils);
                set with setsebool NAME on|off, or setsebool -P when persistent (live and stored at once).""";
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
        String name = params.string("name").strip();
        if (!Selinux.BOOLEAN_NAME.matcher(name).matches()) {
            throw new ModuleException("name '" + name + "' is not an SELinux boolean name (letters, digits and '_')");
        }
        boolean wanted = params.bool("state");
        boolean persistent = params.bool("persistent");
        HostView host = context.host();
        List<String> liveProbe = Selinux.getsebool(name);
        Optional<Selinux.LiveBoolean> live = live(host.probe(liveProbe.toArray(String[]::new)), name);
        if (live.isEmpty() && !params.bool("ignore_selinux_state")) {
            throw new ModuleException("SELinux is disabled on this host.");
        }
        String value = Selinux.onOff(wanted);
        if (!persistent) {
            if (live.isEmpty()) {
                return Plan.converged("SELinux is disabled: boolean " + name + " has no live value (ignore_selinux_state)");
            }
            if (live.get().active() == wanted && live.get().pending() == wanted) {
                return Plan.converged("SELinux boolean " + name + " is " + value);
            }
            return Plan.of(Change.withDiff("set SELinux boolean " + name + " to " + value,
                            new Diff("SELinux boolean " + name, Selinux.onOff(live.get().active()) + "\n", value + "\n"),
                            Command.Exec.of("setsebool", name, value)))
                    .withProbeAfterwards(liveProbe, Selinux.getseboolAnswer(name, wanted));
        }
        ProbeResult listed = host.probe(Selinux.BOOLEANS.toArray(String[]::new));
        if (listed.exitCode() == 127) {
            throw new ModuleException("persistent: true reads the boolean's stored value with semanage, which is not installed"
                    + " (package policycoreutils-python-utils; policycoreutils-python on EL7)");
        }
        if (!listed.ok()) {
            throw new ModuleException("cannot list SELinux booleans (semanage boolean -l exited " + listed.exitCode() + "): "
                    + (listed.stderr().isBlank() ? listed.stdout() : listed.stderr()).strip());
        }
        Map<String, Selinux.StoredBoolean> stored = Selinux.parseBooleans(listed.stdout());
        Selinux.StoredBoolean row = stored.get(name);
        if (row == null) {
            throw new ModuleException("SELinux boolean " + name + " is not defined in persistent policy");
        }
        boolean liveRight = live.isEmpty() || live.get().active() == wanted && live.get().pending() == wanted;
        if (row.persistent() == wanted && liveRight) {
            return Plan.converged("SELinux boolean " + name + " is " + value + (live.isEmpty()
                    ? " in the policy store (SELinux is disabled)" : ", live and persistent"));
        }
        String before = live.map(l -> "live: " + Selinux.onOff(l.active()) + "\n").orElse("")
                + "persistent: " + Selinux.onOff(row.persistent()) + "\n";
        String after = live.map(l -> "live: " + value + "\n").orElse("") + "persistent: " + value + "\n";
        Plan plan = Plan.of(Change.withDiff("set SELinux boolean " + name + " to " + value
                        + (live.isEmpty() ? " in the policy store (SELinux is disabled)" : ", live and persistent"),
                        new Diff("SELinux boolean " + name, before, after),
                        Command.Exec.of("setsebool", "-P", name, value)))
                .withProbeAfterwards(Selinux.BOOLEANS, new ProbeResult(0, Selinux.withBoolean(listed.stdout(), name, wanted), ""));
        return live.isEmpty() ? plan : plan.withProbeAfterwards(liveProbe, Selinux.getseboolAnswer(name, wanted));
    }

    /** The live value; empty when SELinux is disabled (or not installed at all: no getsebool). */
    private static Optional<Selinux.LiveBoolean> live(ProbeResult r, String name) throws ModuleException {
        if (r.ok()) {
            return Optional.of(Selinux.parseGetsebool(r.stdout()).orElseThrow(() -> new ModuleException(
                    "cannot read SELinux boolean " + name + ": getsebool printed '" + r.stdout().strip() + "'")));
        }
        if (r.exitCode() == 127 || r.stderr().contains(Selinux.DISABLED)) {
            return Optional.empty();
        }
        if (r.stderr().contains("Error getting active value")) {
            throw new ModuleException("SELinux boolean " + name + " is not defined (getsebool: " + r.stderr().strip() + ")");
        }
        throw new ModuleException("cannot read SELinux boolean " + name + ": getsebool exited " + r.exitCode() + ": "
                + (r.stderr().isBlank() ? r.stdout() : r.stderr()).strip());
    }
}
