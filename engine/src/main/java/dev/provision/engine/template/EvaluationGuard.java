package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import freemarker.template.Template;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs FreeMarker work within {@link Limits}, turning runaway evaluation into {@link LimitExceeded}.
 *
 * <p>FreeMarker has no limits of its own, and a Java thread cannot be stopped from outside. So work
 * that could run away runs on a worker thread: the caller waits, one watch thread for all jobs looks
 * at each worker's CPU time and allocated bytes every {@value #POLL_MILLIS} ms, and past a limit
 * interrupts it (templates carry FreeMarker's interruption checks in every loop and macro body, see
 * {@code SandboxedConfiguration}) and ends the caller's wait at once. (Each caller polling its own job
 * with a timed wait cost a 1 000-host run ~15 % of its CPU: a thousand renders wait for the hosts
 * still connecting, each woken 20 times a second and thrown a {@code TimeoutException}.) A worker stuck
 * inside one built-in call ({@code (1..)?seq_contains(0)}) ignores the interruption and finishes on its
 * own; nobody waits for it. A template that passed a limit once is refused from then on without being
 * run again, so a thousand hosts do not each spend the limit on it (those running it at that moment
 * are stopped too). At most as many workers compute at once as there are processors; one that waits
 * (for {@code hostvars} of a host that is behind) gives its place up, since the host it waits for may
 * need one to catch up.
 *
 * <p>Work that cannot loop (see {@link TemplateText#isStraightLine}) runs in the calling thread: handing
 * it to a worker would cost several times the evaluation itself. Both ways, a stack overflow (recursion)
 * and an out-of-memory error are the user's problem, reported, never thrown on.
 *
 * <p>Thread-safe; one guard serves every host of a run.
 */
final class EvaluationGuard {
    private static final long POLL_MILLIS = 50;
    /** Independent of the launcher's small default (-Xss), so that the depth a template may reach is the same everywhere. */
    private static final long WORKER_STACK_BYTES = 2L << 20;

    /** One unit of FreeMarker work: parse results are given; this renders or evaluates. */
    interface Work<T> {
        T run() throws freemarker.template.TemplateException, IOException;
    }

    private final Limits limits;
    private final Semaphore computing;
    private final ExecutorService workers;
    /** Templates that passed a limit, with what the user was told. */
    private final Map<Template, String> refused = new ConcurrentHashMap<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    /** The jobs on workers whose callers wait; guarded by itself, as is {@link #watching}. */
    private final Set<Job<?>> watched = new HashSet<>();
    /** Whether the watch thread runs: it ends once no job is left and starts again with the next. */
    private boolean watching;
    /**
     * Whether the JVM counts each thread's allocations (its {@code jdk.management} module; a jlink
     * runtime may leave it out, and then only CPU time and output size bound a template). Asked once:
     * touching {@code com.sun.management} without that module is a NoClassDefFoundError.
     */
    private static final boolean COUNTS_ALLOCATION = countsAllocation();

    private static boolean countsAllocation() {
        try {
            return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean counting
                    && counting.isThreadAllocatedMemorySupported();
        } catch (LinkageError absent) {
            return false;
        }
    }

    EvaluationGuard(Limits limits) {
        this(limits, Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** @param concurrency workers that may compute at once */
    EvaluationGuard(Limits limits, int concurrency) {
        this.limits = requireNonNull(limits, "limits cannot be null");
        this.computing = new Semaphore(concurrency);
        // No core threads: an engine that never meets a loop starts none, and idle workers end soon.
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(),
                workerThreads());
    }

    /**
     * @param straightLine the work cannot loop or recurse: run it in the calling thread
     * @throws freemarker.template.TemplateException the template's own failure
     * @throws IOException a failure to read an included template
     */
    <T> T run(Template template, boolean straightLine, Work<T> work)
            throws freemarker.template.TemplateException, IOException, LimitExceeded {
        String earlier = refused.get(template);
        if (earlier != null) {
            throw new LimitExceeded(earlier);
        }
        if (straightLine) {
            try {
                return work.run();
            } catch (Throwable failure) {
                throw rethrown(template, failure);
            }
        }
        return onWorker(template, work);
    }

    private <T> T onWorker(Template template, Work<T> work)
            throws freemarker.template.TemplateException, IOException, LimitExceeded {
        Place place = new Place();
        Job<T> job = null;
        try {
            String earlier = refused.get(template); // again: another host may have met a limit meanwhile
            if (earlier != null) {
                throw new LimitExceeded(earlier);
            }
            job = new Job<>(work, template, place);
            watch(job);
            workers.execute(job);
            return job.await();
        } finally {
            if (job != null) {
                unwatch(job);
            }
            place.giveUp(); // an abandoned worker no longer counts: the caller has left it
        }
    }

    private void watch(Job<?> job) {
        synchronized (watched) {
            watched.add(job);
            if (!watching) {
                watching = true;
                Thread.ofPlatform().daemon().name("provision-template-watch").start(this::watchJobs);
            }
        }
    }

    private void unwatch(Job<?> job) {
        synchronized (watched) {
            watched.remove(job);
        }
    }

    /** The watch thread: every {@value #POLL_MILLIS} ms, each waiting caller's job looked at, until none is left. */
    private void watchJobs() {
        while (true) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                // Nobody interrupts this thread; looking at the jobs now is as good as later.
            }
            List<Job<?>> jobs;
            synchronized (watched) {
                if (watched.isEmpty()) {
                    watching = false;
                    return;
                }
                jobs = List.copyOf(watched);
            }
            for (Job<?> job : jobs) {
                job.check();
            }
        }
    }

    /** One of the {@code computing} permits, given back once, by whoever gives it up first (the caller or the watch thread). */
    private final class Place {
        private boolean held;

        Place() throws LimitExceeded {
            try {
                computing.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LimitExceeded("interrupted before it ran");
            }
            held = true;
        }

        synchronized void giveUp() {
            if (held) {
                held = false;
                computing.release();
            }
        }
    }

    /** Classifies what the work threw: the user's limits, or the template's own exceptions. */
    private LimitExceeded rethrown(Template template, Throwable failure)
            throws freemarker.template.TemplateException, IOException {
        switch (failure) {
            case StackOverflowError e -> {
                return LimitExceeded.recursion();
            }
            case OutOfMemoryError e -> {
                return refuse(template, LimitExceeded.memory(limits));
            }
            case BoundedWriter.Full e -> {
                return LimitExceeded.output(limits);
            }
            case freemarker.template.TemplateException e -> throw e;
            case IOException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException(failure);
        }
    }

    private LimitExceeded refuse(Template template, LimitExceeded problem) {
        refused.putIfAbsent(template, problem.getMessage());
        return problem;
    }

    /** The work on its worker, with what the watch thread needs to measure it. */
    private final class Job<T> implements Runnable {
        private final Work<T> work;
        private final Template template;
        private final Place place;
        /** The work's value or failure, or the limit the watch thread found passed. */
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private Thread worker;
        private boolean finished;
        private long startNanos;
        private long startCpu;
        private long startAllocated;
        /** How often the watch thread found the worker waiting; only that thread touches it. */
        private int waitingLooks;

        Job(Work<T> work, Template template, Place place) {
            this.work = work;
            this.template = template;
            this.place = place;
        }

        @Override
        public void run() {
            synchronized (this) {
                worker = Thread.currentThread();
                startNanos = System.nanoTime();
                // The current thread's own counters: cheaper than asking about a thread by id.
                startCpu = threads.isThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
                startAllocated = COUNTS_ALLOCATION ? ((com.sun.management.ThreadMXBean) threads).getCurrentThreadAllocatedBytes() : -1;
            }
            try {
                result.complete(work.run());
            } catch (Throwable failure) {
                result.completeExceptionally(failure); // a stack overflow or out-of-memory error included
            } finally {
                synchronized (this) {
                    finished = true; // from here on an interruption would hit the pool's next job
                }
                Thread.interrupted();
            }
        }

        /** The caller's wait, without a timeout: the watch thread ends it past a limit. */
        T await() throws freemarker.template.TemplateException, IOException, LimitExceeded {
            try {
                return result.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof LimitExceeded limit) {
                    throw limit; // made by the watch thread for this job alone
                }
                throw rethrown(template, e.getCause());
            } catch (InterruptedException e) {
                abandon();
                Thread.currentThread().interrupt();
                throw new LimitExceeded("interrupted");
            }
        }

        /** The watch thread's look: a refused template or a passed limit ends the wait; a worker that waits gives its place up. */
        void check() {
            if (result.isDone()) {
                return;
            }
            String earlier = refused.get(template);
            if (earlier != null) {
                fail(new LimitExceeded(earlier)); // the same template ran away for another host
                return;
            }
            if (waiting()) {
                place.giveUp();
                // A waiting worker spends no CPU: its counters are read every tenth look only (a
                // thousand hosts may wait for the ones still connecting; each read is a system call).
                if (++waitingLooks % 10 != 0) {
                    return;
                }
            }
            LimitExceeded over = overLimit();
            if (over != null) {
                fail(refuse(template, over));
            }
        }

        private void fail(LimitExceeded limit) {
            if (result.completeExceptionally(limit)) {
                abandon();
            }
        }

        private synchronized LimitExceeded overLimit() {
            if (worker == null) {
                return null; // not started: waiting for a thread is not the work's cost
            }
            long cpu = startCpu < 0 ? System.nanoTime() - startNanos : cpuTime(worker) - startCpu;
            if (cpu > limits.cpuTime().toNanos()) {
                return LimitExceeded.cpuTime(limits);
            }
            if (startAllocated >= 0 && allocated(worker) - startAllocated > limits.allocatedBytes()) {
                return LimitExceeded.memory(limits);
            }
            return null;
        }

        /** Whether the worker waits (on another host) rather than computes. */
        private synchronized boolean waiting() {
            return worker != null && !finished && switch (worker.getState()) {
                case BLOCKED, WAITING, TIMED_WAITING -> true;
                default -> false;
            };
        }

        private synchronized void abandon() {
            if (worker != null && !finished) {
                worker.interrupt();
            }
        }
    }

    /** Nanoseconds of CPU the thread has used; -1 where the JVM cannot tell. */
    private long cpuTime(Thread thread) {
        return threads.isThreadCpuTimeSupported() ? threads.getThreadCpuTime(thread.threadId()) : -1;
    }

    /** Bytes the thread has allocated; -1 where the JVM cannot tell. */
    private long allocated(Thread thread) {
        return COUNTS_ALLOCATION ? ((com.sun.management.ThreadMXBean) threads).getThreadAllocatedBytes(thread.threadId()) : -1;
    }

    private static ThreadFactory workerThreads() {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(null, task, "provision-template-" + count.incrementAndGet(), WORKER_STACK_BYTES);
            thread.setDaemon(true); // an abandoned worker must not keep the controller alive
            thread.setUncaughtExceptionHandler((t, e) -> { }); // every failure is the caller's to report
            return thread;
        };
    }
}
