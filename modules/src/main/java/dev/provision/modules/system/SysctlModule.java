package dev.provision.modules.system;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
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
import dev.provision.modules.text.KeyValueFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code sysctl}: a kernel parameter in a drop-in file under {@code /etc/sysctl.d/} (so it survives a
 * reboot) and, by default, its live value.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code name} (alias {@code key}), required: the parameter, dotted ({@code net.core.rmem_max}).
 *   <li>{@code value} (alias {@code val}): required with {@code state: present}. Values compare with
 *       whitespace normalised (runs of blanks are one space), so {@code "4096 87380 16777216"}
 *       matches what {@code sysctl -n} prints with tabs.
 *   <li>{@code state}: {@code present} (default) or {@code absent} (the key leaves the file; the
 *       live value is left alone: the kernel has no "unset").
 *   <li>{@code sysctl_file} (default {@code /etc/sysctl.d/90-provision.conf}): the drop-in, created
 *       0644 (with its directory) when missing.
 *   <li>{@code sysctl_set} (default true): also set the live value. It is read with
 *       {@code sysctl -n NAME}; a differing value is a second change (diff label
 *       {@code sysctl NAME (live)}) that runs {@code sysctl -w NAME=VALUE} and reads the value back,
 *       failing the step when the kernel did not take it (a namespaced or clamped parameter).
 *   <li>{@code reload} (default true): when {@code sysctl_set} is false and the file changes,
 *       {@code sysctl -p FILE} loads the file, as Ansible does.
 *   <li>{@code ignore_missing} (default false): a parameter this kernel does not have fails the task
 *       when {@code sysctl_set} is true; with {@code ignore_missing} only the file is written and the
 *       plan says why.
 * </ul>
 */
public final class SysctlModule implements TaskModule {
    static final String DEFAULT_FILE = "/etc/sysctl.d/90-provision.conf";
    // A leading '-' would make sysctl read the name as an option; '/' is sysctl's other separator.
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_./:@-]*");
    private static final Pattern VALUE = Pattern.compile("(?!.*\\$\\()[^;&`\\p{Cntrl}]+");
    private static final Attributes FILE_ATTRIBUTES = new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));
    private static final Attributes DIRECTORY_ATTRIBUTES = new Attributes(Optional.of("0755"), Optional.of("root"), Optional.of("root"));
    /**
     * Sets the value, then fails unless the kernel reads it back as wanted. Values travel as
     * positional parameters: nothing from the playbook is ever part of the script text.
     */
    static final String SET_AND_VERIFY = "sysctl -w \"$1=$2\" >/dev/null || exit 1; "
            + "live=$(sysctl -n \"$1\" | tr -s \"[:space:]\" \" \"); live=${live# }; live=${live% }; "
            + "[ \"$live\" = \"$3\" ] || { echo \"sysctl $1 reads back '$live', not '$3'\" >&2; exit 1; }";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING, "key")
            .optional("value", Type.STRING, "val")
            .choice("state", "present", "present", "absent")
            .withDefault("sysctl_file", Type.STRING, DEFAULT_FILE)
            .withDefault("sysctl_set", Type.BOOL, true)
            .withDefault("reload", Type.BOOL, true)
            .withDefault("ignore_missing", Type.BOOL, false)
            .build();

    public SysctlModule() {
    }

    @Override
    public String name() {
        return "sysctl";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** The live value's probe: another item (another parameter) cannot change it. */
    @Override
    public List<List<String>> prefetch(Params params) {
        String name = params.string("name");
        boolean present = !params.string("state").equals("absent");
        return present && params.bool("sysctl_set") && NAME.matcher(name).matches() ? List.of(liveProbe(name)) : List.of();
    }

    /** Each item writes the same file and sets its own value: what it does to the file is forecast exactly. */
    @Override
    public boolean plansTogether() {
        return true;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = params.string("name");
        if (!NAME.matcher(name).matches()) {
            throw new ModuleException("name '" + name + "' is not a sysctl parameter name such as net.core.rmem_max");
        }
        String file = params.string("sysctl_file");
        if (!file.startsWith("/")) {
            throw new ModuleException("sysctl_file must be an absolute path, got '" + file + "'");
        }
        HostView host = context.host();
        if (params.string("state").equals("absent")) {
            return absent(host, name, file);
        }
        String value = normalise(params.optString("value")
                .orElseThrow(() -> new ModuleException("value is required with state=present")));
        if (value.isEmpty() || params.string("value").contains("\n")) {
            throw new ModuleException("value of " + name + " must be a non-empty single line");
        }
        if (!VALUE.matcher(value).matches()) {
            // A kernel value is numbers and words (core_pattern: a path, %-specifiers, a leading |),
            // never shell: a ';' or '$(' in one is a mistake or an attack, refused before any file holds it.
            throw new ModuleException("value of " + name + " '" + value + "' is not a kernel parameter value"
                    + " (numbers, words, paths; no ; & ` $( or control characters)");
        }
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Optional<String> live = Optional.empty();
        boolean missingFromKernel = false;
        if (params.bool("sysctl_set")) {
            ProbeResult probe = host.probe(liveProbe(name).toArray(String[]::new));
            if (probe.ok()) {
                live = Optional.of(normalise(probe.stdout()));
            } else if (isMissingKey(probe)) {
                if (!params.bool("ignore_missing")) {
                    throw new ModuleException(name + " is not a kernel parameter on this host (" + probe.stderr().strip()
                            + "); set ignore_missing: true to write " + file + " only");
                }
                missingFromKernel = true;
            } else {
                throw new ModuleException("cannot read " + name + ": sysctl -n exited " + probe.exitCode() + ": " + probe.stderr().strip());
            }
        }
        Plan filePlan = filePlan(host, name, value, file);
        if (!filePlan.isEmpty()) {
            Change fileChange = filePlan.changes().getLast();
            String summary = "set " + name + " = " + value + " in " + file
                    + (missingFromKernel ? " (file only: " + name + " is not in this kernel)" : "");
            List<Command> commands = new ArrayList<>(fileChange.commands());
            if (!params.bool("sysctl_set") && params.bool("reload")) {
                commands.add(Command.Exec.of("sysctl", "-p", file));
            }
            changes.addAll(filePlan.changes().subList(0, filePlan.changes().size() - 1));
            changes.add(new Change(summary, fileChange.diffs(), commands));
        } else {
            reasons.add(file + " sets " + name + " = " + value);
        }
        if (live.isPresent()) {
            if (live.get().equals(value)) {
                reasons.add("sysctl " + name + " is set to " + value);
            } else {
                changes.add(Change.withDiff("set live " + name + " to " + value + " (was " + live.get() + ")",
                        new Diff("sysctl " + name + " (live)", live.get() + "\n", value + "\n"),
                        Command.Exec.of("sh", "-c", SET_AND_VERIFY, "sh", name, params.string("value"), value)));
            }
        } else if (missingFromKernel) {
            reasons.add(name + " is not in this kernel (ignore_missing): live value not set");
        }
        String reason = String.join("; ", reasons);
        if (changes.isEmpty()) {
            return Plan.converged(reason);
        }
        Plan plan = new Plan(changes, missingFromKernel ? name + " is not in this kernel: file only (ignore_missing)" : "", Map.of(), Map.of());
        return live.isPresent() ? plan.withProbeAfterwards(liveProbe(name), new ProbeResult(0, value + "\n", "")) : plan;
    }

    private static List<String> liveProbe(String name) {
        return List.of("sysctl", "-n", name);
    }

    private static Plan absent(HostView host, String name, String file) throws ModuleException {
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, file);
        if (existing.isEmpty()) {
            return Plan.converged(file + " does not exist; " + name + " is not set there");
        }
        String text = existing.get().text(file);
        String edited = KeyValueFile.remove(text, name);
        return FileContentPlanner.update(file, existing.get(), edited.getBytes(StandardCharsets.UTF_8), Attributes.NONE,
                "remove " + name + " from " + file + " (the live value stays until reboot)", file + " does not set " + name);
    }

    private static Plan filePlan(HostView host, String name, String value, String file) throws ModuleException {
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, file);
        String text = existing.isPresent() ? existing.get().text(file) : "";
        // A value written with other spacing already says the same; rewriting it would be noise.
        if (KeyValueFile.get(text, name).map(SysctlModule::normalise).filter(value::equals).isPresent()) {
            return Plan.converged(file + " sets " + name);
        }
        byte[] wanted = KeyValueFile.set(text, name, value).getBytes(StandardCharsets.UTF_8);
        if (existing.isPresent()) {
            return FileContentPlanner.update(file, existing.get(), wanted, Attributes.NONE, "update " + file, file + " sets " + name);
        }
        return FileContentPlanner.planInDirectory(host, file, wanted, FILE_ATTRIBUTES, DIRECTORY_ATTRIBUTES, file + " sets " + name);
    }

    /** procps says "cannot stat /proc/sys/...", busybox "No such file or directory". */
    private static boolean isMissingKey(ProbeResult probe) {
        String err = probe.stderr();
        return err.contains("cannot stat") || err.contains("No such file or directory") || err.contains("unknown key");
    }

    /** Runs of whitespace become one space, as sysctl's tab-separated output and the file's spaces compare equal. */
    static String normalise(String value) {
        return String.join(" ", value.strip().split("\\s+"));
    }
}
