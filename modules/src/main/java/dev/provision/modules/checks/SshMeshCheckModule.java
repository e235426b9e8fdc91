package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ssh_mesh}, the per-host part: this node reaches every peer by SSH with a key and a known
 * host key ({@code ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=N PEER true}),
 * all peers in one probe ({@link #SCRIPT}, {@code parallel} at a time; peers are positional
 * arguments, never shell text). Every node running it gives the full mesh.
 *
 * <p>Parameters: {@code peers} (required list of host names or addresses, {@code user@host} allowed),
 * {@code connect_timeout} (seconds, default 5), {@code parallel} (default 32). One row
 * {@code ssh_mesh.reachable}, failed when any peer is unreachable. Result: {@code unreachable}
 * (list of {@code {peer, error}}), {@code reachable} (count).
 */
public final class SshMeshCheckModule implements TaskModule {
    /** $1 timeout, $2 parallelism, then the peers; prints {@code PEER<TAB>EXIT<TAB>ERROR} per peer. */
    static final String SCRIPT = "t=$1; n=$2; shift 2; printf '%s\\n' \"$@\" | xargs -P \"$n\" -I{} sh -c "
            + "'err=$(ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=\"$1\" -- \"$2\" true 2>&1 </dev/null); "
            + "rc=$?; printf \"%s\\t%s\\t%s\\n\" \"$2\" \"$rc\" \"$(printf \"%s\" \"$err\" | tr \"\\n\\t\" \"  \")\"' sh \"$t\" {}";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("peers", Type.LIST)
            .withDefault("connect_timeout", Type.INT, 5L)
            .withDefault("parallel", Type.INT, 32L)
            .build();

    public SshMeshCheckModule() {
    }

    @Override
    public String name() {
        return "ssh_mesh";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    static List<String> command(long timeout, long parallel, List<String> peers) {
        List<String> argv = new ArrayList<>(List.of("sh", "-c", SCRIPT, "sh", String.valueOf(timeout), String.valueOf(parallel)));
        argv.addAll(peers);
        return argv;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        Set<String> distinct = new LinkedHashSet<>();
        for (Object p : params.list("peers")) {
            distinct.add(Probes.plainName("peers", String.valueOf(p)));
        }
        List<String> peers = List.copyOf(distinct);
        CheckReport report = new CheckReport(name());
        if (peers.isEmpty()) {
            return report.add(CheckResult.skip("ssh_mesh.reachable", "no peers")).plan();
        }
        long timeout = Math.max(1, params.integer("connect_timeout"));
        long parallel = Math.max(1, params.integer("parallel"));
        ProbeResult r = context.host().probe(command(timeout, parallel, peers).toArray(String[]::new));
        Map<String, String> errors = new LinkedHashMap<>();
        peers.forEach(p -> errors.put(p, "no answer from the probe: " + Probes.firstLine(r)));
        for (String line : r.stdout().lines().toList()) {
            String[] f = line.split("\t", 3);
            if (f.length >= 2 && errors.containsKey(f[0])) {
                if (f[1].equals("0")) {
                    errors.remove(f[0]);
                } else {
                    errors.put(f[0], f.length > 2 && !f[2].isBlank() ? f[2].strip() : "ssh exit " + f[1]);
                }
            }
        }
        List<Map<String, Object>> unreachable = errors.entrySet().stream()
                .map(e -> Map.<String, Object>of("peer", e.getKey(), "error", e.getValue())).toList();
        int reachable = peers.size() - errors.size();
        report.measured("reachable", (long) reachable).measured("unreachable", unreachable);
        report.add(CheckResult.of(errors.isEmpty(), "ssh_mesh.reachable", reachable + "/" + peers.size(), peers.size() + "/" + peers.size(),
                "unreachable: " + String.join(", ", errors.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")").toList())
                        + ": check sshd, the cluster key and the known hosts on those nodes (cluster.yml's ssh setup)"));
        return report.plan();
    }
}
