package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code setup}: gathers the host's facts again, as a task (the play's {@code gather_facts} does it
 * once at its start); later tasks see the new values. Ansible's idiom is to install a local fact
 * ({@code /etc/ansible/facts.d/NAME.fact}) and then run {@code setup: filter=ansible_local}. It reads
 * the host only (one read-only script, the play's own) and changes nothing.
 *
 * <p>Parameters: {@code filter} (glob patterns, a string or a list, matched against the fact names
 * with and without {@code ansible_}: only the matching facts are replaced), {@code fact_path}
 * (where local facts are read; {@code /etc/ansible/facts.d}). {@code gather_subset} and
 * {@code gather_timeout} are accepted for Ansible's playbooks: provision gathers its one set of facts
 * in one round trip, and a hung local fact script is stopped after ten seconds.
 */
public final class SetupModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("filter", Type.ANY, List.of())
            .withDefault("fact_path", Type.STRING, HostFacts.FACT_PATH)
            .optional("gather_subset", Type.ANY)
            .optional("gather_timeout", Type.INT)
            .build();

    public SetupModule() {
    }

    @Override
    public String name() {
        return "setup";
    }

    @Override
    public String description() {
        return "gathers the host's facts again (after installing a local fact, say); reads, changes nothing";
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
        String factPath = params.string("fact_path");
        if (!factPath.startsWith("/")) {
            throw new ModuleException("fact_path: '" + factPath + "' must be an absolute path on the host");
        }
        ProbeResult gathered = context.host().probe("sh", "-c", HostFacts.script(factPath));
        Map<String, Object> facts = HostFacts.parse(gathered.stdout());
        List<PathMatcher> filters = filters(params.raw("filter"));
        Map<String, Object> kept = new LinkedHashMap<>();
        facts.forEach((name, value) -> {
            if (filters.isEmpty() || filters.stream().anyMatch(f -> f.matches(Path.of(name)) || f.matches(Path.of("ansible_" + name)))) {
                kept.put(name, value);
            }
        });
        if (kept.isEmpty()) {
            throw new ModuleException("filter: " + params.raw("filter") + " matches none of the facts ("
                    + String.join(", ", facts.keySet()) + ")");
        }
        return Plan.converged("gathered " + kept.size() + (kept.size() == 1 ? " fact" : " facts")
                + (filters.isEmpty() ? "" : " (" + String.join(", ", kept.keySet()) + ")"))
                .withResult(Map.of(FACTS_RESULT, kept));
    }

    /** The result key under which gathered facts reach the engine, which updates the host's facts (Ansible's name). */
    public static final String FACTS_RESULT = "ansible_facts";

    private static List<PathMatcher> filters(Object filter) throws ModuleException {
        List<?> patterns = filter instanceof List<?> l ? l : List.of(String.valueOf(filter).split(","));
        List<PathMatcher> out = new ArrayList<>();
        for (Object p : patterns) {
            String glob = String.valueOf(p).strip();
            if (glob.isEmpty()) {
                continue;
            }
            if (glob.contains("/")) {
                throw new ModuleException("filter: '" + glob + "' is not a fact name pattern");
            }
            out.add(FileSystems.getDefault().getPathMatcher("glob:" + glob));
        }
        return out;
    }
}
