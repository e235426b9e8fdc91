package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ExecTarget;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one host's next tasks will read, read in one exchange before the first of them plans: on a
 * converged host a run of tasks costs one round trip instead of one each.
 *
 * <p>How the reads are known: each task is planned ahead of its turn ({@link ReadAheadPlanner#readAhead})
 * over a connection that answers what was read already and notes every other read (and ends that
 * plan); the notes of all the tasks go to the host in one exchange ({@link ProbeBatch#runLines}),
 * twice at most (a module that reads a path it learnt from a first read). Modules plan from their
 * parameters and what they read only, so the reads are the ones the task will ask in its turn.
 *
 * <p>When the answers hold: the host runs these tasks on its own ({@link RunAheadStrategy}: no other
 * host's task reaches it meanwhile), so they hold until one of them changes the host; then they are
 * all dropped ({@link #invalidate}), as before a retry of {@code until}. They are kept per connection
 * and environment: what root reads is not what another user would. A task planned ahead sees the
 * variables it will see in its turn, since tasks are planned ahead only up to the first one that can
 * set variables ({@code register}, {@link dev.provision.modules.spi.TaskModule#setsVariables}).
 */
final class ReadAhead {
    /** The most tasks planned ahead at once. */
    static final int WINDOW = 32;
    /** How many tasks the first reading ahead of a host covers. */
    static final int FIRST_WINDOW = 8;
    /** The most items of one loop planned ahead. */
    static final int MAX_ITEMS = 64;
    /** The most exchanges one reading ahead takes (each a level of reads: a path, then what it names). */
    static final int ROUNDS = 2;
    /**
     * How many tasks a write reads for ({@link #readingAfter}): on a converging host the next task
     * mostly writes too, and what was read for the ones after it would be dropped.
     */
    static final int AFTER_A_WRITE = 1;

    /** What the tasks after the one running read first, through a connection of {@code key}. */
    @FunctionalInterface
    interface Following {
        List<String> reads(ExecTarget key);
    }

    /** The reads of the tasks after the one running; null where none are known (a handler, one task alone). */
    private Following following;

    /** Whose answers they are: the host's connection (identity), as which user, with which variables. */
    private ExecTarget key;
    private final Map<String, ExecResult> answers = new HashMap<>();
    /**
     * How many tasks the next reading ahead covers: after a task that changed the host only its own
     * (what a converging host reads ahead is mostly dropped by its next change), doubled after each
     * task that changed nothing, up to {@link #WINDOW}.
     */
    private int window = FIRST_WINDOW;
    /** The tasks before this one were planned ahead already. */
    private int plannedUntil;
    /** Whether a task since the last {@link #ran} invalidated what was read. */
    private boolean changed;
    /** The exchanges read ahead, given to the report's {@code round_trips} of the task that asked for them. */
    final AtomicInteger exchanges = new AtomicInteger();
    /** Whether the reads noted now may claim a path's first content ({@link #claimFirstRead}). */
    private boolean claiming;
    /** The first contents claimed for the next exchange, by the command line that reads each. */
    private final List<Claimed> claims = new java.util.ArrayList<>();

    private record Claimed(SharedContents.Claim claim, String line) {
    }

    /**
     * Plans made ahead that their turn may take as they are ({@link #keep}), by task and item: a plan
     * is what its arguments and its reads make it, and while neither changes, planning it again at
     * its turn would only make it again (in a converged run, once more per task and host).
     */
    private final Map<Made, Kept> kept = new HashMap<>();

    /** A task (its step: the very object) and an item of its loop. */
    private record Made(TaskStep step, int item) {
    }

    /** A plan kept, and the forecast it was planned against (a dry run's; null: none) as it was then. */
    private record Kept(Params params, Plan plan, Forecast forecast, int version) {
    }

    /** Whether task {@code task} and those after it are to be planned ahead now. */
    boolean wantsReading(int task) {
        return task >= plannedUntil;
    }

    /** How many tasks to plan ahead. */
    int window() {
        return window;
    }

    /** The tasks before {@code end} were planned ahead. */
    void planned(int end) {
        plannedUntil = end;
    }

    /** A task of the host ended: the next reading ahead covers one task after a change, else twice as many. */
    void ran() {
        window = changed ? 1 : Math.min(WINDOW, window * 2);
        changed = false;
    }

    /** The host is about to change (or must be read afresh): nothing read ahead holds any more. */
    void invalidate() {
        answers.clear();
        kept.clear();
        key = null;
        plannedUntil = 0;
        changed = true;
    }

    /** The exchanges read ahead since the last call. */
    int takeExchanges() {
        return exchanges.getAndSet(0);
    }

    /** Time spent reading ahead, given to the report's duration of the task that asked for it. */
    private long nanos;

    void spent(long nanos) {
        this.nanos += nanos;
    }

    /** The time spent reading ahead since the last call. */
    java.time.Duration takeTime() {
        java.time.Duration d = java.time.Duration.ofNanos(nanos);
        nanos = 0;
        return d;
    }

    /** The answer read ahead to {@code request} through a connection of {@code key}; empty when none. */
    Optional<ExecResult> answer(ExecTarget key, ExecRequest request) {
        if (!key.equals(this.key) || !alone(request)) {
            return Optional.empty();
        }
        return Optional.ofNullable(answers.get(request.commandLine()));
    }

    /**
     * Keeps {@code plan}, which item {@code item} of {@code step}'s task made ahead with
     * {@code params} from what was read through a connection of {@code key} and, in a dry run, from
     * {@code forecast} (null: none) alone: no variable, no template, no read refused (see
     * {@link ReadAheadPlanner}). Dropped as soon as the answers are.
     */
    void keep(TaskStep step, int item, Params params, ExecTarget key, Forecast forecast, Plan plan) {
        if (key.equals(this.key)) {
            kept.put(new Made(step, item), new Kept(params, plan, forecast, forecast == null ? 0 : forecast.version()));
        }
    }

    /**
     * The plan kept for item {@code item} of {@code step}'s task ({@link #keep}), where its turn plans
     * it with equal arguments through a connection of {@code key}, against the same forecast as it
     * was then (null: none): what planning it again would make. Taken once.
     */
    Optional<Plan> takeKept(TaskStep step, int item, Params params, ExecTarget key, Forecast forecast) {
        Kept k = kept.remove(new Made(step, item));
        boolean holds = k != null && key.equals(this.key) && k.forecast() == forecast
                && (forecast == null || forecast.version() == k.version()) && step.sameArguments(k.params(), params);
        return holds ? Optional.of(k.plan()) : Optional.empty();
    }

    /** Whether {@code request} reads nothing but its command line, so that it can join others. */
    private static boolean alone(ExecRequest request) {
        return request.stdin().length == 0 && request.stdinFile().isEmpty();
    }

    /**
     * Runs {@code lines} in one exchange through {@code connection} and keeps their answers; the
     * contents claimed for it are offered as soon as they arrive, and the claims released.
     *
     * @return false when the exchange failed (the tasks then read for themselves)
     */
    boolean read(Connection connection, Collection<String> lines) {
        try {
            ExecTarget of = connection.target();
            if (!of.equals(key)) {
                answers.clear(); // another user's or environment's reads: the host did not change
                kept.clear();
            }
            List<String> ordered = List.copyOf(lines);
            List<ExecResult> results = ProbeBatch.runLines(connection, ordered);
            if (results.size() != ordered.size()) {
                return false;
            }
            key = of;
            for (int i = 0; i < ordered.size(); i++) {
                answers.put(ordered.get(i), results.get(i));
            }
            for (Claimed c : claims) {
                ExecResult answer = answers.get(c.line());
                if (answer != null) {
                    c.claim().arrived(answer);
                }
            }
            return true;
        } finally {
            releaseClaims();
        }
    }

    /**
     * Whether the reads noted from now on may claim a path's first content: on only while the plans
     * of a host's first exchange of a reading ahead note their reads ({@link ReadAheadPlanner}), an
     * exchange that waits for no other host's claim before it releases its own (see
     * {@link SharedContents.Claim}).
     */
    void claiming(boolean claiming) {
        this.claiming = claiming;
    }

    /**
     * A stat that reads {@code path}'s content with the command line {@code line} is noted: while
     * this reading ahead may claim, the path's first content is claimed for its exchange, so that
     * the task's other hosts ask for the digest meanwhile.
     */
    void claimFirstRead(SharedContents shared, String path, String line) {
        if (claiming) {
            SharedContents.Claim claim = shared.claim(path);
            if (claim != null) {
                claims.add(new Claimed(claim, line));
            }
        }
    }

    /** Whether claims of this reading ahead are under way (its reads then wait for no other host's). */
    boolean holdsClaims() {
        return !claims.isEmpty();
    }

    /** Every claim of this reading ahead released, answered or not (an exchange ended, or the reading did). */
    void releaseClaims() {
        claiming = false;
        claims.forEach(c -> c.claim().release());
        claims.clear();
    }

    /** The task about to run is followed by tasks that read {@code following}; null: none known. */
    void following(Following following) {
        this.following = following;
    }

    /**
     * {@code connection}, for the task's writes: each exchange also reads, after the write, what the
     * next task will read first, and those answers serve it ({@link ProbeBatch#runAfter}). A task
     * that writes and a task that then reads cost one round trip instead of two.
     */
    Connection readingAfter(Connection connection) {
        return following == null ? connection : new ReadingAfter(connection, connection.target(), following);
    }

    /** Whether {@code request} was read ahead through {@code connection} (or what it wraps). */
    boolean knows(Connection connection, ExecRequest request) {
        return answer(connection.target(), request).isPresent();
    }

    /** {@code connection}, with what was read ahead through it answered from here. */
    Connection serving(Connection connection) {
        return new Serving(connection, connection.target(), null);
    }

    /**
     * A connection for planning ahead: what was read is answered, any other read noted in
     * {@code wanted} and refused ({@link NotReadYet}), which ends the plan.
     */
    Connection noting(Connection connection, Collection<String> wanted) {
        return new Serving(connection, connection.target(), java.util.Objects.requireNonNull(wanted, "wanted cannot be null"));
    }

    /** A read that planning ahead asked and that was not read yet. */
    static final class NotReadYet extends ConnectionException {
        NotReadYet() {
            super("not read yet");
        }

        /**
         * None: it only ends a plan made ahead, never reaches a user, and is thrown for nearly every
         * host and task (filling in a virtual thread's stack each time was 0.5 % of a 1 000-host no-op).
         */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** {@link NotReadYet} as a module's plan hears it ({@link ConnectionHostView}): no stack trace either. */
    static final class PlanEnded extends dev.provision.modules.spi.ModuleException {
        PlanEnded() {
            super("not read yet");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * A connection that answers what was read ahead; anything else it passes on ({@link #serving}) or,
     * planning ahead, notes and refuses ({@link #noting}: {@code wanted} is not null).
     */
    final class Serving implements Connection {
        private final Connection connection;
        private final ExecTarget key;
        private final Collection<String> wanted;

        private Serving(Connection connection, ExecTarget key, Collection<String> wanted) {
            this.connection = connection;
            this.key = key;
            this.wanted = wanted;
        }

        @Override
        public ExecTarget target() {
            return connection.target();
        }

        @Override
        public String hostName() {
            return connection.hostName();
        }

        @Override
        public ExecResult exec(ExecRequest request) throws ConnectionException {
            Optional<ExecResult> known = answer(key, request);
            if (known.isPresent()) {
                return known.get();
            }
            if (wanted == null) {
                return connection.exec(request);
            }
            if (alone(request)) {
                wanted.add(request.commandLine());
            }
            throw new NotReadYet();
        }

        private Connection writer() throws NotReadYet {
            if (wanted != null) {
                throw new NotReadYet(); // a plan never writes; refused all the same
            }
            return connection;
        }

        @Override
        public void put(String path, byte[] content, Command.Attributes attributes) throws ConnectionException {
            writer().put(path, content, attributes);
        }

        @Override
        public void put(Command.PutFile file) throws ConnectionException {
            writer().put(file);
        }

        @Override
        public dev.provision.engine.connection.Steps inOneExchange(List<Command> steps) throws ConnectionException {
            return writer().inOneExchange(steps);
        }

        @Override
        public void upload(Command.UploadFile file) throws ConnectionException {
            writer().upload(file);
        }

        @Override
        public boolean isController() {
            return connection.isController();
        }

        @Override
        public void close() {
            // the run's connection outlives the task
        }
    }

    /** See {@link #readingAfter}: the answers of its last exchange are the ones kept. */
    private final class ReadingAfter implements Connection {
        private final Connection connection;
        private final ExecTarget key;
        private final Following next;
        private List<String> lines;

        private ReadingAfter(Connection connection, ExecTarget key, Following next) {
            this.connection = connection;
            this.key = key;
            this.next = next;
        }

        @Override
        public ExecTarget target() {
            return connection.target();
        }

        @Override
        public String hostName() {
            return connection.hostName();
        }

        @Override
        public ExecResult exec(ExecRequest request) throws ConnectionException {
            invalidate(); // whatever was read before this exchange, it is about to change
            if (request.stdinFile().isPresent()) {
                return connection.exec(request); // a stream of its own
            }
            if (lines == null) {
                lines = next.reads(key);
            }
            if (lines.isEmpty()) {
                return connection.exec(request);
            }
            List<ExecResult> results = ProbeBatch.runAfter(connection, request, lines);
            if (results.size() == lines.size() + 1) {
                ReadAhead.this.key = key;
                for (int i = 0; i < lines.size(); i++) {
                    answers.put(lines.get(i), results.get(i + 1));
                }
            }
            return results.get(0);
        }

        @Override
        public void upload(Command.UploadFile file) throws ConnectionException {
            invalidate();
            connection.upload(file);
        }

        @Override
        public boolean isController() {
            return connection.isController();
        }

        @Override
        public void close() {
            // the run's connection outlives the task
        }
    }
}
