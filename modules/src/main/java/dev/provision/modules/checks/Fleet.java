package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.CheckResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Comparisons across hosts, the part no single-node health checker does: the value most hosts
 * have (and who differs), and the hosts far below the fleet median. Pure functions over the hosts'
 * check results; used by the modules' {@link dev.provision.modules.spi.FleetCheck} step.
 */
final class Fleet {
    private Fleet() {
    }

    /**
     * One row per host: pass when its value equals the fleet's most common value, fail naming that
     * value otherwise. Hosts without a value are left out.
     */
    static Map<String, List<CheckResult>> sameEverywhere(String check, Map<String, Map<String, Object>> results,
                                                                 Function<Map<String, Object>, Optional<String>> value) {
        Map<String, String> byHost = new LinkedHashMap<>();
        results.forEach((host, r) -> value.apply(r).filter(v -> !v.isEmpty()).ifPresent(v -> byHost.put(host, v)));
        Map<String, List<CheckResult>> rows = new LinkedHashMap<>();
        if (byHost.isEmpty()) {
            return rows;
        }
        Map<String, Long> counts = byHost.values().stream().collect(Collectors.groupingBy(v -> v, LinkedHashMap::new, Collectors.counting()));
        String majority = counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        long agreeing = counts.get(majority);
        byHost.forEach((host, v) -> {
            boolean same = v.equals(majority);
            String detail = same ? agreeing + " of " + byHost.size() + " hosts agree"
                    : "differs from " + agreeing + " of " + byHost.size() + " hosts: bring it in line with them (cluster.yml on this node)";
            rows.put(host, List.of(CheckResult.of(same, check, v, majority + " (fleet)", detail)));
        });
        return rows;
    }

    /**
     * Fails hosts whose figure is below {@code fraction} of the fleet median (slow-node detection);
     * a failing row names every outlier (the first few), so one row read says how wide the fault is.
     */
    static Map<String, List<CheckResult>> notBelowMedian(String check, String unit, Map<String, Map<String, Object>> results,
                                                                 String key, double fraction) {
        return notBelowMedian(check, unit, results, key, fraction, Map.of());
    }

    /**
     * As {@link #notBelowMedian(String, String, Map, String, double)}, except that the hosts in
     * {@code notJudged} are never called outliers: their figure is too coarse to tell, so below the
     * floor their row is {@link Verdict#UNKNOWN} (the reason is its detail); it still counts for the median.
     */
    static Map<String, List<CheckResult>> notBelowMedian(String check, String unit, Map<String, Map<String, Object>> results,
                                                                 String key, double fraction, Map<String, String> notJudged) {
        Map<String, Double> byHost = numbers(results, key);
        Map<String, List<CheckResult>> rows = new LinkedHashMap<>();
        if (byHost.size() < 2) {
            return rows; // a fleet of one has no median to fall behind
        }
        double median = median(byHost.values());
        double floor = median * fraction;
        List<String> outliers = byHost.entrySet().stream().filter(e -> e.getValue() < floor && !notJudged.containsKey(e.getKey()))
                .map(Map.Entry::getKey).toList();
        String detail = "below the fleet median: " + outliers(outliers, byHost.size())
                + ": look at these nodes' other rows first, then drain the ones that stay slow";
        byHost.forEach((host, v) -> {
            String expected = String.format(Locale.ROOT, ">= %s %s (%.0f%% of fleet median %s)", shown(floor), unit, fraction * 100,
                    shown(median));
            CheckResult row = notJudged.containsKey(host) && v < floor
                    ? new CheckResult(check, shown(v) + " " + unit, expected, Verdict.UNKNOWN, "could not judge: " + notJudged.get(host))
                    : CheckResult.of(v >= floor, check, shown(v) + " " + unit, expected, detail);
            rows.put(host, List.of(row));
        });
        return rows;
    }

    /**
     * Fails hosts whose figure is far below the fleet: under median − {@value #MADS} × 1.4826 × MAD
     * (the median absolute deviation, scaled to a standard deviation for normal data: a few slow
     * hosts do not move it) and more than {@value #MIN_GAP_PERCENT} % below the median (a fleet
     * whose figures agree to the last digit would otherwise call noise an outlier). Needs three
     * hosts; {@code whereKey} names the part of the host that gave the figure (its slowest GPU).
     */
    static Map<String, List<CheckResult>> robustlyBelowMedian(String check, String unit, Map<String, Map<String, Object>> results,
                                                              String key, String whereKey) {
        Map<String, Double> byHost = numbers(results, key);
        Map<String, List<CheckResult>> rows = new LinkedHashMap<>();
        if (byHost.size() < 3) {
            return rows;
        }
        double median = median(byHost.values());
        double mad = median(byHost.values().stream().map(v -> Math.abs(v - median)).toList());
        double floor = Math.min(median - MADS * 1.4826 * mad, median * (1 - MIN_GAP_PERCENT / 100.0));
        List<String> outliers = byHost.entrySet().stream().filter(e -> e.getValue() < floor).map(Map.Entry::getKey).toList();
        String expected = String.format(Locale.ROOT, ">= %s %s (fleet median %s, MAD %s)", shown(floor), unit, shown(median), shown(mad));
        byHost.forEach((host, v) -> {
            String where = text(results.get(host), whereKey).map(w -> w + ": ").orElse("");
            rows.put(host, List.of(CheckResult.of(v >= floor, check, where + shown(v) + " " + unit, expected,
                    "far below the fleet: " + outliers(outliers, byHost.size()) + "; compare with its own baseline, then drain and"
                            + " reset that GPU")));
        });
        return rows;
    }

    private static final int MADS = 4;
    private static final int MIN_GAP_PERCENT = 10;

    /** {@code n3, n7 (2 of 64 hosts)}; past {@value #NAMED} names, {@code ... and 12 more}. */
    static String outliers(List<String> hosts, int of) {
        String names = String.join(", ", hosts.subList(0, Math.min(NAMED, hosts.size())))
                + (hosts.size() > NAMED ? " and " + (hosts.size() - NAMED) + " more" : "");
        return names + " (" + hosts.size() + " of " + of + " hosts)";
    }

    private static final int NAMED = 8;

    /** Whole figures without decimals (lanes, 480 GB/s), others with one. */
    private static String shown(double v) {
        return v == Math.rint(v) ? Probes.figure(v) : String.format(Locale.ROOT, "%.1f", v);
    }

    /** The rows of several fleet comparisons, per host in order. */
    @SafeVarargs
    static Map<String, List<CheckResult>> merge(Map<String, List<CheckResult>>... parts) {
        Map<String, List<CheckResult>> all = new LinkedHashMap<>();
        for (Map<String, List<CheckResult>> part : parts) {
            part.forEach((host, rows) -> all.computeIfAbsent(host, h -> new ArrayList<>()).addAll(rows));
        }
        return all;
    }

    /** Fails hosts whose figure is farther than {@code maxSpread}/2 from the fleet median (clock spread). */
    static Map<String, List<CheckResult>> withinSpread(String check, Map<String, Map<String, Object>> results,
                                                               String key, double maxSpread) {
        Map<String, Double> byHost = numbers(results, key);
        Map<String, List<CheckResult>> rows = new LinkedHashMap<>();
        if (byHost.size() < 2) {
            return rows;
        }
        double min = byHost.values().stream().min(Comparator.naturalOrder()).orElseThrow();
        double max = byHost.values().stream().max(Comparator.naturalOrder()).orElseThrow();
        double median = median(byHost.values());
        boolean spreadOk = max - min <= maxSpread;
        List<String> apart = byHost.entrySet().stream().filter(e -> !spreadOk && Math.abs(e.getValue() - median) > maxSpread / 2)
                .map(Map.Entry::getKey).toList();
        byHost.forEach((host, v) -> rows.put(host, List.of(CheckResult.of(!apart.contains(host), check,
                String.format(Locale.ROOT, "%+.3f s from median (spread %.3f s)", v - median, max - min),
                String.format(Locale.ROOT, "spread <= %s s", Probes.figure(maxSpread)),
                "clock apart from the fleet: " + outliers(apart, byHost.size()) + ": step it (chronyc makestep) and give every"
                        + " node the same time sources"))));
        return rows;
    }

    private static Map<String, Double> numbers(Map<String, Map<String, Object>> results, String key) {
        Map<String, Double> byHost = new LinkedHashMap<>();
        results.forEach((host, r) -> {
            if (r.get(key) instanceof Number n && !Double.isNaN(n.doubleValue())) {
                byHost.put(host, n.doubleValue());
            }
        });
        return byHost;
    }

    static double median(Collection<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** A result value as text, empty when absent. */
    static Optional<String> text(Map<String, Object> result, String key) {
        Object v = result.get(key);
        return v == null ? Optional.empty() : Optional.of(String.valueOf(v));
    }
}
