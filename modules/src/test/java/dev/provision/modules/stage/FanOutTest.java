package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.CrossHostTransfer;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Round;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who fetches from whom: the plans' results and the rounds so far in, the next round out. */
class FanOutTest {
    private static final FanOut.Settings SETTINGS = new FanOut.Settings("/shared/set", "/nvme/set", "root", "/root/.ssh/id_ed25519",
            "/etc/ssh/ssh_known_hosts", 4, "tree", 1, 10, 3600);
    private static final FanOut.Settings CHAIN = new FanOut.Settings("/shared/set", "/nvme/set", "root", "/root/.ssh/id_ed25519",
            "/etc/ssh/ssh_known_hosts", 4, "chain", 1, 10, 3600);
    private static final String VERIFIED = "got\ta\nverified\t1\t3\tROOT\n";

    private static Map<String, Map<String, Object>> nodes(int n, String... complete) {
        return nodes(SETTINGS, n, complete);
    }

    private static Map<String, Map<String, Object>> nodes(FanOut.Settings settings, int n, String... complete) {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        for (int k = 1; k <= n; k++) {
            String host = "node0" + k;
            results.put(host, Map.of(FanOut.RESULT_KEY, FanOut.toResult("10.0.0." + k, List.of(complete).contains(host) ? "ROOT" : "", settings)));
        }
        return results;
    }

    /** Pairs {@code receiver<-donor} of a round. */
    private static List<String> pairs(Optional<Round> round) {
        return round.orElseThrow().gangs().stream().map(Round.Gang::id).toList();
    }

    /** The round run, each launch answering {@code answer(host)}. */
    private static Round.Outcome ran(Round round, Map<String, Round.Answer> special) {
        Map<String, List<Round.Answer>> answers = new LinkedHashMap<>();
        for (Round.Gang g : round.gangs()) {
            Round.Launch l = g.launches().get(0);
            answers.put(g.id(), List.of(special.getOrDefault(l.host(), new Round.Answer(l, Round.Status.EXITED,
                    new ProbeResult(0, VERIFIED, "")))));
        }
        return new Round.Outcome(round, answers);
    }

    private static FanOut fanOut(Map<String, Map<String, Object>> results, List<Round.Outcome> done) {
        return new FanOut(FanOut.nodes(results), done, "PULL");
    }

    @Test
    void oneNodeReadsTheSourceThenHoldersDoubleEachRound() {
        Map<String, Map<String, Object>> results = nodes(5);
        List<Round.Outcome> done = new ArrayList<>();
        List<List<String>> rounds = new ArrayList<>();
        for (Optional<Round> next = fanOut(results, done).nextRound(); next.isPresent(); next = fanOut(results, done).nextRound()) {
            rounds.add(pairs(next));
            done.add(ran(next.get(), Map.of()));
        }

        assertEquals(List.of(List.of("node01<-source"), List.of("node02<-node01"), List.of("node03<-node01", "node04<-node02"),
                List.of("node05<-node01")), rounds);
    }

    @Test
    void theSourceLaunchCopiesFromTheSharedPathAndAPeerLaunchFromTheDonorsAddress() {
        Round first = fanOut(nodes(2), List.of()).nextRound().orElseThrow();
        assertEquals(List.of("sh", "-c", "PULL", "sh", "/nvme/set", "source", "/shared/set", "/root/.ssh/id_ed25519",
                "/etc/ssh/ssh_known_hosts", "4", "10", "none"), first.gangs().get(0).launches().get(0).argv());

        Round second = fanOut(nodes(2), List.of(ran(first, Map.of()))).nextRound().orElseThrow();
        assertEquals("node02", second.gangs().get(0).launches().get(0).host());
        assertEquals(List.of("peer", "root@10.0.0.1"), second.gangs().get(0).launches().get(0).argv().subList(5, 7));
    }

    @Test
    void nodesAlreadyHoldingTheSetServeFromTheFirstRoundAndTheSourceIsNotRead() {
        assertEquals(List.of("node01<-node02", "node03<-node04"), pairs(fanOut(nodes(4, "node02", "node04"), List.of()).nextRound()));
        assertEquals(Optional.empty(), fanOut(nodes(2, "node01", "node02"), List.of()).nextRound());
    }

    @Test
    void aDonorThatCannotBeReachedServesNobodyAfterAndItsReceiverFetchesElsewhere() {
        Map<String, Map<String, Object>> results = nodes(4, "node01", "node02");
        Round first = fanOut(results, List.of()).nextRound().orElseThrow();
        assertEquals(List.of("node03<-node01", "node04<-node02"), pairs(Optional.of(first)));
        Round.Launch node03 = first.gangs().get(0).launches().get(0);
        Round.Outcome lost = ran(first, Map.of("node03", new Round.Answer(node03, Round.Status.EXITED,
                new ProbeResult(4, "rsync\t255\n", "ssh: connect to host 10.0.0.1 port 22: Connection refused"))));

        assertEquals(List.of("node03<-node02"), pairs(fanOut(results, List.of(lost)).nextRound()));
    }

    @Test
    void aNodeIsGivenUpAfterThreeFailedFetchesAndConcludedFailedWithTheLastReason() {
        Map<String, Map<String, Object>> results = nodes(2, "node01");
        List<Round.Outcome> done = new ArrayList<>();
        for (int i = 0; i < FanOut.ATTEMPTS; i++) {
            Round r = fanOut(results, done).nextRound().orElseThrow();
            Round.Launch l = r.gangs().get(0).launches().get(0);
            done.add(ran(r, Map.of("node02", new Round.Answer(l, Round.Status.EXITED, new ProbeResult(5, "bad\tweights.bin\n", "")))));
        }

        assertEquals(Optional.empty(), fanOut(results, done).nextRound());
        CrossHostTransfer.HostOutcome outcome = fanOut(results, done).conclude().get("node02");
        assertEquals(Optional.of("fetch from node01 exited 5: bad weights.bin"), outcome.failure());
    }

    @Test
    void anUnreachableReceiverIsNotAskedAgain() {
        Map<String, Map<String, Object>> results = nodes(3, "node01");
        Round r = fanOut(results, List.of()).nextRound().orElseThrow();
        Round.Launch l = r.gangs().get(0).launches().get(0);
        Round.Outcome outcome = ran(r, Map.of("node02", new Round.Answer(l, Round.Status.UNREACHABLE, new ProbeResult(-1, "", "gone"))));

        assertEquals(List.of("node03<-node01"), pairs(fanOut(results, List.of(outcome)).nextRound()));
    }

    @Test
    void concludeNamesWhatEachNodeReceivedFromWhomAndItsVerifiedRoot() {
        Map<String, Map<String, Object>> results = nodes(2);
        Round r = fanOut(results, List.of()).nextRound().orElseThrow();

        Map<String, CrossHostTransfer.HostOutcome> out = fanOut(results, List.of(ran(r, Map.of()))).conclude();

        assertEquals(Optional.empty(), out.get("node01").failure());
        assertEquals(List.of("a"), out.get("node01").values().get("received"));
        assertEquals(List.of("source"), out.get("node01").values().get("fetched_from"));
        assertEquals("ROOT", out.get("node01").values().get("verified_root_hash"));
        assertTrue(out.get("node02").failure().orElseThrow().contains("no node could give it the data"));
    }

    @Test
    void aVerifiedRootOtherThanTheHoldersFailsTheNode() {
        Map<String, Map<String, Object>> results = nodes(2, "node01");
        Round r = fanOut(results, List.of()).nextRound().orElseThrow();
        Round.Launch l = r.gangs().get(0).launches().get(0);
        Round.Outcome o = ran(r, Map.of("node02", new Round.Answer(l, Round.Status.EXITED, new ProbeResult(0, "verified\t1\t3\tOTHER\n", ""))));

        assertEquals(Optional.of("verified root hash OTHER is not the source's ROOT"), fanOut(results, List.of(o)).conclude().get("node02").failure());
    }

    @Test
    void withoutAHolderTheReadersManifestSetsTheRootAndTheChainThatVerifiedItHoldsTheSet() {
        Map<String, Map<String, Object>> results = nodes(CHAIN, 3);
        Round chain = fanOut(results, List.of()).nextRound().orElseThrow();
        Round.Answer other = new Round.Answer(chain.gangs().get(2).launches().get(0), Round.Status.EXITED,
                new ProbeResult(0, "got\ta\nverified\t1\t3\tOTHER\n", ""));
        List<Round.Outcome> done = List.of(ran(chain, Map.of("node03", other)));

        Map<String, CrossHostTransfer.HostOutcome> out = fanOut(results, done).conclude();
        assertEquals("ROOT", out.get("node01").values().get("root_hash"), "the plan could not know it: the run reports it");
        assertEquals(Optional.empty(), out.get("node02").failure());
        assertEquals(Optional.of("verified root hash OTHER is not the source's ROOT"), out.get("node03").failure());
        assertEquals(List.of("node03<-node01"), pairs(fanOut(results, done).nextRound()), "node03 is no holder: it fetches again");
    }

    @Test
    void theSourceReadersRootCountsWhateverOrderTheAnswersCameIn() {
        Map<String, Map<String, Object>> results = nodes(CHAIN, 3);
        Round chain = fanOut(results, List.of()).nextRound().orElseThrow();
        Map<String, List<Round.Answer>> reversed = new LinkedHashMap<>();
        List<Round.Gang> gangs = new ArrayList<>(chain.gangs());
        Collections.reverse(gangs);
        for (Round.Gang g : gangs) {
            Round.Launch l = g.launches().get(0);
            String verified = l.host().equals("node01") ? VERIFIED : "got\ta\nverified\t1\t3\tOTHER\n";
            reversed.put(g.id(), List.of(new Round.Answer(l, Round.Status.EXITED, new ProbeResult(0, verified, ""))));
        }

        Map<String, CrossHostTransfer.HostOutcome> out = fanOut(results, List.of(new Round.Outcome(chain, reversed))).conclude();

        assertEquals("ROOT", out.get("node01").values().get("root_hash"));
        assertEquals(Optional.of("verified root hash OTHER is not the source's ROOT"), out.get("node03").failure());
    }

    @Test
    void aReadThatFoundTheSourceChangedEndsTheReadsOfTheRun() {
        Map<String, Map<String, Object>> results = nodes(2);
        Round r = fanOut(results, List.of()).nextRound().orElseThrow();
        Round.Launch l = r.gangs().get(0).launches().get(0);
        List<Round.Outcome> done = List.of(ran(r, Map.of("node01", new Round.Answer(l, Round.Status.EXITED,
                new ProbeResult(4, "changed\tweights.bin\n", "")))));

        assertEquals(Optional.empty(), fanOut(results, done).nextRound());
        assertEquals(Optional.of("fetch from the source exited 4: changed weights.bin"), fanOut(results, done).conclude().get("node01").failure());
    }

    @Test
    void aNodeWhoseRecordVouchesForAnotherRootFailsAndServesNobody() {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>(nodes(3, "node01"));
        results.put("node02", Map.of(FanOut.RESULT_KEY, FanOut.toResult("10.0.0.2", "OTHER", SETTINGS)));

        assertEquals(List.of("node03<-node01"), pairs(fanOut(results, List.of()).nextRound()));
        String why = fanOut(results, List.of()).conclude().get("node02").failure().orElseThrow();
        assertTrue(why.startsWith("its record vouches for root hash OTHER where node01's vouches for ROOT"), why);
    }

    @Test
    void aChainStartsEveryNodeAtOnceEachReadingFromTheOneBeforeAndTheLastPassesNothingOn() {
        Round first = fanOut(nodes(CHAIN, 3), List.of()).nextRound().orElseThrow();
        assertEquals(List.of("node01<-source", "node02<-node01", "node03<-node02"), pairs(Optional.of(first)));
        List<List<String>> tails = first.gangs().stream().map(g -> g.launches().get(0).argv())
                .map(a -> List.of(a.get(5), a.get(6), a.get(a.size() - 1))).toList();
        assertEquals(List.of(List.of("chain-source", "/shared/set", "next"), List.of("chain", "root@10.0.0.1", "next"),
                List.of("chain", "root@10.0.0.2", "none")), tails);
    }

    @Test
    void aNodeTheChainLeftShortFetchesFromAHolderInTheNextRound() {
        Map<String, Map<String, Object>> results = nodes(CHAIN, 4);
        Round chain = fanOut(results, List.of()).nextRound().orElseThrow();
        // node03's predecessor went away mid-stream: it lacks files; node04 after it too
        Round.Answer shortOf = new Round.Answer(chain.gangs().get(2).launches().get(0), Round.Status.EXITED,
                new ProbeResult(5, "missing\tb\n", ""));
        Round.Answer shortToo = new Round.Answer(chain.gangs().get(3).launches().get(0), Round.Status.EXITED,
                new ProbeResult(5, "missing\tb\n", ""));
        List<Round.Outcome> done = List.of(ran(chain, Map.of("node03", shortOf, "node04", shortToo)));
        assertEquals(List.of("node03<-node01", "node04<-node02"), pairs(fanOut(results, done).nextRound()));
    }

    @Test
    void nodesAlreadyHoldingTheSetServeThoughTheChainIsAsked() {
        assertEquals(List.of("node01<-node02", "node03<-node04"), pairs(fanOut(nodes(CHAIN, 4, "node02", "node04"), List.of()).nextRound()));
    }

    private static final FanOut.Settings FROM_CONTROLLER = new FanOut.Settings("/home/op/set", "controller", "", "/nvme/set", "root",
            "/root/.ssh/id_ed25519", "/etc/ssh/ssh_known_hosts", 4, "chain", 1, 10, 3600);

    @Test
    void aControllerSourceFeedsTheFirstNodeOfTheChainOneTarOfWhatTheChainLacks() {
        Map<String, Map<String, Object>> results = new LinkedHashMap<>();
        results.put("node01", Map.of(FanOut.RESULT_KEY, FanOut.toResult("10.0.0.1", "", FROM_CONTROLLER, List.of("b", "a"))));
        results.put("node02", Map.of(FanOut.RESULT_KEY, FanOut.toResult("10.0.0.2", "", FROM_CONTROLLER, List.of("c", "a"))));

        Round first = fanOut(results, List.of()).nextRound().orElseThrow();

        assertEquals(List.of("node01<-controller", "node02<-node01"), pairs(Optional.of(first)));
        assertTrue(first.name().endsWith("2 fetching in a chain from the controller"), first.name());
        Round.Launch fed = first.gangs().get(0).launches().get(0);
        assertEquals(List.of("feed", "-"), fed.argv().subList(5, 7));
        assertEquals("next", fed.argv().get(fed.argv().size() - 1));
        assertEquals(FanOut.controllerFeedArgv("/home/op/set"), fed.feed().argv());
        assertEquals("a\nb\nc\n", fed.feed().input(), "the union of what the chain lacks, once each, in path order");
        assertTrue(!first.gangs().get(1).launches().get(0).feed().present(), "the rest of the chain reads from the node before");
        assertEquals(List.of("sh", "-c", "PROGRESS", "sh", "/nvme/set"), new FanOut(FanOut.nodes(results), List.of(), "PULL",
                dest -> List.of("sh", "-c", "PROGRESS", "sh", dest)).nextRound().orElseThrow().gangs().get(1).launches().get(0).progress());

        Map<String, CrossHostTransfer.HostOutcome> out = fanOut(results, List.of(ran(first, Map.of()))).conclude();
        assertEquals(List.of("controller"), out.get("node01").values().get("fetched_from"));
        assertTrue(out.get("node01").message().contains("from the controller"));
    }

    @Test
    void aControllerFeedTakesItsNamesOnStandardInputAndTheSourceAsAPositionalParameter() {
        List<String> argv = FanOut.controllerFeedArgv("/home/op/set");
        assertEquals(List.of("sh", "-c"), argv.subList(0, 2));
        assertEquals(List.of("sh", "/home/op/set"), argv.subList(3, 5));
    }

    private static final FanOut.Settings FROM_NODE = new FanOut.Settings("/local/set", "node", "node03", "/nvme/set", "root",
            "/root/.ssh/id_ed25519", "/etc/ssh/ssh_known_hosts", 4, "chain", 1, 10, 3600);

    @Test
    void aNodeSourceIsTheFirstOfTheChainReadingItsOwnDirectory() {
        Round first = fanOut(nodes(FROM_NODE, 4), List.of()).nextRound().orElseThrow();

        assertEquals(List.of("node03<-source", "node01<-node03", "node02<-node01", "node04<-node02"), pairs(Optional.of(first)));
        assertEquals(List.of("chain-source", "/local/set"), first.gangs().get(0).launches().get(0).argv().subList(5, 7));
        assertTrue(first.name().endsWith("in a chain from node03"), first.name());
    }

    @Test
    void aNodeSourceInATreeIsReadByItsNodeOnly() {
        FanOut.Settings tree = new FanOut.Settings("/local/set", "node", "node02", "/nvme/set", "root", "/root/.ssh/id_ed25519",
                "/etc/ssh/ssh_known_hosts", 4, "tree", 1, 10, 3600);
        assertEquals(List.of("node02<-source"), pairs(fanOut(nodes(tree, 3), List.of()).nextRound()));
        // the source node already holds the verified set: it serves like any holder, its source not read
        assertEquals(List.of("node01<-node03"), pairs(fanOut(nodes(FROM_NODE, 3, "node03"), List.of()).nextRound()));
    }

    @Test
    void aNodeSourceThatDidNotPlanStartsNothingAndEveryNodeSaysWhy() {
        Map<String, Map<String, Object>> results = nodes(FROM_NODE, 2); // node03 is not among them

        assertEquals(Optional.empty(), fanOut(results, List.of()).nextRound());
        String why = fanOut(results, List.of()).conclude().get("node01").failure().orElseThrow();
        assertTrue(why.startsWith("the source node node03 did not plan this task"), why);
    }
}
