package dev.provision.modules.checks;

import static dev.provision.modules.checks.ChecksFixtures.assertVerdict;
import static dev.provision.modules.checks.ChecksFixtures.failed;
import static dev.provision.modules.checks.ChecksFixtures.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.CrossHostCheck.Findings;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Round;
import dev.provision.modules.spi.Verdict;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectiveCheckModuleTest {
    private static final String TORCH_CPU = "torch=1.13.1 dist=True gloo=True nccl=False\n";
    private final CollectiveCheckModule module = new CollectiveCheckModule();
    @TempDir
    Path controller;

    private Plan plan(FakeHost host, Map<String, Object> args, Map<String, Object> vars) throws Exception {
        FakeContext context = new FakeContext(host, controller);
        vars.forEach(context::variable);
        return module.plan(module.params().validate(args), context);
    }

    private static FakeHost node(String torch, String gpus) {
        return new FakeHost()
                .probe(NcclBandwidthCheckModule.COUNT_COMMAND, gpus.isEmpty() ? new ProbeResult(127, "", "nvidia-smi: not found") : new ProbeResult(0, gpus, ""))
                .probe(List.of("python3", "-c", CollectiveCheckModule.TORCH_PROBE), new ProbeResult(0, torch, ""));
    }

    /** Every node planned on its own, as the engine hands the results to the rounds. */
    private Map<String, Map<String, Object>> planned(int nodes, Map<String, Object> args) throws Exception {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        for (int k = 1; k <= nodes; k++) {
            Map<String, Object> vars = Map.of("ansible_host", "10.0.0." + k, "NCCL_SOCKET_IFNAME", "eth0", "NCCL_DEBUG", "WARN", "unrelated", "x");
            results.put("n" + k, plan(node(TORCH_CPU, ""), args, vars).result());
        }
        return results;
    }

    /** Runs the rounds as the engine does, each rank's output made by {@code fabric} from its gang. */
    private List<Round.Outcome> rounds(Map<String, Map<String, Object>> results, Function<Round.Gang, Optional<Double>> fabric) {
        List<Round.Outcome> done = new ArrayList<>();
        for (int n = 0; n < 8; n++) {
            Optional<Round> next = module.nextRound(results, done);
            if (next.isEmpty()) {
                break;
            }
            Map<String, List<Round.Answer>> answers = new LinkedHashMap<>();
            for (Round.Gang g : next.get().gangs()) {
                Optional<Double> busbw = fabric.apply(g);
                List<Round.Answer> gang = new ArrayList<>();
                for (int i = 0; i < g.launches().size(); i++) {
                    Round.Launch l = g.launches().get(i);
                    String out = busbw.isEmpty() ? "error=rendezvous at 10.0.0.1:29400 failed after at most 60s: Socket Timeout\n"
                            : i == 0 ? "# all_reduce bus bandwidth, world=2 backend=gloo nodes=2\nsize=67108864 time_us=1.0 algbw_GBps=1 busbw_GBps=1\nbusbw_gbps=" + busbw.get() + "\n" : "";
                    if (l.argv().contains("nccl")) {
                        // as NCCL 2.28 prints them (the H200 capture's format), one channel over the HCAs
                        out = "g:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\ng:1:1 [0] NCCL INFO Using network IB\n"
                                + "g:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0\n" + out;
                    }
                    gang.add(new Round.Answer(l, Round.Status.EXITED, new ProbeResult(busbw.isEmpty() ? 3 : 0, out, "")));
                }
                answers.put(g.id(), gang);
            }
            done.add(new Round.Outcome(next.get(), answers));
        }
        return done;
    }

    private static boolean has(Round.Gang g, String host) {
        return g.launches().stream().anyMatch(l -> l.host().equals(host));
    }

    private static CheckResult find(Findings f, String check) {
        return f.rows().stream().filter(r -> r.check().equals(check)).findFirst().orElseThrow(() -> new AssertionError(check + " in " + f.rows()));
    }

    @Test
    void aNodeWithoutPytorchFailsOnItsOwnAndTakesNoPart() throws Exception {
        FakeHost host = new FakeHost().probe(NcclBandwidthCheckModule.COUNT_COMMAND, new ProbeResult(127, "", ""))
                .probe(List.of("python3", "-c", CollectiveCheckModule.TORCH_PROBE), new ProbeResult(1, "", "ModuleNotFoundError: No module named 'torch'"));
        Plan plan = plan(host, Args.of(), Map.of());
        assertVerdict(plan, "collective.launcher", Verdict.FAIL);
        assertTrue(((String) row(plan, "collective.launcher").get("detail")).contains("No module named 'torch'"));
        assertEquals(false, plan.result().get("collective_ready"));
        assertTrue(plan.changes().isEmpty(), "a check changes nothing");
    }

    @Test
    void aCpuNodeTakesPartOverGlooWithItsAddressAndNcclVariables() throws Exception {
        Plan plan = plan(node(TORCH_CPU, ""), Args.of(), Map.of("ansible_host", "10.0.0.7", "NCCL_IB_HCA", "=mlx5_0", "NCCL_DEBUG", "WARN"));
        assertFalse(failed(plan));
        assertEquals("gloo", plan.result().get("collective_backend"));
        assertEquals("10.0.0.7", plan.result().get("collective_address"));
        assertEquals(Map.of("NCCL_IB_HCA", "=mlx5_0"), plan.result().get("collective_env"), "NCCL_DEBUG is provision's to set");
        assertEquals("torch 1.13.1 (gloo)", row(plan, "collective.launcher").get("measured"));
    }

    @Test
    void anAddressThatWouldBeReadAsAnOptionIsRefused() {
        assertThrows(ModuleException.class, () -> plan(node(TORCH_CPU, ""), Args.of("address", "--evil"), Map.of()));
        assertThrows(ModuleException.class, () -> plan(node(TORCH_CPU, ""), Args.of("min_fraction", 0.9, "warn_fraction", 0.8), Map.of()));
    }

    @Test
    void theRanksOfAPairStartWithTheRendezvousOnItsFirstNodeAndTheNodesVariables() throws Exception {
        Map<String, Map<String, Object>> results = planned(4, Args.of("port", 29500, "budget", 5, "timeout", 30));
        Round first = module.nextRound(results, List.of()).orElseThrow();
        assertEquals(List.of("n1+n2", "n3+n4"), first.gangs().stream().map(Round.Gang::id).toList());
        List<String> argv = first.gangs().get(1).launches().get(1).argv();
        assertEquals(List.of("env", "NCCL_SOCKET_IFNAME=eth0", "python3", "-c"), argv.subList(0, 4));
        assertEquals(CollectiveCheckModule.LAUNCHER, argv.get(4));
        assertEquals(List.of("gloo", "10.0.0.3", "29500", "1", "2", "1", String.valueOf(64L << 20), "5", "30"), argv.subList(5, argv.size()));
        assertEquals(2 * 30 + 5 + 60, first.deadline().toSeconds(), "rendezvous twice, the budget, python's start");
    }

    @Test
    void aSlowNodeIsNamedAndItsHealthyPartnersOnlyWarned() throws Exception {
        Map<String, Map<String, Object>> results = planned(8, Args.of());
        List<Round.Outcome> done = rounds(results, g -> Optional.of(has(g, "n3") ? 0.01 : 1.5));
        assertEquals(List.of(PairRounds.ROUND_1, PairRounds.ROUND_2, "bisection 1: suspects with cleared nodes", CollectiveCheckModule.FLEET),
                done.stream().map(o -> o.round().name()).toList());
        Map<String, Findings> found = module.conclude(results, done);
        assertEquals(Verdict.FAIL, find(found.get("n3"), "collective.node").verdict());
        assertTrue(find(found.get("n3"), "collective.node").detail().startsWith("slow with every partner"));
        for (String healthy : List.of("n1", "n2", "n4", "n5", "n6", "n7", "n8")) {
            assertEquals(Verdict.PASS, find(found.get(healthy), "collective.node").verdict(), healthy);
            assertTrue(found.get(healthy).rows().stream().noneMatch(r -> r.verdict() == Verdict.FAIL), healthy + ": " + found.get(healthy).rows());
        }
        assertEquals(Verdict.WARN, find(found.get("n2"), "collective.pair.n3").verdict());
        assertEquals(List.of("n3"), found.get("n1").values().get("collective_slow_nodes"));
        assertEquals(0.01, found.get("n1").values().get("collective_fleet_busbw_gbps"));
        assertEquals(1.5, found.get("n1").values().get("collective_expected_busbw_gbps"), "the median of the pairs");
        assertEquals(Verdict.WARN, find(found.get("n1"), "collective.fleet").verdict(), "bound by a named node");
    }

    @Test
    void aRankThatNeverJoinsIsNamedAndLeftOutOfTheFleetRound() throws Exception {
        Map<String, Map<String, Object>> results = planned(8, Args.of());
        List<Round.Outcome> done = rounds(results, g -> has(g, "n7") ? Optional.empty() : Optional.of(1.5));
        Map<String, Findings> found = module.conclude(results, done);
        CheckResult n7 = find(found.get("n7"), "collective.node");
        assertEquals("never joined", n7.measured());
        assertTrue(n7.detail().contains("Socket Timeout"), n7.detail());
        assertEquals(Verdict.WARN, find(found.get("n8"), "collective.pair.n7").verdict());
        Round.Outcome fleet = done.get(done.size() - 1);
        assertEquals(CollectiveCheckModule.FLEET, fleet.round().name());
        assertFalse(has(fleet.round().gangs().get(0), "n7"));
        assertEquals(Verdict.UNKNOWN, find(found.get("n7"), "collective.fleet").verdict());
        assertEquals(Verdict.PASS, find(found.get("n1"), "collective.fleet").verdict());
    }

    @Test
    void theFleetAllReduceHasItsOwnFraction() throws Exception {
        Map<String, Map<String, Object>> results = planned(4, Args.of("fleet_min_fraction", "0.2"));
        List<Round.Outcome> done = rounds(results, g -> Optional.of(g.launches().size() > 2 ? 0.5 : 1.5));
        assertEquals(Verdict.PASS, find(module.conclude(results, done).get("n1"), "collective.fleet").verdict(), "0.5 >= 0.2 x 1.5");
        Map<String, Map<String, Object>> strict = planned(4, Args.of("fleet_min_fraction", ""));
        assertEquals(Verdict.FAIL, find(module.conclude(strict, rounds(strict, g -> Optional.of(g.launches().size() > 2 ? 0.5 : 1.5)))
                .get("n1"), "collective.fleet").verdict(), "blank: min_fraction, 0.5 < 0.8 x 1.5");
    }

    @Test
    void anExpectedFigureReplacesTheMedian() throws Exception {
        Map<String, Map<String, Object>> results = planned(4, Args.of("expected_busbw", 10));
        Map<String, Findings> found = module.conclude(results, rounds(results, g -> Optional.of(1.5)));
        assertEquals(Verdict.FAIL, find(found.get("n1"), "collective.node").verdict(), "every pair at 15% of 10 GB/s");
        assertEquals(">= 8.00 GB/s (0.8 x 10.0 GB/s, expected_busbw)", find(found.get("n1"), "collective.pair.n2").expected());
    }

    @Test
    void oneNodeHasNobodyToTalkTo() throws Exception {
        Map<String, Map<String, Object>> results = planned(1, Args.of());
        assertTrue(module.nextRound(results, List.of()).isEmpty());
        assertEquals(Verdict.SKIP, find(module.conclude(results, List.of()).get("n1"), "collective.node").verdict());
    }

    /** sysfs of a node with two active 400 Gb/s HCAs and one down, in the {@link IbStatus#SYSFS_SCRIPT} format. */
    private static final String TWO_NDR_HCAS = """
            port=mlx5_0/1
            state=4: ACTIVE
            phys_state=5: LinkUp
            rate=400 Gb/sec (4X NDR)
            link_layer=InfiniBand
            port=mlx5_1/1
            state=4: ACTIVE
            phys_state=5: LinkUp
            rate=400 Gb/sec (4X NDR)
            link_layer=InfiniBand
            port=mlx5_2/1
            state=1: DOWN
            phys_state=3: Disabled
            rate=400 Gb/sec (4X NDR)
            link_layer=InfiniBand
            """;

    @Test
    void gpuNodesPairOverNcclWithTheRingOneRankPerGpuAndExpectTheirHcasLineRate() throws Exception {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        for (int k = 1; k <= 2; k++) {
            FakeHost host = node("torch=2.11.0+cu130 dist=True gloo=True nccl=True\n", "NVIDIA H200\nNVIDIA H200\n")
                    .probe(List.of("sh", "-c", IbStatus.SYSFS_SCRIPT), new ProbeResult(0, TWO_NDR_HCAS, ""));
            results.put("g" + k, plan(host, Args.of(), Map.of("ansible_host", "10.1.0." + k)).result());
        }
        assertEquals("nccl", results.get("g1").get("collective_backend"));
        assertEquals(2L, results.get("g1").get("hca_count"), "the HCA that is down does not count");
        List<String> argv = module.nextRound(results, List.of()).orElseThrow().gangs().get(0).launches().get(1).argv();
        assertTrue(argv.containsAll(List.of("NCCL_DEBUG=INFO", "NCCL_ALGO=Ring")), argv.toString());
        assertEquals(List.of("nccl", "10.1.0.1", "29400", "1", "2", "2", String.valueOf(4L << 30), "10", "60"), argv.subList(argv.size() - 9, argv.size()));
        Map<String, Findings> found = module.conclude(results, rounds(results, g -> Optional.of(85.0)));
        assertEquals(">= 72.0 GB/s (0.8 x 90.0 GB/s, 2 x 400 Gb/s HCAs: 100 GB/s line rate x 0.9)", find(found.get("g1"), "collective.pair.g2").expected());
        assertEquals(Verdict.PASS, find(found.get("g1"), "collective.pair.g2").verdict());
        assertEquals("2.28.9+cuda13.0", found.get("g2").values().get("nccl_version"));
        assertEquals("NET/IB/0", found.get("g2").values().get("nccl_transport"));
        assertEquals(64L << 20, found.get("g1").values().get("collective_size_bytes"));
    }
}
