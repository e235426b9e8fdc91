package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.engine.connection.LocalConnection;
import dev.provision.engine.report.TaskResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plan made ahead of its turn, from its arguments and what it read of its host alone, is taken
 * at its turn instead of being made again; one that read variables, or went on past a read that had
 * not been made yet, is made again there. Two local hosts, whose reads go through the real shell in
 * the real batched exchanges.
 */
class PlansMadeAheadTest {
    private static final String TWO_HOSTS = """
            all:
              hosts:
                a: {ansible_connection: local}
                b: {ansible_connection: local}
            """;

    @TempDir
    Path tmp;

    /**
     * Reads the file {@code path}; then, for {@code follow}, the file that one names (a read
     * of a second level), going on where that read fails; with {@code vars}, it also reads a
     * variable. Converged either way, saying what it saw. Counts the plans that got to their end.
     */
    private static final class Reading implements TaskModule {
        final Map<String, AtomicInteger> plansMade = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "reading_test";
        }

        @Override
        public ParamSpec params() {
            return ParamSpec.builder().required("path", ParamSpec.Type.STRING).withDefault("follow", ParamSpec.Type.BOOL, false)
                    .withDefault("vars", ParamSpec.Type.BOOL, false).build();
        }

        @Override
        public boolean plansTogether() {
            return true;
        }

        @Override
        public boolean isHostLocal() {
            return true; // hosts go through its tasks on their own, each reading ahead
        }

        @Override
        public Plan plan(Params params, TaskContext context) throws ModuleException {
            String seen = read(context, params.string("path"));
            if (params.bool("follow")) {
                try {
                    seen = read(context, seen);
                } catch (ModuleException e) {
                    seen = "nothing yet"; // wrong at its turn, where the read can be made
                }
            }
            if (params.bool("vars")) {
                seen += " on " + context.variables().get("inventory_hostname");
            }
            plansMade.computeIfAbsent(context.host().name(), h -> new AtomicInteger()).incrementAndGet();
            return Plan.converged("saw " + seen);
        }

        private static String read(TaskContext context, String path) throws ModuleException {
            return context.host().readFile(path).map(c -> new String(c, StandardCharsets.UTF_8).strip()).orElse("no " + path);
        }
    }

    /** Probes with {@code cat} only in its turn, going on where a probe is refused: says what it saw. */
    private static final class ProbingInTurn implements TaskModule {
        @Override
        public String name() {
            return "probing_test";
        }

        @Override
        public ParamSpec params() {
            return ParamSpec.builder().required("path", ParamSpec.Type.STRING).build();
        }

        @Override
        public boolean isHostLocal() {
            return true;
        }

        @Override
        public boolean probesAhead() {
            return false;
        }

        @Override
        public Plan plan(Params params, TaskContext context) {
            try {
                return Plan.converged("saw " + context.host().probe("cat", params.string("path")).stdout().strip());
            } catch (ModuleException e) {
                return Plan.converged("saw nothing yet"); // wrong at its turn, where it may probe
            }
        }
    }

    /** A run of {@code playbook} on the two hosts, with the files the tasks read, and what it did. */
    private record Ran(Reading module, ExecutorHarness harness) {
        /** Asserts how many plans each host made to their end. */
        void plansMade(int each) {
            for (String host : List.of("a", "b")) {
                assertEquals(each, module.plansMade.get(host).get(), "plans made to their end on " + host);
            }
        }

        List<String> messages(String host) {
            return harness.results.stream().filter(r -> r.host().equals(host)).map(TaskResult::message).toList();
        }
    }

    private Ran run(String playbook, boolean check) throws Exception {
        for (String name : List.of("one", "two", "three")) {
            Files.writeString(tmp.resolve(name), tmp.resolve(name + ".next") + "\n");
            Files.writeString(tmp.resolve(name + ".next"), name + " followed\n");
        }
        Reading module = new Reading();
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.extraModules.add(module);
        harness.extraModules.add(new ProbingInTurn());
        harness.connections = (host, vars) -> new LocalConnection(host);
        harness.run(playbook, TWO_HOSTS, ExecutorHarness.options(check), new char[0]);
        return new Ran(module, harness);
    }

    /** A play of {@code tasks} (one a line, {@code %1$s} for the test's directory) on both hosts. */
    private String play(String... tasks) {
        StringBuilder play = new StringBuilder("- hosts: all\n  gather_facts: false\n  tasks:\n");
        for (String task : tasks) {
            play.append("    - ").append(task.formatted(tmp)).append('\n');
        }
        return play.toString();
    }

    private String threeTasks(String args) {
        return play("reading_test: {path: \"%1$s/one\"" + args + "}", "reading_test: {path: \"%1$s/two\"" + args + "}",
                "reading_test: {path: \"%1$s/three\"" + args + "}");
    }

    @Test
    void aPlanMadeAheadFromItsHostAloneIsNotMadeAgainAtItsTurn() throws Exception {
        Ran ran = run(threeTasks(""), false);
        ran.plansMade(3); // made ahead once its read was answered, and taken at its turn: once per task
        assertEquals(List.of("saw " + tmp.resolve("one.next"), "saw " + tmp.resolve("two.next"), "saw " + tmp.resolve("three.next")),
                ran.messages("a"));
    }

    @Test
    void aDryRunsPlanMadeAheadIsTakenAtItsTurnToo() throws Exception {
        run(threeTasks(""), true).plansMade(3);
    }

    @Test
    void aPlanThatReadVariablesIsMadeAgainAtItsTurn() throws Exception {
        Ran ran = run(threeTasks(", vars: true"), false);
        ran.plansMade(6);
        assertEquals("saw " + tmp.resolve("one.next") + " on b", ran.messages("b").getFirst());
    }

    @Test
    void aPlanThatWentOnPastAReadNotMadeYetIsMadeAgainAtItsTurn() throws Exception {
        Ran ran = run(threeTasks(", follow: true"), false);
        // ahead, the second read is not made yet and the plan goes on without it: its turn makes it again, with it
        for (String host : List.of("a", "b")) {
            assertEquals(List.of("saw one followed", "saw two followed", "saw three followed"), ran.messages(host));
        }
    }

    @Test
    void aDryRunsPlanMadeAheadIsMadeAgainWhereATaskBeforeItWouldChangeWhatItRead() throws Exception {
        Ran ran = run(play("reading_test: {path: \"%1$s/one\"}", "copy: {dest: \"%1$s/two\", content: \"would be written\\n\"}",
                "reading_test: {path: \"%1$s/two\"}", "reading_test: {path: \"%1$s/three\"}"), true);
        // ahead, the third task read the file as it is; at its turn, as the copy before it would leave it
        assertEquals(List.of("saw " + tmp.resolve("one.next"), "", "saw would be written", "saw " + tmp.resolve("three.next")),
                ran.messages("a"));
        assertEquals(tmp.resolve("two.next") + "\n", Files.readString(tmp.resolve("two")));
    }

    @Test
    void aPlanOfAModuleThatProbesOnlyInItsTurnIsMadeAgainThere() throws Exception {
        Ran ran = run(play("reading_test: {path: \"%1$s/one\"}", "probing_test: {path: \"%1$s/two\"}",
                "reading_test: {path: \"%1$s/three\"}"), false);
        assertEquals("saw " + tmp.resolve("two.next"), ran.messages("a").get(1));
    }
}
