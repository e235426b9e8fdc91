package dev.provision.modules.system;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code hostname}: the host's name in {@code /etc/hostname} (what it boots with) and, live, in the
 * kernel ({@code hostname NAME}), as Ansible's {@code hostname} module with its default strategy on
 * a Debian or Red Hat host. The module that the README's "Adding a module" walks through.
 *
 * <p>Parameters: {@code name}, required: a host name of RFC 1123 labels (letters, digits, inner
 * hyphens; dots between labels; 253 characters at most). {@code use} is accepted for Ansible's
 * {@code systemd}, {@code debian}, {@code redhat} and {@code generic} strategies, which all end in
 * these two places here; others are refused.
 */
public final class HostnameModule implements TaskModule {
    static final String FILE = "/etc/hostname";
    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    private static final List<String> LIVE_PROBE = List.of("hostname");
    private static final Attributes FILE_ATTRIBUTES = new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING)
            .choice("use", null, "systemd", "debian", "redhat", "generic")
            .build();

    public HostnameModule() {
    }

    @Override
    public String name() {
        return "hostname";
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
        if (!isHostName(name)) {
            throw new ModuleException("'" + name + "' is not a host name (letters, digits and inner hyphens, "
                    + "labels separated by dots, 253 characters at most)");
        }
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Plan file = FileContentPlanner.plan(context.host(), FILE, (name + "\n").getBytes(StandardCharsets.UTF_8),
                FILE_ATTRIBUTES, FILE + " holds " + name);
        if (file.isEmpty()) {
            reasons.add(file.reason());
        } else {
            changes.addAll(file.changes());
        }
        ProbeResult live = context.host().probe(LIVE_PROBE.toArray(String[]::new));
        if (!live.ok()) {
            throw new ModuleException("cannot read the host name: hostname exited " + live.exitCode() + ": " + live.stderr().strip());
        }
        String current = live.stdout().strip();
        if (current.equals(name)) {
            reasons.add("the host is named " + name);
        } else {
            changes.add(Change.withDiff("set the live host name to " + name + " (was " + current + ")",
                    new Diff("hostname (live)", current + "\n", name + "\n"), Command.Exec.of("hostname", name)));
        }
        if (changes.isEmpty()) {
            return Plan.converged(String.join("; ", reasons));
        }
        return new Plan(changes, "", Map.of(), Map.of())
                .withProbeAfterwards(LIVE_PROBE, new ProbeResult(0, name + "\n", ""));
    }

    /** RFC 1123: dot-separated labels of letters, digits and inner hyphens; never starts with '-' (an option). */
    static boolean isHostName(String name) {
        if (name.isEmpty() || name.length() > 253 || name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
            return false;
        }
        for (String label : name.split("\\.")) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }
}
