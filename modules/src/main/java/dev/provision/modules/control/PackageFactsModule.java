package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code package_facts}: the installed packages as the fact {@code packages}
 * ({@code ansible_facts.packages}), by name, each a list of {@code {name, version, arch, source}}
 * (rpm adds {@code release} and {@code epoch}), as Ansible gives them: from dpkg where there is one,
 * else rpm. One read-only round trip; changes nothing.
 */
public final class PackageFactsModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .choice("manager", "auto", "auto", "apt", "rpm")
            .optional("strategy", Type.STRING)
            .build();

    static String script(String manager) {
        String apt = "echo '--- apt'; dpkg-query -W -f='${db:Status-Abbrev}\\t${Package}\\t${Version}\\t${Architecture}\\n'";
        String rpm = "echo '--- rpm'; rpm -qa --qf '%{NAME}\\t%{VERSION}\\t%{RELEASE}\\t%{EPOCH}\\t%{ARCH}\\n'";
        return switch (manager) {
            case "apt" -> apt;
            case "rpm" -> rpm;
            default -> "if command -v dpkg-query >/dev/null 2>&1; then " + apt + "; elif command -v rpm >/dev/null 2>&1; then "
                    + rpm + "; fi";
        };
    }

    public PackageFactsModule() {
    }

    @Override
    public String name() {
        return "package_facts";
    }

    @Override
    public String description() {
        return "reads the installed packages into ansible_facts.packages (dpkg or rpm); changes nothing";
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
        String output = context.host().probe("sh", "-c", script(params.string("manager"))).stdout();
        if (!output.startsWith("--- ")) {
            throw new ModuleException("found no package manager to ask (dpkg-query or rpm)");
        }
        Map<String, Object> packages = parse(output);
        return Plan.converged("found " + packages.size() + " packages")
                .withResult(Map.of(SetupModule.FACTS_RESULT, Map.of("packages", packages)));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> parse(String output) {
        Map<String, Object> packages = new TreeMap<>();
        String source = "";
        for (String line : output.split("\n")) {
            if (line.startsWith("--- ")) {
                source = line.substring(4).strip();
                continue;
            }
            String[] f = line.split("\t", -1);
            Map<String, Object> p = new LinkedHashMap<>();
            if (source.equals("apt") && f.length == 4 && f[0].startsWith("ii")) {
                p.put("name", f[1].strip());
                p.put("version", f[2].strip());
                p.put("arch", f[3].strip());
            } else if (source.equals("rpm") && f.length == 5) {
                p.put("name", f[0].strip());
                p.put("version", f[1].strip());
                p.put("release", f[2].strip());
                p.put("epoch", f[3].strip().equals("(none)") ? null : f[3].strip());
                p.put("arch", f[4].strip());
            } else {
                continue;
            }
            p.put("source", source);
            if (p.get("epoch") == null) {
                p.remove("epoch");
            }
            ((List<Object>) packages.computeIfAbsent((String) p.get("name"), k -> new ArrayList<>())).add(p);
        }
        return packages;
    }
}
