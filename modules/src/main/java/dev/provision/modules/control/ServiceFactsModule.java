package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code service_facts}: the host's services as the fact {@code services} ({@code ansible_facts.services}),
 * keyed by unit name ({@code sshd.service}), each {@code {name, state, status, source}} with Ansible's
 * values: from systemd's units and unit files, or from {@code service --status-all} where systemd
 * is not the init system. One read-only round trip; changes nothing.
 *
 * <p>One difference from Ansible, which asks systemd once per unit file that is not loaded: such a
 * unit is reported {@code inactive} without asking (a unit systemd has not loaded is not active).
 */
public final class ServiceFactsModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder().build();
    private static final Set<String> BAD_STATES = Set.of("not-found", "masked", "failed");

    /** Read-only; prints the sections {@code --- units} and {@code --- unit-files}, or {@code --- sysv}. */
    static final String SCRIPT = String.join("\n",
            "if grep -q systemd /proc/1/comm 2>/dev/null && command -v systemctl >/dev/null 2>&1; then",
            "  echo '--- units'; systemctl list-units --no-pager --plain --no-legend --type service --all",
            "  echo '--- unit-files'; systemctl list-unit-files --no-pager --plain --no-legend --type service --all",
            "elif command -v service >/dev/null 2>&1; then",
            "  echo '--- sysv'; service --status-all 2>&1",
            "fi",
            "true");

    public ServiceFactsModule() {
    }

    @Override
    public String name() {
        return "service_facts";
    }

    @Override
    public String description() {
        return "reads the host's services into ansible_facts.services (state, status, source); changes nothing";
    }

    @Override
    public boolean setsVariables() {
        return true;
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
        Map<String, Object> services = parse(context.host().probe("sh", "-c", SCRIPT).stdout());
        return Plan.converged("found " + services.size() + (services.size() == 1 ? " service" : " services"))
                .withResult(Map.of(SetupModule.FACTS_RESULT, Map.of("services", services)));
    }

    /** The services in the script's output, by name. */
    static Map<String, Object> parse(String output) {
        Map<String, Map<String, String>> services = new TreeMap<>();
        String section = "";
        for (String line : output.split("\n")) {
            if (line.startsWith("--- ")) {
                section = line.substring(4).strip();
                continue;
            }
            String[] f = line.strip().split("\\s+");
            switch (section) {
                case "units" -> {
                    // UNIT LOAD ACTIVE SUB DESCRIPTION...
                    if (f.length >= 4 && f[0].endsWith(".service")) {
                        String status = BAD_STATES.contains(f[1]) ? f[1] : f[2];
                        services.put(f[0], service(f[0], f[3].equals("running") ? "running" : "stopped", status, "systemd"));
                    }
                }
                case "unit-files" -> {
                    // UNIT-FILE STATE [VENDOR-PRESET]
                    if (f.length >= 2 && f[0].endsWith(".service")) {
                        Map<String, String> known = services.get(f[0]);
                        if (known == null) {
                            services.put(f[0], service(f[0], "inactive", f[1], "systemd"));
                        } else if (!BAD_STATES.contains(known.get("status"))) {
                            known.put("status", f[1]);
                        }
                    }
                }
                case "sysv" -> {
                    // " [ + ]  ssh": + running, - stopped, ? unknown
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\[\\s*([+?-])\\s*\\]\\s+(\\S+)").matcher(line.strip());
                    if (m.find()) {
                        String state = switch (m.group(1)) {
                            case "+" -> "running";
                            case "-" -> "stopped";
                            default -> "unknown";
                        };
                        services.put(m.group(2), service(m.group(2), state, "unknown", "sysv"));
                    }
                }
                default -> { }
            }
        }
        return new LinkedHashMap<>(services);
    }

    private static Map<String, String> service(String name, String state, String status, String source) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("name", name);
        s.put("state", state);
        s.put("status", status);
        s.put("source", source);
        return s;
    }
}
