package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One round of a {@link CrossHostCheck}: gangs that all start at once, each a set of commands that
 * must run at the same time on their hosts (the two ranks of a pair), all ended by one deadline.
 * A host appears at most once in a round.
 *
 * @param name what the round is, for progress and results ({@code round 1: disjoint pairs})
 * @param gangs the groups of commands; their {@link Gang#id()}s are distinct
 * @param deadline how long any command of the round may run; the engine kills what runs past it
 */
public record Round(String name, List<Gang> gangs, Duration deadline) {
    public Round {
        requireNonNull(name, "name cannot be null");
        gangs = List.copyOf(gangs);
        requireNonNull(deadline, "deadline cannot be null");
        if (gangs.stream().map(Gang::id).distinct().count() != gangs.size()) {
            throw new IllegalArgumentException("gang ids must be distinct in " + name);
        }
        if (gangs.stream().flatMap(g -> g.launches().stream()).map(Launch::host).distinct().count()
                != gangs.stream().mapToLong(g -> g.launches().size()).sum()) {
            throw new IllegalArgumentException("a host appears twice in " + name);
        }
    }

    /**
     * Commands started together.
     *
     * @param id names the gang within its round ({@code node01+node02})
     */
    public record Gang(String id, List<Launch> launches) {
        public Gang {
            requireNonNull(id, "id cannot be null");
            launches = List.copyOf(launches);
        }
    }

    /** One command on one host: an argument vector, run without a shell, like a probe. */
    public record Launch(String host, List<String> argv) {
        public Launch {
            requireNonNull(host, "host cannot be null");
            argv = List.copyOf(argv);
        }
    }

    /** How one launch ended. */
    public enum Status {
        /** The command ran and exited (whatever its exit code). */
        EXITED,
        /** The command ran past the round's deadline and was killed. */
        TIMED_OUT,
        /** The host could not be reached to start or finish the command. */
        UNREACHABLE
    }

    /**
     * What one launch answered.
     *
     * @param result exit code and output; for a launch that did not exit, what was known (the exit
     *     code is then -1 and the stderr says why)
     */
    public record Answer(Launch launch, Status status, ProbeResult result) {
        public Answer {
            requireNonNull(launch, "launch cannot be null");
            requireNonNull(status, "status cannot be null");
            requireNonNull(result, "result cannot be null");
        }
    }

    /** A round run: its answers by gang id, each in the order of the gang's launches. */
    public record Outcome(Round round, Map<String, List<Answer>> answers) {
        public Outcome {
            requireNonNull(round, "round cannot be null");
            answers = Map.copyOf(answers);
        }
    }
}
