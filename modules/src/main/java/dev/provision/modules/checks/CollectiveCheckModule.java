package dev.provision.modules.checks;

import static dev.provision.modules.checks.PairRounds.BISECTION;
import static dev.provision.modules.checks.PairRounds.ROUND_1;
import static dev.provision.modules.checks.PairRounds.ROUND_2;

import dev.provision.modules.checks.PairRounds.Judgement;
import dev.provision.modules.checks.PairRounds.Measured;
import dev.provision.modules.checks.PairRounds.Pair;
import dev.provision.modules.checks.PairRounds.Standing;
import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.CrossHostCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Round;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.spi.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code collective}: all-reduce between nodes, the checklist's gold standard for the slow node.
 * Each node is first probed on its own (GPUs, PyTorch with NCCL or gloo, active HCAs, the address its
 * peers reach it at); then provision itself starts the ranks on both nodes of every pair at the same
 * time, over its own connections, with the rendezvous on the pair's first node and a bounded timeout
 * ({@code collective_bench.py}: one process per GPU over NCCL, or one per node over gloo where there
 * is no GPU). Round 1 pairs neighbours, round 2 shifts them by one, bisection rounds pair a node that
 * was slow everywhere with a node that was fine ({@link PairRounds}); then one all-reduce over every
 * node that joined gives the fleet's figure.
 *
 * <p>A pair passes at {@code min_fraction} (default 0.8) of the expected bus bandwidth and warns
 * below {@code warn_fraction} (0.85): {@code expected_busbw} (GB/s), else the HCAs' line rate
 * ({@link BusbwTable#acrossNodes}), else (gloo, or no HCA) the median of the pairs measured. Rows per
 * host: {@code collective.pair.PARTNER} for each of its pairs, {@code collective.node} (fine, slow,
 * never joined, ambiguous) and {@code collective.fleet}. {@code NCCL_*} and {@code GLOO_*} host
 * variables reach the ranks' environment; the NCCL version, transport and NVLS use come from
 * NCCL's own {@code NCCL_DEBUG=INFO} lines.
 */
public final class CollectiveCheckModule implements TaskModule, CrossHostCheck {
    static final String LAUNCHER = Probes.resource("collective_bench.py");
    static final String TORCH_PROBE = "import torch, torch.distributed as d\n"
            + "print('torch=%s dist=%s gloo=%s nccl=%s' % (torch.__version__, d.is_available(),"
            + " d.is_available() and d.is_gloo_available(), d.is_available() and d.is_nccl_available()))";
    private static final Pattern ENV_NAME = Pattern.compile("(NCCL|GLOO)_[A-Z0-9_]+");
    /** Set by provision for its own reading of NCCL's log; a user's value would hide the lines it reads. */
    private static final List<String> OWN_ENV = List.of("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE");
    private static final long DEFAULT_GLOO_SIZE = 64L << 20;
    private static final long DEFAULT_NCCL_SIZE = 4L << 30;
    /** Python's start (importing torch) on a loaded node, on top of the rendezvous and the measurement. */
    private static final int START_SLACK_SECONDS = 60;

    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("address", Type.STRING)
            .withDefault("port", Type.INT, 29400L)
            .optional("expected_busbw", Type.ANY)
            .withDefault("min_fraction", Type.ANY, 0.8)
            .withDefault("warn_fraction", Type.ANY, 0.85)
            .optional("fleet_min_fraction", Type.ANY)
            .choice("backend", "auto", "auto", "nccl", "gloo")
            .optional("max_size", Type.STRING)
            .withDefault("budget", Type.INT, 10L)
            .withDefault("timeout", Type.INT, 60L)
            .withDefault("fleet", Type.BOOL, true)
            .withDefault("python", Type.STRING, "python3")
            .build();

    public CollectiveCheckModule() {
    }

    @Override
    public String name() {
        return "collective";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public String description() {
        return """
                A read-only check: all-reduce between nodes, the pre-training checklist's way to find the slow
                node. Each node first says what it can run (GPUs, PyTorch with NCCL or gloo, active HCAs, the
                address its peers reach it at: address, else ansible_host). Then provision starts the ranks on
                both nodes of every pair at once, over its own connections (no node-to-node SSH), the
                rendezvous on the pair's first node at port + round:
                  round 1: neighbour pairs (1-2, 3-4, ...), all at once
                  round 2: shifted pairs (2-3, 4-5, ..., N-1)
                  bisection (at most 2): a node slow with every partner meets a node fine elsewhere;
                    a slow link is measured again
                  fleet: one all-reduce over every node that completed a pair
                Each run doubles its message size up to max_size (NCCL 4G, gloo 64M) within budget seconds;
                a rank that has not joined after timeout seconds ends its pair. A pair passes at
                min_fraction (0.8) of the expected bus bandwidth and warns below warn_fraction (0.85); the fleet
                all-reduce passes at fleet_min_fraction (default: min_fraction);
                expected: expected_busbw (GB/s), else the HCAs' line rate x 0.9, else the pairs' median.
                Rows per node: collective.pair.PARTNER, collective.node (fine / slow node / never joined /
                ambiguous) and collective.fleet. NCCL_* and GLOO_* host variables reach the ranks; the JSON
                has the NCCL version, transport and NVLS use (NCCL's own INFO lines), message size, GPUs per
                node. Sources of the figures: docs/busbw-expectations.md.""";
    }

    /** The node on its own: what it can run and where its peers reach it; the pairs run after every node planned. */
    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        Settings settings = Settings.of(params);
        String python = Probes.plainName("python", params.string("python"));
        String address = Probes.plainName("address", params.optString("address").filter(a -> !a.isBlank())
                .or(() -> Optional.ofNullable(context.variables().get("ansible_host")).map(String::valueOf))
                .orElse(context.host().name()));
        ProbeResult count = context.host().probe(NcclBandwidthCheckModule.COUNT_COMMAND.toArray(String[]::new));
        List<String> gpus = count.ok() ? count.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList() : List.of();
        ProbeResult torch = context.host().probe(python, "-c", TORCH_PROBE);
        String found = torch.stdout().strip();
        if (!torch.ok() || !found.contains("dist=True")) {
            return report.add(CheckResult.fail("collective.launcher", torch.ok() ? found : "no torch.distributed",
                    "PyTorch with torch.distributed", python + ": " + Probes.firstLine(torch)
                            + " (install PyTorch on the node, or set python to an interpreter that has it)"))
                    .measured("collective_ready", false).plan();
        }
        boolean nccl = !gpus.isEmpty() && found.contains("nccl=True");
        String backend = switch (params.string("backend")) {
            case "auto" -> nccl ? "nccl" : "gloo";
            case "nccl" -> {
                if (!nccl) {
                    throw new ModuleException("backend: nccl needs a GPU and PyTorch built with NCCL; this node has "
                            + gpus.size() + " GPU(s) and " + found);
                }
                yield "nccl";
            }
            default -> "gloo"; // the spec's choices: auto, nccl, gloo
        };
        if (backend.equals("gloo") && !found.contains("gloo=True")) {
            return report.add(CheckResult.fail("collective.launcher", found, "gloo or NCCL",
                    "PyTorch on this node has neither backend: install a PyTorch build with NCCL"))
                    .measured("collective_ready", false).plan();
        }
        Map<String, Object> env = new TreeMap<>();
        context.variables().forEach((k, v) -> {
            if (ENV_NAME.matcher(k).matches() && !OWN_ENV.contains(k) && v != null && !(v instanceof Map<?, ?>) && !(v instanceof List<?>)) {
                env.put(k, String.valueOf(v));
            }
        });
        report.measured("collective_ready", true).measured("collective_address", address).measured("collective_backend", backend)
                .measured("collective_python", python).measured("collective_env", env)
                .measured("gpus_per_node", (long) gpus.size()).measured("collective_settings", settings.toMap());
        if (!gpus.isEmpty()) {
            report.measured("gpu_model", gpus.get(0));
        }
        if (backend.equals("nccl")) {
            hcas(params, context).ifPresent(h -> report.measured("hca_count", (long) h.count).measured("hca_rate_gbps", h.rate));
        }
        return report.add(CheckResult.pass("collective.launcher", found.replace("torch=", "torch ").split(" dist=")[0] + " (" + backend + ")",
                "PyTorch with torch.distributed")).plan();
    }

    private record Hcas(int count, double rate) {
    }

    /** The active HCAs NCCL would use (NCCL_IB_HCA honoured) and their slowest rate; empty without one. */
    private static Optional<Hcas> hcas(Params params, TaskContext context) throws ModuleException {
        ProbeResult sysfs = context.host().probe("sh", "-c", IbStatus.SYSFS_SCRIPT);
        if (!sysfs.ok() || sysfs.stdout().isBlank()) {
            return Optional.empty();
        }
        Optional<NcclIbHca> selected = Optional.ofNullable(context.variables().get("NCCL_IB_HCA")).map(String::valueOf)
                .filter(v -> !v.isBlank()).map(NcclIbHca::parse);
        List<IbStatus.Port> up = IbStatus.parseSysfs(sysfs.stdout()).stream().filter(IbStatus.Port::up)
                .filter(p -> selected.map(s -> s.selects(p.device(), p.port())).orElse(true)).toList();
        if (up.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Hcas(up.size(), up.stream().mapToDouble(IbStatus.Port::rateGbps).min().orElse(0)));
    }

    /** The task's parameters the rounds need, the same on every host (the first host's are used). */
    record Settings(long port, Optional<Double> expected, double minFraction, double warnFraction,
                    double fleetMinFraction, Optional<Long> maxSize, long budget, long timeout, boolean fleet) {
        static Settings of(Params params) throws ModuleException {
            double min = Probes.number(params, "min_fraction").orElse(0.8);
            double warn = Probes.number(params, "warn_fraction").orElse(0.85);
            if (min <= 0 || min > 1 || warn < min || warn > 1) {
                throw new ModuleException("min_fraction and warn_fraction must be fractions with min_fraction <= warn_fraction <= 1, got "
                        + Probes.figure(min) + " and " + Probes.figure(warn));
            }
            long port = params.integer("port");
            if (port < 1024 || port > 65000) {
                throw new ModuleException("port: must be between 1024 and 65000 (each round uses the next one), got " + port);
            }
            if (params.integer("budget") < 1 || params.integer("timeout") < 1) {
                throw new ModuleException("budget and timeout: must be at least 1 second");
            }
            Optional<Long> maxSize = Probes.expectation(params, "max_size").map(ByteSize::parse);
            // blank is "as min_fraction", so that a playbook can pass "${collective_fleet_min_fraction!''}"
            boolean fleetGiven = params.has("fleet_min_fraction") && !String.valueOf(params.raw("fleet_min_fraction")).isBlank();
            double fleetMin = fleetGiven ? Probes.number(params, "fleet_min_fraction").orElse(min) : min;
            if (fleetMin <= 0 || fleetMin > 1) {
                throw new ModuleException("fleet_min_fraction must be a fraction, got " + Probes.figure(fleetMin));
            }
            return new Settings(port, Probes.number(params, "expected_busbw"), min, warn, fleetMin, maxSize,
                    params.integer("budget"), params.integer("timeout"), params.bool("fleet"));
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("port", port);
            expected.ifPresent(e -> m.put("expected_busbw", e));
            m.put("min_fraction", minFraction);
            m.put("warn_fraction", warnFraction);
            m.put("fleet_min_fraction", fleetMinFraction);
            maxSize.ifPresent(s -> m.put("max_size", s));
            m.put("budget", budget);
            m.put("timeout", timeout);
            m.put("fleet", fleet);
            return m;
        }

        static Settings from(Map<String, Object> m) {
            return new Settings(((Number) m.get("port")).longValue(),
                    Optional.ofNullable((Number) m.get("expected_busbw")).map(Number::doubleValue),
                    ((Number) m.get("min_fraction")).doubleValue(), ((Number) m.get("warn_fraction")).doubleValue(),
                    ((Number) m.get("fleet_min_fraction")).doubleValue(), Optional.ofNullable((Number) m.get("max_size")).map(Number::longValue),
                    ((Number) m.get("budget")).longValue(), ((Number) m.get("timeout")).longValue(), Boolean.TRUE.equals(m.get("fleet")));
        }

        Duration deadline() {
            return Duration.ofSeconds(2 * timeout + budget + START_SLACK_SECONDS);
        }
    }

    // ------------------------------------------------------------------ the rounds (pure)

    static final String FLEET = "fleet: every node at once";

    @Override
    public Optional<Round> nextRound(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done) {
        Participants fleet = Participants.of(resultsByHost);
        if (fleet.hosts.size() < 2) {
            return Optional.empty();
        }
        List<Measured> measured = fleet.pairsMeasured(done);
        long bisections = done.stream().filter(o -> o.round().name().startsWith(BISECTION)).count();
        if (done.isEmpty()) {
            return Optional.of(fleet.pairRound(ROUND_1, PairRounds.disjoint(fleet.hosts), 0));
        }
        if (done.size() == 1) {
            List<Pair> shifted = PairRounds.shifted(fleet.hosts).stream()
                    .filter(p -> measured.stream().noneMatch(m -> m.pair().sameNodes(p))).toList();
            if (!shifted.isEmpty()) {
                return Optional.of(fleet.pairRound(ROUND_2, shifted, 1));
            }
        }
        boolean fleetDone = done.stream().anyMatch(o -> o.round().name().equals(FLEET));
        if (!fleetDone && bisections < PairRounds.MAX_BISECTIONS) {
            List<Pair> next = PairRounds.bisection(fleet.hosts, measured, fleet.floor(measured));
            if (!next.isEmpty()) {
                return Optional.of(fleet.pairRound(BISECTION + " " + (bisections + 1) + ": suspects with cleared nodes", next, done.size()));
            }
        }
        if (!fleetDone && fleet.settings.fleet()) {
            Judgement j = PairRounds.judge(fleet.hosts, measured, fleet.floor(measured));
            List<String> joined = fleet.hosts.stream().filter(h -> j.of(h) != Standing.ABSENT && j.of(h) != Standing.UNTESTED
                    && measured.stream().anyMatch(m -> m.pair().has(h) && !m.broken())).toList();
            if (joined.size() >= 3) {
                return Optional.of(new Round(FLEET, List.of(fleet.gang("fleet", joined, done.size())), fleet.settings.deadline()));
            }
        }
        return Optional.empty();
    }

    @Override
    public Map<String, Findings> conclude(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done) {
        Participants fleet = Participants.of(resultsByHost);
        Map<String, Findings> out = new LinkedHashMap<>();
        if (fleet.hosts.size() < 2) {
            fleet.hosts.forEach(h -> out.put(h, new Findings(List.of(CheckResult.skip("collective.node",
                    "one node: there is no other to run a collective with")), Map.of())));
            return out;
        }
        List<Measured> measured = fleet.pairsMeasured(done);
        double expected = fleet.expected(measured);
        double floor = expected * fleet.settings.minFraction();
        double warnFloor = expected * fleet.settings.warnFraction();
        Judgement j = PairRounds.judge(fleet.hosts, measured, floor);
        String basis = fleet.basis(measured);
        String shownExpected = ">= " + gbps(floor) + " GB/s (" + Probes.figure(fleet.settings.minFraction()) + " x "
                + gbps(expected) + " " + basis + ")";
        // the all-reduce over every node has its own fraction: a ring over many nodes crosses more switch
        // hops than a pair (and, on a test machine, shares its cores with more ranks)
        double fleetFraction = fleet.settings.fleetMinFraction();
        double fleetFloor = expected * fleetFraction;
        double fleetWarnFloor = expected * Math.min(1, fleetFraction + (fleet.settings.warnFraction() - fleet.settings.minFraction()));
        String shownFleetExpected = ">= " + gbps(fleetFloor) + " GB/s (" + Probes.figure(fleetFraction) + " x "
                + gbps(expected) + " " + basis + ")";
        Optional<Round.Outcome> fleetRun = done.stream().filter(o -> o.round().name().equals(FLEET)).findFirst();
        OptionalDouble fleetBusbw = fleetRun.map(o -> busbw(o.answers().get("fleet"))).orElse(OptionalDouble.empty());
        List<String> slow = j.with(Standing.SLOW);
        List<String> absent = j.with(Standing.ABSENT);
        List<String> suspects = j.with(Standing.SUSPECT);
        List<String> links = j.slowLinks().stream().map(p -> p.first() + "-" + p.second()).toList();
        // one pass over every answer: per host, NCCL's own lines (a node whose HCA NCCL did not take
        // shows Socket where its peers show IB) and the largest size its gangs reached
        Map<String, StringBuilder> ncclLines = new LinkedHashMap<>();
        Map<String, Long> largestSize = new LinkedHashMap<>();
        for (Round.Outcome o : done) {
            for (List<Round.Answer> gang : o.answers().values()) {
                if (gang.isEmpty()) {
                    continue;
                }
                long size = largest(gang.get(0).result().stdout());
                for (Round.Answer a : gang) {
                    StringBuilder lines = ncclLines.computeIfAbsent(a.launch().host(), h -> new StringBuilder());
                    a.result().stdout().lines().filter(l -> l.contains("NCCL INFO")).forEach(l -> lines.append(l).append('\n'));
                    largestSize.merge(a.launch().host(), size, Math::max);
                }
            }
        }
        for (String host : fleet.hosts) {
            List<CheckResult> rows = new ArrayList<>();
            OptionalDouble best = OptionalDouble.empty();
            // one row per partner: a pair measured again (bisection) shows both figures, the worse verdict
            Map<String, CheckResult> byPartner = new LinkedHashMap<>();
            for (Measured m : measured) {
                if (!m.pair().has(host)) {
                    continue;
                }
                String partner = m.pair().partnerOf(host);
                CheckResult row = pairRow(host, partner, m, j, floor, warnFloor, shownExpected);
                byPartner.merge(partner, row, (a, b) -> new CheckResult(a.check(), a.measured() + ", " + b.measured(), a.expected(),
                        severity(b.verdict()) > severity(a.verdict()) ? b.verdict() : a.verdict(),
                        severity(b.verdict()) > severity(a.verdict()) ? b.detail() : a.detail()));
                if (m.busbw().isPresent() && (best.isEmpty() || m.busbw().getAsDouble() > best.getAsDouble())) {
                    best = m.busbw();
                }
            }
            rows.addAll(byPartner.values());
            rows.add(nodeRow(host, measured, j, floor));
            fleetRun.ifPresent(o -> rows.add(fleetRow(host, fleetBusbw, o, j, fleetFloor, fleetWarnFloor, shownFleetExpected, slow, links)));
            Map<String, Object> values = new LinkedHashMap<>();
            // the node's best pair: what it reaches with a healthy partner (a slow partner or link is in the rows)
            best.ifPresent(v -> values.put("collective_busbw_gbps", v));
            values.put("collective_expected_busbw_gbps", expected);
            fleetBusbw.ifPresent(v -> values.put("collective_fleet_busbw_gbps", v));
            values.put("collective_slow_nodes", slow);
            values.put("collective_slow_links", links);
            values.put("collective_absent_nodes", absent);
            values.put("collective_ambiguous_nodes", suspects);
            values.put("collective_size_bytes", largestSize.getOrDefault(host, 0L));
            NcclDebugLines nccl = NcclDebugLines.parse(ncclLines.getOrDefault(host, new StringBuilder()).toString());
            nccl.version().ifPresent(v -> values.put("nccl_version", v));
            nccl.transport().ifPresent(v -> values.put("nccl_transport", v));
            nccl.nvls().ifPresent(v -> values.put("nccl_nvls", v));
            out.put(host, new Findings(rows, values));
        }
        return out;
    }

    private static CheckResult pairRow(String host, String partner, Measured m, Judgement j, double floor, double warnFloor,
                                       String expected) {
        String check = "collective.pair." + partner;
        String measured = m.busbw().isPresent() ? gbps(m.busbw().getAsDouble()) + " GB/s" : "none";
        String where = " (" + m.round().replaceFirst(":.*", "") + ")";
        Standing mine = j.of(host);
        Standing theirs = j.of(partner);
        if (m.broken()) {
            String why = m.problems().getOrDefault(host, m.problems().getOrDefault(partner, "no figure"));
            if (mine == Standing.FINE && theirs == Standing.ABSENT) {
                return CheckResult.warn(check, measured, expected, partner + " never joined" + where + ": " + why
                        + ": see " + partner + "'s collective.node row");
            }
            return CheckResult.fail(check, measured, expected, "the pair did not complete" + where + ": " + why
                    + ": check that both run PyTorch and reach each other on the rendezvous port");
        }
        double v = m.busbw().getAsDouble();
        if (v >= warnFloor) {
            return CheckResult.pass(check, measured, expected);
        }
        if (v >= floor) {
            return CheckResult.warn(check, measured, expected, "below the warning level, " + gbps(warnFloor) + " GB/s" + where
                    + ": watch it; run the collective check again when the fabric is idle");
        }
        if (j.slowLinks().stream().anyMatch(p -> p.sameNodes(m.pair()))) {
            return CheckResult.fail(check, measured, expected, "slow link between " + host + " and " + partner
                    + where + ": both are fine with other nodes; check the cables, ports and switch path between them");
        }
        if (mine == Standing.FINE && theirs != Standing.FINE) {
            return CheckResult.warn(check, measured, expected, "bound by " + partner + where + ", slow in its other pairs: see "
                    + partner + "'s collective.node row");
        }
        if (mine == Standing.FINE) {
            return CheckResult.warn(check, measured, expected, "slow once" + where + ", fine when measured again: run the collective check"
                    + " again to confirm");
        }
        return CheckResult.fail(check, measured, expected, "below " + gbps(floor) + " GB/s" + where + ": check both nodes' HCAs, cables and"
                + " switch ports");
    }

    private static CheckResult nodeRow(String host, List<Measured> measured, Judgement j, double floor) {
        List<Measured> mine = measured.stream().filter(m -> m.pair().has(host)).toList();
        String partners = String.join(", ", mine.stream().map(m -> m.pair().partnerOf(host)
                + (m.busbw().isPresent() ? " " + gbps(m.busbw().getAsDouble()) : " none")).toList());
        String check = "collective.node";
        return switch (j.of(host)) {
            case FINE -> CheckResult.pass(check, "fine with " + mine.stream().filter(m -> m.fine(floor))
                    .map(m -> m.pair().partnerOf(host)).distinct().count() + " of "
                    + mine.stream().map(m -> m.pair().partnerOf(host)).distinct().count() + " partners", "fine with a partner");
            case SLOW -> CheckResult.fail(check, "slow node", "fine with a partner", "slow with every partner (" + partners
                    + " GB/s), each fine with other nodes: drain " + host + " and check its HCA, cable, switch port and NCCL_IB_HCA");
            case ABSENT -> CheckResult.fail(check, "never joined", "fine with a partner", "its rank did not complete with any partner ("
                    + mine.stream().map(m -> m.problems().getOrDefault(host, m.problems().values().stream().findFirst().orElse("no figure")))
                    .findFirst().orElse("") + "): check that PyTorch runs there and that its rendezvous port is open");
            case SUSPECT -> CheckResult.fail(check, "ambiguous", "fine with a partner", "slow or incomplete with every partner ("
                    + partners + "), but no node fine elsewhere was left to tell " + host + " from its links: check its HCA and cable, then"
                    + " run the collective check again with more nodes");
            case UNTESTED -> CheckResult.unknown(check, "could not judge: in no measured pair: run the collective check"
                    + " again with every node in the play");
        };
    }

    private static CheckResult fleetRow(String host, OptionalDouble busbw, Round.Outcome run, Judgement j, double floor,
                                        double warnFloor, String expected, List<String> slow, List<String> links) {
        String check = "collective.fleet";
        List<Round.Answer> answers = run.answers().get("fleet");
        boolean member = answers.stream().anyMatch(a -> a.launch().host().equals(host));
        String nodes = answers.size() + " nodes";
        if (!member) {
            return CheckResult.unknown(check, "could not judge: left out of the all-reduce over " + nodes
                    + " as it completed no pair (see its collective.node row)");
        }
        if (busbw.isEmpty()) {
            String why = answers.stream().filter(a -> a.status() != Round.Status.EXITED || a.result().exitCode() != 0)
                    .map(a -> a.launch().host() + ": " + problem(a)).findFirst().orElse("no figure");
            return CheckResult.fail(check, "none", expected, "the all-reduce over " + nodes + " did not complete: " + why
                    + ": see the collective.node rows; check the rendezvous port between the nodes");
        }
        double v = busbw.getAsDouble();
        String measured = gbps(v) + " GB/s over " + nodes;
        if (v >= warnFloor) {
            return CheckResult.pass(check, measured, expected);
        }
        List<String> named = new ArrayList<>(slow);
        named.addAll(links);
        if (!named.isEmpty()) {
            return new CheckResult(check, measured, expected, j.of(host) == Standing.FINE ? Verdict.WARN : Verdict.FAIL,
                    "bound by " + String.join(", ", named) + " (named in collective.node and collective.pair rows): fix those first");
        }
        return v >= floor ? CheckResult.warn(check, measured, expected, "below the warning level: watch it; check the switch"
                + " fabric's load")
                : CheckResult.fail(check, measured, expected, "every pair was fine, the whole fleet is not: check the switch fabric"
                        + " (oversubscription, a spine link) and NCCL's topology settings");
    }

    private static int severity(Verdict v) {
        return switch (v) {
            case PASS, SKIP -> 0;
            case WARN -> 1;
            case UNKNOWN -> 2;
            case FAIL -> 3;
        };
    }

    private static long largest(String stdout) {
        try {
            return TorchAllReduceOutput.parse(stdout).rows().stream().mapToLong(TorchAllReduceOutput.Row::sizeBytes).max().orElse(0);
        } catch (IllegalArgumentException e) {
            return 0;
        }
    }

    /** The figure of a gang's run: its rank 0's summary, when every rank exited cleanly. */
    static OptionalDouble busbw(List<Round.Answer> gang) {
        if (gang == null || gang.isEmpty() || gang.stream().anyMatch(a -> a.status() != Round.Status.EXITED || a.result().exitCode() != 0)) {
            return OptionalDouble.empty();
        }
        try {
            return OptionalDouble.of(TorchAllReduceOutput.parse(gang.get(0).result().stdout()).busbwGbps());
        } catch (IllegalArgumentException e) {
            return OptionalDouble.empty();
        }
    }

    /** Why a launch gave no figure, in one line: its {@code error=} line, the timeout, or its exit and last line. */
    static String problem(Round.Answer a) {
        if (a.status() != Round.Status.EXITED) {
            return (a.status() == Round.Status.TIMED_OUT ? "no answer within the round's deadline: " : "unreachable: ") + a.result().stderr().strip();
        }
        String error = a.result().stdout().lines().filter(l -> l.startsWith("error=")).map(l -> l.substring(6))
                .reduce((x, y) -> x).orElse("");
        if (!error.isEmpty()) {
            return error;
        }
        List<String> lines = Probes.output(a.result()).lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        return "exit " + a.result().exitCode() + (lines.isEmpty() ? "" : ": " + lines.get(lines.size() - 1));
    }

    private static String gbps(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    /** The nodes that can take part, in inventory order, with what they planned. */
    private record Participants(List<String> hosts, Map<String, Map<String, Object>> results, Settings settings) {
        static Participants of(Map<String, Map<String, Object>> resultsByHost) {
            List<String> hosts = new ArrayList<>();
            resultsByHost.forEach((h, r) -> {
                if (Boolean.TRUE.equals(r.get("collective_ready"))) {
                    hosts.add(h);
                }
            });
            Settings settings = hosts.isEmpty() ? null : Settings.from(castMap(resultsByHost.get(hosts.get(0)).get("collective_settings")));
            return new Participants(List.copyOf(hosts), resultsByHost, settings);
        }

        @SuppressWarnings("unchecked")
        private static Map<String, Object> castMap(Object o) {
            return (Map<String, Object>) o;
        }

        Round pairRound(String name, List<Pair> pairs, int index) {
            return new Round(name, pairs.stream().map(p -> gang(p.id(), List.of(p.first(), p.second()), index)).toList(), settings.deadline());
        }

        /** One launch per node; node 0 hosts the rendezvous; NCCL only when every node of the gang has it. */
        Round.Gang gang(String id, List<String> nodes, int roundIndex) {
            boolean nccl = nodes.stream().allMatch(h -> "nccl".equals(results.get(h).get("collective_backend")));
            int procs = nccl ? nodes.stream().mapToInt(h -> ((Number) results.get(h).get("gpus_per_node")).intValue()).min().orElse(1) : 1;
            long maxSize = settings.maxSize().orElse(nccl ? DEFAULT_NCCL_SIZE : DEFAULT_GLOO_SIZE);
            String master = String.valueOf(results.get(nodes.get(0)).get("collective_address"));
            List<Round.Launch> launches = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                Map<String, Object> r = results.get(nodes.get(i));
                List<String> argv = new ArrayList<>(List.of("env"));
                Map<String, Object> env = castMap(r.get("collective_env"));
                if (nccl) {
                    argv.addAll(List.of("NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET,ENV"));
                    if (nodes.size() == 2 && !env.containsKey("NCCL_ALGO")) {
                        // on two nodes the tree algorithms report more than the wire carries; NCCL's
                        // maintainers test a network with the ring (docs/busbw-expectations.md)
                        argv.add("NCCL_ALGO=Ring");
                    }
                }
                env.forEach((k, v) -> argv.add(k + "=" + v));
                argv.addAll(List.of(String.valueOf(r.get("collective_python")), "-c", LAUNCHER, nccl ? "nccl" : "gloo", master,
                        String.valueOf(settings.port() + roundIndex), String.valueOf(i), String.valueOf(nodes.size()),
                        String.valueOf(procs), String.valueOf(maxSize), String.valueOf(settings.budget()), String.valueOf(settings.timeout())));
                launches.add(new Round.Launch(nodes.get(i), argv));
            }
            return new Round.Gang(id, launches);
        }

        /** Every pair run so far (the fleet round is not a pair). */
        List<Measured> pairsMeasured(List<Round.Outcome> done) {
            List<Measured> measured = new ArrayList<>();
            for (Round.Outcome o : done) {
                if (o.round().name().equals(FLEET)) {
                    continue;
                }
                for (Round.Gang g : o.round().gangs()) {
                    List<Round.Answer> answers = o.answers().getOrDefault(g.id(), List.of());
                    Pair pair = new Pair(g.launches().get(0).host(), g.launches().get(1).host());
                    Map<String, String> problems = new LinkedHashMap<>();
                    OptionalDouble busbw = busbw(answers);
                    if (busbw.isEmpty()) {
                        answers.stream().filter(a -> a.status() != Round.Status.EXITED || a.result().exitCode() != 0)
                                .forEach(a -> problems.put(a.launch().host(), problem(a)));
                        if (problems.isEmpty()) {
                            problems.put(pair.first(), "no figure in its output");
                        }
                    }
                    measured.add(new Measured(pair, o.round().name(), busbw, problems));
                }
            }
            return measured;
        }

        /** The expected figure: expected_busbw, else the HCAs' line rate, else the median of rounds 1 and 2. */
        double expected(List<Measured> measured) {
            if (settings.expected().isPresent()) {
                return settings.expected().get();
            }
            OptionalDouble lineRate = hosts.stream().map(this::lineRate).flatMap(Optional::stream)
                    .mapToDouble(BusbwTable.Expectation::gbps).min();
            if (lineRate.isPresent() && hosts.stream().allMatch(h -> lineRate(h).isPresent())) {
                return lineRate.getAsDouble();
            }
            List<Double> figures = measured.stream().filter(m -> m.round().equals(ROUND_1) || m.round().equals(ROUND_2))
                    .filter(m -> m.busbw().isPresent()).map(m -> m.busbw().getAsDouble()).toList();
            return figures.isEmpty() ? 0 : Fleet.median(figures);
        }

        double floor(List<Measured> measured) {
            return expected(measured) * settings.minFraction();
        }

        String basis(List<Measured> measured) {
            if (settings.expected().isPresent()) {
                return "GB/s, expected_busbw";
            }
            Optional<BusbwTable.Expectation> line = hosts.stream().map(this::lineRate).flatMap(Optional::stream)
                    .min((a, b) -> Double.compare(a.gbps(), b.gbps()));
            if (line.isPresent() && hosts.stream().allMatch(h -> lineRate(h).isPresent())) {
                return "GB/s, " + line.get().basis();
            }
            return "GB/s, median of the pairs";
        }

        private Optional<BusbwTable.Expectation> lineRate(String host) {
            Map<String, Object> r = results.get(host);
            if (r.get("hca_count") instanceof Number n && r.get("hca_rate_gbps") instanceof Number rate) {
                return BusbwTable.acrossNodes(n.intValue(), rate.doubleValue());
            }
            return Optional.empty();
        }
    }
}
