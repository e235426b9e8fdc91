package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/** An evaluation passed one of its {@link Limits}; the message says which, for the user. */
final class LimitExceeded extends Exception {
    LimitExceeded(String problem) {
        super(requireNonNull(problem, "problem cannot be null"));
    }

    static LimitExceeded recursion() {
        return new LimitExceeded("recursion too deep (a macro, function or ?eval that calls itself without end?)");
    }

    static LimitExceeded memory(Limits limits) {
        return new LimitExceeded("allocates more than " + bytes(limits.allocatedBytes())
                + " of memory (a loop that runs too long, a string or list that keeps growing, a huge ?left_pad?)");
    }

    static LimitExceeded output(Limits limits) {
        return new LimitExceeded("produces more than " + characters(limits.outputChars()) + " of text");
    }

    static LimitExceeded cpuTime(Limits limits) {
        return new LimitExceeded("takes more than " + time(limits.cpuTime())
                + " of CPU time (an endless #list, or a loop over a huge range?)");
    }

    private static String time(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    static String bytes(long n) {
        return n % (1 << 30) == 0 ? (n >> 30) + " GiB" : n % (1 << 20) == 0 ? (n >> 20) + " MiB" : n + " bytes";
    }

    static String characters(long n) {
        return n % (1 << 20) == 0 ? (n >> 20) + " Mi characters" : n + " characters";
    }
}
