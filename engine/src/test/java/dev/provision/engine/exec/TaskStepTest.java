package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Params;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TaskStepTest {
    private final TemplateEngine templates = new TemplateEngine(List.of());
    private final AtomicInteger renderings = new AtomicInteger();
    private final Map<String, List<String>> groups = Map.of("cluster", List.of("node01", "node02", "node03"));
    private final Map<String, Object> clusterWide = Map.of("node01", "10.0.0.1", "node02", "10.0.0.2", "node03", "10.0.0.3");

    /** A host's variables: its own name and address, and the cluster-wide maps every host shares. */
    private Map<String, Object> vars(String host, String address) {
        Map<String, Object> vars = new HashMap<>();
        vars.put("inventory_hostname", host);
        vars.put("address", address);
        vars.put("groups", groups);
        vars.put("addresses", clusterWide);
        vars.put("hostvars", new PerReaderView(host));
        vars.put("domain", new String("cluster.example")); // equal, not the same object, on each host
        return vars;
    }

    private Object render(TaskStep step, String text, Map<String, Object> vars) throws Exception {
        return step.render(String.valueOf(vars.get("inventory_hostname")), 0, vars, v -> {
            renderings.incrementAndGet();
            return templates.interpolate(text, v, SourcePosition.UNKNOWN);
        });
    }

    @Test
    void argumentsThatReadOnlyWhatEveryHostSharesAreRenderedOnceAndHandedOutAsTheSameObject() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${groups.cluster?map(h -> addresses[h] + ' ' + h + '.' + domain + hostvars[h])}";
        Object first = render(step, text, vars("node01", "10.0.0.1"));
        Object second = render(step, text, vars("node02", "10.0.0.2"));
        Object third = render(step, text, vars("node03", "10.0.0.3"));
        assertEquals(List.of("10.0.0.1 node01.cluster.example!", "10.0.0.2 node02.cluster.example!",
                "10.0.0.3 node03.cluster.example!"), first);
        assertSame(first, second);
        assertSame(first, third);
        assertEquals(1, renderings.get());
    }

    @Test
    void argumentsThatReadAHostsOwnVariableAreRenderedOnEachHost() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${groups.cluster?seq_index_of(inventory_hostname)} of ${groups.cluster?size}";
        assertEquals("0 of 3", render(step, text, vars("node01", "10.0.0.1")));
        assertEquals("1 of 3", render(step, text, vars("node02", "10.0.0.2")));
        assertEquals("2 of 3", render(step, text, vars("node03", "10.0.0.3")));
        assertEquals(3, renderings.get());
    }

    @Test
    void aVariableDefinedOnOneHostOnlyIsNotTakenForTheSame() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${extra!'none'}";
        assertEquals("none", render(step, text, vars("node01", "10.0.0.1")));
        Map<String, Object> withExtra = vars("node02", "10.0.0.2");
        withExtra.put("extra", "set here");
        assertEquals("set here", render(step, text, withExtra));
        assertEquals("none", render(step, text, vars("node03", "10.0.0.3")));
    }

    @Test
    void aFailedRenderingIsNotSharedAndEachHostHearsItsOwnFailure() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${missing}";
        assertThrows(TemplateException.class, () -> render(step, text, vars("node01", "10.0.0.1")));
        Map<String, Object> defined = vars("node02", "10.0.0.2");
        defined.put("missing", "here now");
        assertEquals("here now", render(step, text, defined));
        assertThrows(TemplateException.class, () -> render(step, text, vars("node03", "10.0.0.3")));
    }

    @Test
    void aWalkOfEveryVariableIsNotShared() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${.data_model?keys?size}";
        Map<String, Object> more = vars("node02", "10.0.0.2");
        more.put("one_more", 1);
        assertEquals("6", String.valueOf(render(step, text, vars("node01", "10.0.0.1"))));
        assertEquals("7", String.valueOf(render(step, text, more)));
    }

    @Test
    void eachPartOfATaskIsSharedOnItsOwn() throws Exception {
        TaskStep step = new TaskStep();
        Object first = step.render("node01", 0, vars("node01", "10.0.0.1"), v -> List.of("item 0"));
        Object second = step.render("node01", 1, vars("node01", "10.0.0.1"), v -> List.of("item 1"));
        assertNotSame(first, second);
        assertEquals(List.of("item 1"), step.render("node02", 1, vars("node02", "10.0.0.2"), v -> List.of("not asked")));
    }

    @Test
    void hostsArrivingWhileTheFirstRendersWaitForItInsteadOfRenderingAgain() throws Exception {
        TaskStep step = new TaskStep();
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            Future<Object> first = pool.submit(() -> step.render("node01", 0, vars("node01", "10.0.0.1"), v -> {
                renderings.incrementAndGet();
                firstStarted.countDown();
                awaitUninterruptibly(release);
                return List.of(v.get("groups"));
            }));
            firstStarted.await();
            List<Future<Object>> others = new ArrayList<>();
            for (int i = 2; i <= 8; i++) {
                String host = "node0" + i;
                others.add(pool.submit(() -> step.render(host, 0, vars(host, "10.0.0.9"), v -> {
                    renderings.incrementAndGet();
                    return List.of(v.get("groups"));
                })));
            }
            Thread.sleep(100);
            release.countDown();
            Object shared = first.get();
            for (Future<Object> other : others) {
                assertSame(shared, other.get());
            }
            assertEquals(1, renderings.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void whatAModuleDerivesForAllHostsIsDerivedOnceAKeyAndARefusalIsNotShared() throws Exception {
        TaskStep step = new TaskStep();
        AtomicInteger derivations = new AtomicInteger();
        List<String> members = List.of("node01", "node02");
        Object first = step.shared("node01", List.of("group", "cluster"), () -> {
            derivations.incrementAndGet();
            return new ArrayList<>(members);
        });
        Object second = step.shared("node01", List.of("group", "cluster"), () -> {
            derivations.incrementAndGet();
            return List.of("not asked");
        });
        assertSame(first, second);
        assertEquals(1, derivations.get());
        assertEquals(List.of("other"), step.shared("node01", List.of("group", "other"), () -> List.of("other")));

        assertThrows(dev.provision.modules.spi.ModuleException.class, () -> step.shared("node01", "refused", () -> {
            throw new dev.provision.modules.spi.ModuleException("host node02 of group cluster has no IP address");
        }));
        assertEquals("derived again", step.shared("node01", "refused", () -> "derived again"));
    }

    @Test
    void aStepKeepsABoundedNumberOfDerivationsAndTheKeysItKeptStayShared() throws Exception {
        TaskStep step = new TaskStep();
        List<byte[]> files = new ArrayList<>();
        for (int host = 0; host < TaskStep.MAX_SHARED + 10; host++) {
            byte[] file = new byte[] {(byte) host};
            files.add(file);
            step.shared("node01", List.of("edit", file), () -> "edited");
        }
        AtomicInteger derivations = new AtomicInteger();
        step.shared("node01", List.of("edit", files.get(0)), () -> "again " + derivations.incrementAndGet());
        assertEquals(0, derivations.get(), "a kept key is still shared");
        step.shared("node01", List.of("edit", files.get(TaskStep.MAX_SHARED + 5)), () -> "again " + derivations.incrementAndGet());
        step.shared("node01", List.of("edit", files.get(TaskStep.MAX_SHARED + 5)), () -> "again " + derivations.incrementAndGet());
        assertEquals(2, derivations.get(), "past the bound each host derives its own");
        step.shared("node01", List.of("edit", new byte[] {0}), () -> "again " + derivations.incrementAndGet());
        assertEquals(3, derivations.get(), "an equal array is another key: arrays compare by identity");
    }

    @Test
    void aLargeKeyIsHashedOnceForAllHostsAndStillMeetsAnEqualKey() throws Exception {
        TaskStep step = new TaskStep();
        List<Map<String, Object>> entries = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            entries.add(Map.of("name", "node" + i, "key", "ssh-ed25519 AAAA" + i));
        }
        AtomicInteger walks = new AtomicInteger();
        List<Map<String, Object>> argument = new java.util.AbstractList<>() {
            @Override
            public Map<String, Object> get(int index) {
                return entries.get(index);
            }

            @Override
            public int size() {
                return entries.size();
            }

            @Override
            public java.util.Iterator<Map<String, Object>> iterator() {
                walks.incrementAndGet();
                return entries.iterator();
            }
        };
        AtomicInteger derivations = new AtomicInteger();
        Object first = step.shared("node01", List.of("lines", argument), () -> "lines " + derivations.incrementAndGet());
        for (int host = 2; host <= 100; host++) {
            assertSame(first, step.shared("node%03d".formatted(host), List.of("lines", argument), () -> "lines " + derivations.incrementAndGet()));
        }
        assertEquals(1, walks.get(), "the very same argument is hashed once, not once a host");
        assertSame(first, step.shared("node101", List.of("lines", new ArrayList<>(entries)), () -> "lines " + derivations.incrementAndGet()),
                "an equal argument that is another object still meets the first");
        assertEquals(1, derivations.get());

        Map<String, Object> large = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            large.put("k" + i, java.util.Arrays.asList(i, null, "x"));
        }
        Object nested = List.of(large, java.util.Arrays.asList(null, "a"), "s", entries);
        assertEquals(nested.hashCode(), step.hashOf(nested));
        assertEquals(nested.hashCode(), step.hashOf(nested), "a kept hash is the object's own");
        assertEquals(0, step.hashOf(null));
    }

    /** An element that counts how often it is compared by value. */
    private record Counted(int value, AtomicInteger comparisons) {
        @Override
        public boolean equals(Object other) {
            comparisons.incrementAndGet();
            return other instanceof Counted c && c.value == value;
        }

        @Override
        public int hashCode() {
            return value;
        }
    }

    @Test
    void anEqualLargeArgumentFromAnotherRenderingIsComparedByValueOnceNotAtEveryHost() throws Exception {
        TaskStep step = new TaskStep();
        AtomicInteger comparisons = new AtomicInteger();
        List<Counted> planned = new ArrayList<>();
        List<Counted> atTurn = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            planned.add(new Counted(i, comparisons));
            atTurn.add(new Counted(i, comparisons));
        }
        AtomicInteger derivations = new AtomicInteger();
        Object first = step.shared("node001", planned, () -> "lines " + derivations.incrementAndGet());
        Object firstEdit = step.shared("node001", List.of("edit", planned), () -> "edit " + derivations.incrementAndGet());
        for (int host = 2; host <= 100; host++) {
            String name = "node%03d".formatted(host);
            assertSame(first, step.shared(name, atTurn, () -> "lines " + derivations.incrementAndGet()));
            assertSame(firstEdit, step.shared(name, List.of("edit", atTurn), () -> "edit " + derivations.incrementAndGet()));
        }
        assertEquals(2, derivations.get());
        assertTrue(comparisons.get() <= 2 * planned.size(), "compared element by element once, not at every host: " + comparisons.get());
        List<Counted> other = new ArrayList<>(atTurn);
        other.set(7, new Counted(-7, comparisons));
        assertEquals("lines 3", step.shared("node101", other, () -> "lines " + derivations.incrementAndGet()),
                "a list that differs is another key");
    }

    @Test
    void whetherArgumentsHoldADryRunsPlaceholderIsAnsweredForTheArgumentsAskedAbout() {
        TaskStep step = new TaskStep();
        String placeholder = "<output of 'get kernel' at site.yml:4:7, known when it runs>";
        Params plain = Params.of(Map.of("entries", List.of(Map.of("names", List.of("node01")))));
        Params holding = Params.of(Map.of("entries", List.of(Map.of("names", List.of(placeholder)))));
        assertFalse(step.holdsRunTimeOutput(plain));
        assertFalse(step.holdsRunTimeOutput(plain));
        assertTrue(step.holdsRunTimeOutput(holding));
        assertTrue(step.holdsRunTimeOutput(holding));
        assertFalse(step.holdsRunTimeOutput(Params.of(Map.of("entries", List.of(Map.of("names", List.of("node01")))))));
        assertFalse(step.holdsRunTimeOutput(plain));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stands for hostvars: one object per reader, the same content for all. */
    private static final class PerReaderView extends AbstractMap<String, Object> implements SameOnEveryHost {
        private final String reader;

        PerReaderView(String reader) {
            this.reader = reader;
        }

        @Override
        public Object get(Object key) {
            return reader.isEmpty() ? null : "!";
        }

        @Override
        public boolean containsKey(Object key) {
            return true;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return Set.of();
        }
    }

    /**
     * Renderings for reads ahead (plans never applied) share the first among themselves, where the
     * variables it read hold; a turn's rendering never takes theirs.
     */
    @Test
    void renderingsForReadsAheadShareTheFirstAmongThemselvesButNotWithATurn() throws Exception {
        TaskStep step = new TaskStep();
        String text = "${groups.cluster?map(h -> addresses[h])?join(' ')} in ${domain}";
        TaskStep.Rendering<Object> rendering = v -> {
            renderings.incrementAndGet();
            return templates.interpolate(text, v, SourcePosition.UNKNOWN);
        };
        Object first = step.renderForReads("node01", 0, vars("node01", "10.0.0.1"), rendering);
        Object second = step.renderForReads("node02", 0, vars("node02", "10.0.0.2"), rendering);
        assertSame(first, second, "the second host's reads ahead take the first's rendering");
        assertEquals(1, renderings.get());
        Map<String, Object> elsewhere = vars("node04", "10.0.0.4");
        elsewhere.put("domain", "other.example");
        assertEquals("10.0.0.1 10.0.0.2 10.0.0.3 in other.example", step.renderForReads("node04", 0, elsewhere, rendering),
                "a variable the first read holds another value here: its own rendering");
        assertEquals(2, renderings.get());
        Object turn = render(step, text, vars("node03", "10.0.0.3"));
        assertNotSame(first, turn, "a turn renders for itself (or shares a turn's)");
        assertEquals(3, renderings.get());
    }


    /** Hosts that plan the task ahead of its turn, on {@code progress}. */
    private static RunAhead planningAhead(String... hosts) {
        RunAhead progress = new RunAhead(Set.of("node01", "node02", "node03", "node04", "node05", "node06", "node07", "node08"));
        for (String host : hosts) {
            progress.planningAhead(host, 1);
        }
        return progress;
    }

    /**
     * Hosts planning ahead on a pool: the first one's rendering held until {@link #release}, so that
     * the hosts that come meanwhile ({@link #meanwhile}) find it under way.
     */
    private final class HeldFirst implements AutoCloseable {
        private final ExecutorService pool = Executors.newFixedThreadPool(8);
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final RunAhead progress;
        private final TaskStep step;
        final Future<Object> first;

        /** {@code host} renders first; once released, its rendering goes on with {@code then}. */
        HeldFirst(RunAhead progress, TaskStep step, String host, TaskStep.Rendering<Object> then) throws InterruptedException {
            this.progress = progress;
            this.step = step;
            first = pool.submit(() -> progress.withFork(host, () -> uncheckedRender(step, host, v -> {
                renderings.incrementAndGet();
                started.countDown();
                awaitUninterruptibly(release);
                return then.render(v);
            })));
            started.await();
        }

        Future<Object> meanwhile(String host, TaskStep.Rendering<Object> rendering) {
            return pool.submit(() -> progress.withFork(host, () -> uncheckedRender(step, host, rendering)));
        }

        /** Lets the first go on once the others had time to come. */
        void release() throws InterruptedException {
            Thread.sleep(100);
            release.countDown();
        }

        @Override
        public void close() {
            pool.shutdownNow();
        }
    }

    @Test
    void hostsPlanningAheadWaitForTheFirstOfThemAndTakeItsRendering() throws Exception {
        RunAhead progress = planningAhead("node01", "node02", "node03", "node04", "node05", "node06", "node07", "node08");
        TaskStep step = new TaskStep(progress);
        TaskStep.Rendering<Object> groups = v -> {
            renderings.incrementAndGet();
            return List.of(v.get("groups"));
        };
        try (HeldFirst held = new HeldFirst(progress, step, "node01", v -> List.of(v.get("groups")))) {
            List<Future<Object>> others = new ArrayList<>();
            for (int i = 2; i <= 8; i++) {
                others.add(held.meanwhile("node0" + i, groups));
            }
            held.release();
            Object shared = held.first.get();
            for (Future<Object> other : others) {
                assertSame(shared, other.get());
            }
            assertEquals(1, renderings.get(), "planned ahead on 8 hosts, rendered once");
            assertSame(shared, render(step, "not rendered", vars("node03", "10.0.0.3")), "a host at the task's turn takes it too");
        }
    }

    private Object uncheckedRender(TaskStep step, String host, TaskStep.Rendering<Object> rendering) {
        try {
            return step.render(host, 0, vars(host, "10.0.0.9"), rendering);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aRenderingPlannedAheadThatReadPlayHostsIsTheHostsOwn() throws Exception {
        // node01 is planning ahead: play_hosts lists it, though the tasks before may still fail it
        RunAhead progress = planningAhead("node01", "node02");
        progress.finished("node01", 0);
        progress.finished("node02", 0);
        TaskStep step = new TaskStep(progress);
        List<String> candidates = List.of("node01", "node02");
        assertEquals(candidates, step.render("node01", 0, vars("node01", "10.0.0.1"), playHostsOf(progress, "node01", candidates)));
        assertEquals(candidates, step.render("node02", 0, vars("node02", "10.0.0.2"), playHostsOf(progress, "node02", candidates)));
        assertEquals(2, renderings.get(), "not shared: each host rendered its own");

        TaskStep.Rendering<Object> readsGroups = v -> {
            renderings.incrementAndGet();
            return List.of(v.get("groups"));
        };
        Object first = step.render("node01", 1, vars("node01", "10.0.0.1"), readsGroups);
        assertSame(first, step.render("node02", 1, vars("node02", "10.0.0.2"), readsGroups));
        assertEquals(3, renderings.get(), "what every host reads alike is shared");
    }

    /** A rendering that reads play_hosts as {@code reader}'s view does (the reader is not a variable it reads). */
    private TaskStep.Rendering<Object> playHostsOf(RunAhead progress, String reader, List<String> candidates) {
        return v -> {
            renderings.incrementAndGet();
            return List.copyOf(progress.stillInPlay(reader, candidates));
        };
    }

    /** A rendering that reads hostvars["node05"] as {@code reader}'s view does. */
    private TaskStep.Rendering<Object> readsNode05(RunAhead progress, String reader) {
        return v -> {
            renderings.incrementAndGet();
            progress.awaitCaughtUp(reader, "node05");
            return List.of(v.get("groups"));
        };
    }

    @Test
    void aRenderingPlannedAheadThatMetAHostNotCaughtUpIsNotSharedAndTheNextHostRendersFirst() throws Exception {
        RunAhead progress = planningAhead("node01", "node02", "node03");
        progress.starting("node05", 0); // node05 has not finished the task before
        TaskStep step = new TaskStep(progress);
        assertThrows(RunAhead.NotCaughtUp.class, () -> step.render("node01", 0, vars("node01", "10.0.0.1"), readsNode05(progress, "node01")));
        progress.finished("node05", 0);
        Object second = step.render("node02", 0, vars("node02", "10.0.0.2"), readsNode05(progress, "node02"));
        assertSame(second, step.render("node03", 0, vars("node03", "10.0.0.3"), readsNode05(progress, "node03")),
                "node02 rendered first and node03 took it");
        assertEquals(2, renderings.get());
    }

    @Test
    void aHostPlanningAheadDoesNotWaitForAFirstAtTheTasksTurn() throws Exception {
        RunAhead progress = planningAhead("node02");
        TaskStep step = new TaskStep(progress);
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Object> atTurn = pool.submit(() -> uncheckedRender(step, "node01", v -> {
                firstStarted.countDown();
                awaitUninterruptibly(release); // as if waiting for node02 to catch up
                return List.of("turn");
            }));
            firstStarted.await();
            assertEquals(List.of("own"), step.render("node02", 0, vars("node02", "10.0.0.2"), v -> List.of("own")));
            release.countDown();
            assertEquals(List.of("turn"), atTurn.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theFirstRenderingForReadsIsWaitedForUnlessItMetAHostNotCaughtUp() throws Exception {
        RunAhead progress = new RunAhead(Set.of("node01", "node02", "node03", "node05"));
        progress.starting("node01", 1);
        progress.starting("node02", 1);
        progress.starting("node03", 1);
        progress.starting("node05", 0); // node05 has not finished the task before theirs
        TaskStep step = new TaskStep(progress);
        CountDownLatch caughtUp = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            // node01 renders first, without waiting: it meets node05 behind, so it renders again, waiting for it
            Future<Object> first = pool.submit(() -> step.renderForReads("node01", 0, vars("node01", "10.0.0.1"), v -> {
                renderings.incrementAndGet();
                progress.awaitCaughtUp("node01", "node05");
                caughtUp.countDown();
                return List.of(v.get("groups"));
            }));
            Thread.sleep(100);
            assertEquals(2, renderings.get(), "the first rendering ended at node05, the second began");
            assertFalse(first.isDone(), "the second waits for node05");
            progress.finished("node05", 0);
            caughtUp.await();
            first.get();
            assertEquals(2, renderings.get());
            // node05 has caught up now: node02 renders first and shares; node03 takes it
            Object second = step.renderForReads("node02", 0, vars("node02", "10.0.0.2"), readsNode05(progress, "node02"));
            assertSame(second, step.renderForReads("node03", 0, vars("node03", "10.0.0.3"), readsNode05(progress, "node03")));
            assertEquals(3, renderings.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void hostsPlanningAheadThatWaitedForAFirstWhichMetAHostNotCaughtUpEndTheirPlansToo() throws Exception {
        RunAhead progress = planningAhead("node01", "node02");
        progress.starting("node05", 0); // node05 has not finished the task before
        TaskStep step = new TaskStep(progress);
        try (HeldFirst held = new HeldFirst(progress, step, "node01", v -> {
            progress.awaitCaughtUp("node01", "node05");
            return List.of("never");
        })) {
            Future<Object> second = held.meanwhile("node02", v -> {
                renderings.incrementAndGet();
                return List.of("own");
            });
            held.release();
            java.util.concurrent.ExecutionException ended = assertThrows(java.util.concurrent.ExecutionException.class, held.first::get);
            assertTrue(ended.getCause().getCause() instanceof RunAhead.NotCaughtUp, String.valueOf(ended.getCause()));
            ended = assertThrows(java.util.concurrent.ExecutionException.class, second::get);
            assertTrue(ended.getCause().getCause() instanceof RunAhead.NotCaughtUp, "node02 waited for node01 and ends as it did");
            assertEquals(1, renderings.get(), "node02 did not render what would end the same way");
            assertTrue(progress.endPlanningAhead("node02"), "node02's plan is dropped: planned again in its turn");
        }
    }
}
