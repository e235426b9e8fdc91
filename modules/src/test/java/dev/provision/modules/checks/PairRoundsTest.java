package dev.provision.modules.checks;

import static dev.provision.modules.checks.PairRounds.BISECTION;
import static dev.provision.modules.checks.PairRounds.ROUND_1;
import static dev.provision.modules.checks.PairRounds.ROUND_2;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.checks.PairRounds.Judgement;
import dev.provision.modules.checks.PairRounds.Measured;
import dev.provision.modules.checks.PairRounds.Pair;
import dev.provision.modules.checks.PairRounds.Standing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PairRoundsTest {
    private static final double FLOOR = 80;

    private static List<String> nodes(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(k -> String.format("n%d", k)).toList();
    }

    private static List<String> ids(List<Pair> pairs) {
        return pairs.stream().map(Pair::id).toList();
    }

    /** Runs the rounds as the check does: 1, 2, then bisections, each pair's figure from {@code fabric}. */
    private static List<Measured> run(List<String> hosts, BiFunction<String, String, OptionalDouble> fabric) {
        List<Measured> measured = new ArrayList<>();
        measure(measured, ROUND_1, PairRounds.disjoint(hosts), fabric);
        measure(measured, ROUND_2, PairRounds.shifted(hosts).stream()
                .filter(p -> measured.stream().noneMatch(m -> m.pair().sameNodes(p))).toList(), fabric);
        for (int b = 1; b <= PairRounds.MAX_BISECTIONS; b++) {
            List<Pair> next = PairRounds.bisection(hosts, measured, FLOOR);
            if (next.isEmpty()) {
                break;
            }
            measure(measured, BISECTION + " " + b, next, fabric);
        }
        return measured;
    }

    private static void measure(List<Measured> into, String round, List<Pair> pairs, BiFunction<String, String, OptionalDouble> fabric) {
        for (Pair p : pairs) {
            OptionalDouble v = fabric.apply(p.first(), p.second());
            into.add(new Measured(p, round, v, v.isPresent() ? Map.of() : Map.of(p.first(), "rendezvous timed out")));
        }
    }

    private static BiFunction<String, String, OptionalDouble> healthyExcept(Set<String> slowNodes, Set<String> slowLinks, Set<String> dead) {
        return (a, b) -> {
            if (dead.contains(a) || dead.contains(b)) {
                return OptionalDouble.empty();
            }
            boolean slow = slowNodes.contains(a) || slowNodes.contains(b) || slowLinks.contains(a + "+" + b) || slowLinks.contains(b + "+" + a);
            return OptionalDouble.of(slow ? 12 : 100);
        };
    }

    @Test
    void roundOnePairsNeighboursAndRoundTwoShiftsThemAroundTheRing() {
        assertEquals(List.of("n1+n2", "n3+n4", "n5+n6", "n7+n8"), ids(PairRounds.disjoint(nodes(8))));
        assertEquals(List.of("n2+n3", "n4+n5", "n6+n7", "n8+n1"), ids(PairRounds.shifted(nodes(8))));
    }

    @Test
    void anOddNodeOutOfRoundOneJoinsRoundTwo() {
        assertEquals(List.of("n1+n2", "n3+n4"), ids(PairRounds.disjoint(nodes(5))));
        assertEquals(List.of("n2+n3", "n4+n5"), ids(PairRounds.shifted(nodes(5))));
        assertEquals(List.of("n1+n2"), ids(PairRounds.disjoint(nodes(2))));
        assertEquals(List.of(), ids(PairRounds.shifted(nodes(2))), "two nodes have one pair");
    }

    @Test
    void aSlowNodeIsNamedAfterOneBisectionAndNoHealthyNodeIs() {
        List<String> hosts = nodes(8);
        List<Measured> measured = run(hosts, healthyExcept(Set.of("n3"), Set.of(), Set.of()));
        Judgement j = PairRounds.judge(hosts, measured, FLOOR);
        assertEquals(List.of("n3"), j.with(Standing.SLOW));
        assertEquals(List.of("n1", "n2", "n4", "n5", "n6", "n7", "n8"), j.with(Standing.FINE));
        assertEquals(List.of(), j.slowLinks());
        assertEquals(1, measured.stream().filter(m -> m.round().startsWith(BISECTION)).count(), "one referee pair: " + measured);
    }

    @Test
    void aSlowPathBetweenTwoNodesIsALinkNotANode() {
        List<String> hosts = nodes(8);
        List<Measured> measured = run(hosts, healthyExcept(Set.of("n3"), Set.of("n5+n6"), Set.of()));
        Judgement j = PairRounds.judge(hosts, measured, FLOOR);
        assertEquals(List.of("n3"), j.with(Standing.SLOW));
        assertEquals(List.of("n5+n6"), ids(j.slowLinks()));
        assertEquals(Standing.FINE, j.of("n5"));
        assertEquals(Standing.FINE, j.of("n6"));
    }

    @Test
    void aLinkSlowOnlyOnceIsMeasuredAgainAndCleared() {
        List<String> hosts = nodes(6);
        int[] calls = {0};
        List<Measured> measured = run(hosts, (a, b) -> OptionalDouble.of((a + "+" + b).equals("n2+n3") && calls[0]++ == 0 ? 10 : 100));
        Judgement j = PairRounds.judge(hosts, measured, FLOOR);
        assertEquals(List.of(), j.slowLinks());
        assertEquals(nodes(6), j.with(Standing.FINE));
        assertEquals(2, measured.stream().filter(m -> m.pair().id().equals("n2+n3")).count());
    }

    @Test
    void twoNeighbouringSlowNodesAreBothNamedWithinTheBisectionBudget() {
        List<String> hosts = nodes(8);
        Judgement j = PairRounds.judge(hosts, run(hosts, healthyExcept(Set.of("n3", "n4"), Set.of(), Set.of())), FLOOR);
        assertEquals(List.of("n3", "n4"), j.with(Standing.SLOW));
        assertEquals(6, j.with(Standing.FINE).size());
    }

    @Test
    void aNodeWhoseRankNeverJoinsIsAbsentAndItsPartnersStayFine() {
        List<String> hosts = nodes(8);
        Judgement j = PairRounds.judge(hosts, run(hosts, healthyExcept(Set.of(), Set.of(), Set.of("n7"))), FLOOR);
        assertEquals(List.of("n7"), j.with(Standing.ABSENT));
        assertEquals(7, j.with(Standing.FINE).size());
        assertEquals(List.of(), j.with(Standing.SLOW));
    }

    @Test
    void withTwoNodesASlowPairIsAmbiguous() {
        List<String> hosts = nodes(2);
        Judgement j = PairRounds.judge(hosts, run(hosts, healthyExcept(Set.of("n2"), Set.of(), Set.of())), FLOOR);
        assertEquals(List.of("n1", "n2"), j.with(Standing.SUSPECT));
        assertEquals(List.of(), j.with(Standing.SLOW));
    }

    @Test
    void anOddClusterNamesTheSlowEndNode() {
        List<String> hosts = nodes(5);
        Judgement j = PairRounds.judge(hosts, run(hosts, healthyExcept(Set.of("n5"), Set.of(), Set.of())), FLOOR);
        assertEquals(List.of("n5"), j.with(Standing.SLOW));
        assertEquals(4, j.with(Standing.FINE).size());
    }
}
