package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
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

    /**
     * One command on one host: an argument vector, run without a shell, like a probe.
     *
     * @param feed what the controller streams into the command's standard input; {@link Feed#NONE}
     *     for nothing (the command's input is then empty)
     * @param progress a read-only command the engine may run on the same host, again and again while
     *     the launch runs, that prints {@code BYTES FILES}: how much the launch received so far (it
     *     must be cheap: it runs every few seconds); empty for none
     */
    public record Launch(String host, List<String> argv, Feed feed, List<String> progress) {
        public Launch {
            requireNonNull(host, "host cannot be null");
            argv = List.copyOf(argv);
            requireNonNull(feed, "feed cannot be null");
            progress = List.copyOf(progress);
        }

        public Launch(String host, List<String> argv) {
            this(host, argv, Feed.NONE, List.of());
        }

        public Launch withFeed(Feed input) {
            return new Launch(host, argv, input, progress);
        }

        public Launch withProgress(List<String> probe) {
            return new Launch(host, argv, feed, probe);
        }
    }

    /**
     * A command the engine runs on the controller (without a shell, as the user running provision)
     * whose standard output it streams into a launch's standard input over the connection it holds
     * to the launch's host: the controller as the source of a transfer. The engine ends it when the
     * launch ends; what it wrote on standard error and its exit status, when not 0, are added to the
     * launch's answer (standard error, after the host's).
     *
     * @param argv the command; empty only for {@link #NONE}
     * @param input what the command reads on its standard input (a list of names), may be empty
     */
    public record Feed(List<String> argv, String input) {
        public static final Feed NONE = new Feed(List.of(), "");

        public Feed {
            argv = List.copyOf(argv);
            requireNonNull(input, "input cannot be null");
        }

        public boolean present() {
            return !argv.isEmpty();
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

    /**
     * A round run: its answers by gang id, in the round's order of gangs (the first verified fetch
     * sets the root hash, so the source reader's must come first), each in the order of the gang's
     * launches.
     */
    public record Outcome(Round round, Map<String, List<Answer>> answers) {
        public Outcome {
            requireNonNull(round, "round cannot be null");
            Map<String, List<Answer>> ordered = new LinkedHashMap<>();
            for (Gang g : round.gangs()) {
                if (answers.containsKey(g.id())) {
                    ordered.put(g.id(), List.copyOf(answers.get(g.id())));
                }
            }
            for (Map.Entry<String, List<Answer>> e : answers.entrySet()) {
                ordered.putIfAbsent(e.getKey(), List.copyOf(e.getValue()));
            }
            answers = Collections.unmodifiableMap(ordered);
        }
    }
}
