package dev.provision.modules.spi;

import java.util.Collection;
import java.util.Optional;

/** "Did you mean" for mistyped names: the closest candidate by edit distance, if close enough. */
public final class Suggestions {
    private Suggestions() {
    }

    public static Optional<String> closest(String typed, Collection<String> candidates) {
        int limit = Math.max(2, typed.length() / 3);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(typed, c);
            if (d <= limit && d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
