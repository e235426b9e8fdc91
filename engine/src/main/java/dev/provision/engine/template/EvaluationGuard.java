package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import freemarker.template.Template;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs FreeMarker work within {@link Limits}, turning runaway evaluation into {@link LimitExceeded}.
 *
 * <p>FreeMarker has no limits of its own, and a Java thread cannot be stopped from outside. So work
 * that could run away runs on a worker thread: the caller waits, watches the worker's CPU time and
 * allocated bytes, and past a limit interrupts it (templates carry FreeMarker's interruption checks in
 * every loop and macro body, see {@code SandboxedConfiguration}) and returns at once. A worker stuck
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
        try {
            String earlier = refused.get(template); // again: another host may have met a limit meanwhile
            if (earlier != null) {
                throw new LimitExceeded(earlier);
            }
            Job<T> job = new Job<>(work);
            workers.execute(job);
            return job.await(template, place);
        } finally {
            place.giveUp(); // an abandoned worker no longer counts: the caller has left it
        }
    }

    /** One of the {@code computing} permits, given back once, by whoever gives it up first. */
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

        void giveUp() {
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

    /** The work on its worker, with what the caller needs to measure it. */
    private final class Job<T> implements Runnable {
        private final Work<T> work;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        private Thread worker;
        private boolean finished;
        private long startNanos;
        private long startCpu;
        private long startAllocated;

        Job(Work<T> work) {
            this.work = work;
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

        T await(Template template, Place place) throws freemarker.template.TemplateException, IOException, LimitExceeded {
            while (true) {
                try {
                    return result.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillRunning) {
                    String earlier = refused.get(template);
                    if (earlier != null) {
                        abandon(); // the same template ran away for another host
                        throw new LimitExceeded(earlier);
                    }
                    LimitExceeded over = overLimit();
                    if (over != null) {
                        abandon();
                        throw refuse(template, over);
                    }
                    if (waiting()) {
                        place.giveUp();
                    }
                } catch (ExecutionException e) {
                    throw rethrown(template, e.getCause());
                } catch (InterruptedException e) {
                    abandon();
                    Thread.currentThread().interrupt();
                    throw new LimitExceeded("interrupted");
                }
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
