package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Which pairs of nodes a cross-node test runs, round by round, and what their figures say: the slow
 * node, the slow link, the node whose rank never joined. Pure functions over host names and figures.
 *
 * <p>Round 1 pairs neighbours (1-2, 3-4, ...), round 2 pairs them shifted by one (2-3, 4-5, ..., N-1
 * with an even N; with an odd N the node left out of round 1 joins round 2). A node whose every pair
 * was slow is a suspect. Bisection rounds (at most {@link #MAX_BISECTIONS}) pair each suspect with a
 * cleared referee (a node fine elsewhere) and measure each slow link again, with fewer pairs at once.
 * A suspect is slow once two different cleared partners were slow with it, one of them in a
 * bisection round; what stays unproven is named ambiguous. A pair of two cleared nodes that is slow
 * every time it runs is a slow link. The same reasoning, with "no figure" for "slow", finds a node whose rank
 * never joined.
 */
final class PairRounds {
    /** Extra rounds that pair suspects with cleared nodes. */
    static final int MAX_BISECTIONS = 2;
    static final String ROUND_1 = "round 1: neighbour pairs";
    static final String ROUND_2 = "round 2: shifted pairs";
    /** The start of a bisection round's name; its pairs run with fewer others at once. */
    static final String BISECTION = "bisection";

    private PairRounds() {
    }

    /** Two nodes; the first hosts the rendezvous. */
    record Pair(String first, String second) {
        Pair {
            requireNonNull(first, "first cannot be null");
            requireNonNull(second, "second cannot be null");
        }

        String id() {
            return first + "+" + second;
        }

        boolean has(String host) {
            return first.equals(host) || second.equals(host);
        }

        String partnerOf(String host) {
            return first.equals(host) ? second : first;
        }

        boolean sameNodes(Pair other) {
            return has(other.first) && has(other.second);
        }
    }

    /**
     * What one pair measured.
     *
     * @param busbw the bus bandwidth in GB/s; empty when the pair produced none
     * @param problems per node, why it gave no figure (empty when it did)
     */
    record Measured(Pair pair, String round, OptionalDouble busbw, Map<String, String> problems) {
        Measured {
            requireNonNull(pair, "pair cannot be null");
            requireNonNull(round, "round cannot be null");
            requireNonNull(busbw, "busbw cannot be null");
            problems = Map.copyOf(problems);
        }

        boolean slow(double floor) {
            return busbw.isPresent() && busbw.getAsDouble() < floor;
        }

        boolean fine(double floor) {
            return busbw.isPresent() && busbw.getAsDouble() >= floor;
        }

        boolean broken() {
            return busbw.isEmpty();
        }
    }

    /** Round 1: neighbours, 1-2, 3-4, ...; an odd node out waits for round 2. */
    static List<Pair> disjoint(List<String> hosts) {
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i + 1 < hosts.size(); i += 2) {
            pairs.add(new Pair(hosts.get(i), hosts.get(i + 1)));
        }
        return pairs;
    }

    /** Round 2: shifted by one, 2-3, 4-5, ..., and N-1 with an even N of at least 4. */
    static List<Pair> shifted(List<String> hosts) {
        List<Pair> pairs = new ArrayList<>();
        int n = hosts.size();
        for (int i = 1; i + 1 < n; i += 2) {
            pairs.add(new Pair(hosts.get(i), hosts.get(i + 1)));
        }
        if (n % 2 == 0 && n >= 4) {
            pairs.add(new Pair(hosts.get(n - 1), hosts.get(0)));
        }
        return pairs;
    }

    /** What a node is, after the pairs measured so far. */
    enum Standing {
        /** At or above the floor with at least one partner. */
        FINE,
        /** Slow with two or more partners that are fine elsewhere. */
        SLOW,
        /** Every pair without a figure, and a partner that is fine elsewhere: its rank never joined (or died). */
        ABSENT,
        /** Slow or absent in every pair, and too few cleared partners to prove it. */
        SUSPECT,
        /** In no pair. */
        UNTESTED
    }

    /** The verdict on every node and link from the pairs measured so far. */
    record Judgement(Map<String, Standing> nodes, List<Pair> slowLinks, List<Pair> brokenLinks) {
        Judgement {
            nodes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(nodes));
            slowLinks = List.copyOf(slowLinks);
            brokenLinks = List.copyOf(brokenLinks);
        }

        Standing of(String host) {
            return nodes.getOrDefault(host, Standing.UNTESTED);
        }

        List<String> with(Standing standing) {
            return nodes.entrySet().stream().filter(e -> e.getValue() == standing).map(Map.Entry::getKey).toList();
        }
    }

    static Judgement judge(List<String> hosts, List<Measured> measured, double floor) {
        Set<String> cleared = new LinkedHashSet<>();
        for (Measured m : measured) {
            if (m.fine(floor)) {
                cleared.add(m.pair().first());
                cleared.add(m.pair().second());
            }
        }
        Map<String, Standing> nodes = new LinkedHashMap<>();
        for (String host : hosts) {
            List<Measured> mine = measured.stream().filter(m -> m.pair().has(host)).toList();
            if (mine.isEmpty()) {
                nodes.put(host, Standing.UNTESTED);
            } else if (cleared.contains(host)) {
                nodes.put(host, Standing.FINE);
            } else if (mine.stream().allMatch(Measured::broken)) {
                boolean partnerFine = mine.stream().anyMatch(m -> cleared.contains(m.pair().partnerOf(host)));
                nodes.put(host, partnerFine ? Standing.ABSENT : Standing.SUSPECT);
            } else {
                long witnesses = mine.stream().filter(m -> m.slow(floor)).map(m -> m.pair().partnerOf(host))
                        .filter(cleared::contains).distinct().count();
                // proven on a pair of its own round too: rounds 1 and 2 load the fabric (and here the CPUs) with every pair at once
                boolean again = mine.stream().anyMatch(m -> m.slow(floor) && m.round().startsWith(BISECTION));
                nodes.put(host, witnesses >= 2 && again ? Standing.SLOW : Standing.SUSPECT);
            }
        }
        List<Pair> slowLinks = new ArrayList<>();
        List<Pair> brokenLinks = new ArrayList<>();
        for (Measured m : measured) {
            boolean bothFine = cleared.contains(m.pair().first()) && cleared.contains(m.pair().second());
            if (bothFine && m.slow(floor) && slowLinks.stream().noneMatch(p -> p.sameNodes(m.pair()))) {
                slowLinks.add(m.pair());
            } else if (bothFine && m.broken() && brokenLinks.stream().noneMatch(p -> p.sameNodes(m.pair()))) {
                brokenLinks.add(m.pair());
            }
        }
        // a link that was fine once (a later round) is not slow: the first figure was load, not the path
        slowLinks.removeIf(p -> measured.stream().anyMatch(m -> m.pair().sameNodes(p) && m.fine(floor)));
        brokenLinks.removeIf(p -> measured.stream().anyMatch(m -> m.pair().sameNodes(p) && !m.broken()));
        return new Judgement(nodes, slowLinks, brokenLinks);
    }

    /**
     * The next bisection round: each suspect with a cleared node it was not paired with yet, and each
     * slow link measured once again (a busy moment is not a bad cable); a node in one pair at most.
     * Empty when there is no suspect with a referee left and no link to measure again.
     */
    static List<Pair> bisection(List<String> hosts, List<Measured> measured, double floor) {
        Judgement j = judge(hosts, measured, floor);
        Set<String> busy = new LinkedHashSet<>();
        List<Pair> pairs = new ArrayList<>();
        for (Pair link : j.slowLinks()) {
            long times = measured.stream().filter(m -> m.pair().sameNodes(link)).count();
            if (times == 1 && !busy.contains(link.first()) && !busy.contains(link.second())) {
                pairs.add(link);
                busy.add(link.first());
                busy.add(link.second());
            }
        }
        List<String> referees = new ArrayList<>(j.with(Standing.FINE));
        referees.removeIf(r -> busy.contains(r) || j.slowLinks().stream().anyMatch(p -> p.has(r)));
        for (String suspect : j.with(Standing.SUSPECT)) {
            Optional<String> referee = referees.stream()
                    .filter(r -> measured.stream().noneMatch(m -> m.pair().has(r) && m.pair().has(suspect)))
                    .findFirst();
            if (referee.isPresent()) {
                referees.remove(referee.get());
                pairs.add(new Pair(referee.get(), suspect));
            }
        }
        return pairs;
    }
}
