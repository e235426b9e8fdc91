package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.ConnectionException;
import dev.provision.engine.connection.ExecRequest;
import dev.provision.engine.connection.ExecResult;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.CrossHostCheck;
import dev.provision.modules.spi.CrossHostTransfer;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Round;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The one place where the engine runs what is an act of several hosts at once, a check
 * ({@link CrossHostCheck}) or a transfer ({@link CrossHostTransfer}, only when the task applies): asks
 * the module for a round, starts every launch of it at the same time
 * over the hosts' own connections (a virtual thread each: the ranks of a gang must all be running,
 * whatever {@code --forks} says), ends what runs past the round's deadline, hands the answers back,
 * and merges the module's conclusion into each host's result. A host lost during a round is
 * unreachable, as it would be in any task. A launch may take its input from a command on the
 * controller ({@link Round.Feed}, streamed over the host's connection) and may name a progress probe:
 * while a round runs, the progress line says what the cluster received so far and how fast.
 */
final class CrossHostRounds {
    private final BatchRun batch;
    private final Task task;

    CrossHostRounds(BatchRun batch, Task task) {
        this.batch = batch;
        this.task = task;
    }

    /** The module of {@code task} when it moves data across hosts after they planned (no loop). */
    static Optional<CrossHostTransfer> transferOf(ModuleRegistry modules, Task task) {
        return task.loop().isEmpty() && modules.module(task.module()).orElseThrow() instanceof CrossHostTransfer t
                ? Optional.of(t) : Optional.empty();
    }

    /**
     * Runs the transfer's rounds over the hosts that planned, then returns every host's result with
     * its outcome: a host that did not reach what its plan promised fails, one lost is unreachable.
     */
    Map<HostState, TaskResult> runTransfer(CrossHostTransfer transfer, Map<HostState, TaskResult> results) {
        Map<String, HostState> hosts = new LinkedHashMap<>();
        results.keySet().forEach(h -> hosts.put(h.name(), h));
        Map<String, TaskResult> byName = LinearStrategy.byName(results);
        Map<String, Map<String, Object>> outputs = new LinkedHashMap<>();
        byName.forEach((host, r) -> {
            if ((r.status() == TaskStatus.OK || r.status() == TaskStatus.CHANGED) && !r.output().isEmpty()) {
                outputs.put(host, r.output());
            }
        });
        if (outputs.isEmpty()) {
            return results;
        }
        List<Round.Outcome> done = new ArrayList<>();
        Map<String, String> lost = new LinkedHashMap<>();
        for (int n = 0; n < CrossHostTransfer.MAX_ROUNDS && !batch.stopRequested(); n++) {
            Optional<Round> next = transfer.nextRound(outputs, List.copyOf(done));
            if (next.isEmpty()) {
                break;
            }
            done.add(run(next.get(), hosts, lost));
        }
        Map<String, TaskResult> merged = new LinkedHashMap<>(byName);
        transfer.conclude(outputs, List.copyOf(done)).forEach((host, outcome) -> merged.computeIfPresent(host, (h, r) -> {
            Map<String, Object> output = new LinkedHashMap<>(r.output());
            output.putAll(outcome.values());
            TaskResult.Builder b = r.toBuilder().output(output);
            if (!outcome.message().isEmpty()) {
                b.message(outcome.message());
            }
            if (outcome.failure().isPresent()) {
                output.put("failed", true);
                b.output(output).status(task.ignoreErrors() ? TaskStatus.IGNORED : TaskStatus.FAILED).message(outcome.failure().get());
            }
            return b.build();
        }));
        lost.forEach((host, why) -> merged.computeIfPresent(host, (h, r) -> r.withStatus(TaskStatus.UNREACHABLE).withMessage(why)));
        return LinearStrategy.updated(task, results, merged);
    }

    /** The module of {@code task} when it runs rounds across hosts after they ran it (no loop). */
    static Optional<CrossHostCheck> of(ModuleRegistry modules, Task task) {
        return task.loop().isEmpty() && modules.module(task.module()).orElseThrow() instanceof CrossHostCheck c
                ? Optional.of(c) : Optional.empty();
    }

    /** Runs the check's rounds over the hosts that planned, then returns every host's result with the findings merged. */
    Map<HostState, TaskResult> runCheck(CrossHostCheck check, Map<HostState, TaskResult> results) {
        Map<String, HostState> hosts = new LinkedHashMap<>();
        results.keySet().forEach(h -> hosts.put(h.name(), h));
        Map<String, TaskResult> byName = LinearStrategy.byName(results);
        Map<String, Map<String, Object>> outputs = FleetRows.outputs(byName);
        if (outputs.isEmpty()) {
            return results;
        }
        List<Round.Outcome> done = new ArrayList<>();
        Map<String, String> lost = new LinkedHashMap<>();
        for (int n = 0; n < CrossHostCheck.MAX_ROUNDS && !batch.stopRequested(); n++) {
            Optional<Round> next = check.nextRound(outputs, List.copyOf(done));
            if (next.isEmpty()) {
                break;
            }
            done.add(run(next.get(), hosts, lost));
        }
        Map<String, TaskResult> merged = new LinkedHashMap<>(
                FleetRows.merge(byName, check.conclude(outputs, List.copyOf(done)), task.ignoreErrors()));
        lost.forEach((host, why) -> merged.computeIfPresent(host, (h, r) -> r.withStatus(TaskStatus.UNREACHABLE).withMessage(why)));
        return LinearStrategy.updated(task, results, merged);
    }

    private Round.Outcome run(Round round, Map<String, HostState> hosts, Map<String, String> lost) {
        Map<String, List<Future<Round.Answer>>> running = new LinkedHashMap<>();
        String step = task.displayName() + ": " + round.name();
        int launches = round.gangs().stream().mapToInt(g -> g.launches().size()).sum();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Round.Gang gang : round.gangs()) {
                List<Future<Round.Answer>> answers = new ArrayList<>();
                for (Round.Launch launch : gang.launches()) {
                    answers.add(threads.submit(() -> launch(round, launch, hosts.get(launch.host()), lost)));
                }
                running.put(gang.id(), answers);
            }
            Future<?> sampler = threads.submit(() -> sample(step, round, running, hosts));
            Map<String, List<Round.Answer>> answers = new LinkedHashMap<>();
            running.forEach((id, futures) -> {
                List<Round.Answer> gangAnswers = new ArrayList<>();
                for (Future<Round.Answer> f : futures) {
                    gangAnswers.add(await(f));
                }
                answers.put(id, gangAnswers);
            });
            sampler.cancel(true);
            synchronized (this) {
                batch.listener.progress(step, round.gangs().size(), round.gangs().size());
            }
            return new Round.Outcome(round, answers);
        }
    }

    /** How often a round's progress probes run: every 2 s, less often on many hosts (about 200 probes a second at most). */
    private static long sampleMillis(int probes) {
        return Math.max(2000, probes * 5L);
    }

    /**
     * While the round runs, the progress line with what its launches received so far, summed over
     * the cluster, and the rate: each running launch's progress probe ({@link Round.Launch#progress()})
     * over its host's connection, all at once. Only for rounds whose launches have one.
     */
    private void sample(String step, Round round, Map<String, List<Future<Round.Answer>>> running, Map<String, HostState> hosts) {
        List<Round.Launch> probed = round.gangs().stream().flatMap(g -> g.launches().stream()).filter(l -> !l.progress().isEmpty()).toList();
        if (probed.isEmpty()) {
            return;
        }
        List<Future<Round.Answer>> all = running.values().stream().flatMap(List::stream).toList();
        Map<String, Future<Round.Answer>> byHost = new LinkedHashMap<>();
        running.forEach((id, futures) -> {
            List<Round.Launch> gang = round.gangs().stream().filter(g -> g.id().equals(id)).findFirst().orElseThrow().launches();
            for (int i = 0; i < gang.size(); i++) {
                byHost.put(gang.get(i).host(), futures.get(i));
            }
        });
        TransferRate rate = new TransferRate(System.nanoTime());
        try (ExecutorService probes = Executors.newVirtualThreadPerTaskExecutor()) {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(sampleMillis(probed.size()));
                List<Future<?>> reads = new ArrayList<>();
                for (Round.Launch launch : probed) {
                    HostState host = hosts.get(launch.host());
                    if (host == null || host.unreachable() || byHost.get(launch.host()).isDone()) {
                        continue;
                    }
                    reads.add(probes.submit(() -> {
                        try {
                            ExecResult r = batch.runner.inputs.launchConnection(task, host)
                                    .exec(ExecRequest.argv(launch.progress()).withTimeout(PROBE_TIMEOUT));
                            TransferRate.parse(r.stdoutText()).ifPresent(v -> {
                                synchronized (rate) {
                                    rate.record(launch.host(), v[0], v[1]);
                                }
                            });
                        } catch (ConnectionException | TemplateException e) {
                            // a reading missed: the line shows the others; the launch's own answer says what went wrong
                        }
                    }));
                }
                for (Future<?> read : reads) {
                    read.get();
                }
                long done = all.stream().filter(Future::isDone).count();
                String line;
                synchronized (rate) {
                    line = rate.line(System.nanoTime());
                }
                synchronized (this) {
                    batch.listener.progress(step, (int) done, all.size(), line);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the round ended
        } catch (ExecutionException e) {
            // a probe's thread failed unexpectedly: no more readings this round
        }
    }

    private static final java.time.Duration PROBE_TIMEOUT = java.time.Duration.ofSeconds(10);

    private Round.Answer launch(Round round, Round.Launch launch, HostState host, Map<String, String> lost) {
        if (host == null || host.unreachable()) {
            return answer(launch, Round.Status.UNREACHABLE, "not reachable before " + round.name());
        }
        ControllerFeed feed = null;
        try {
            Connection connection = batch.runner.inputs.launchConnection(task, host);
            ExecRequest request = ExecRequest.argv(launch.argv()).withTimeout(round.deadline());
            if (launch.feed().present()) {
                try {
                    feed = ControllerFeed.start(launch.feed());
                } catch (java.io.IOException e) {
                    return answer(launch, Round.Status.EXITED, "controller: cannot start " + launch.feed().argv().get(0) + ": " + e.getMessage());
                }
                request = request.withStdinFile(feed.stream());
            }
            ExecResult r = connection.exec(request);
            String stderr = r.stderrText();
            if (feed != null) {
                String said = feed.finish();
                stderr = said.isEmpty() ? stderr : stderr + (stderr.isEmpty() || stderr.endsWith("\n") ? "" : "\n") + said + "\n";
            }
            return new Round.Answer(launch, Round.Status.EXITED, new ProbeResult(r.exitCode(), r.stdoutText(), stderr));
        } catch (UnreachableException e) {
            synchronized (lost) {
                lost.put(launch.host(), e.getMessage());
            }
            host.markUnreachable();
            return answer(launch, Round.Status.UNREACHABLE, e.getMessage());
        } catch (ConnectionException e) {
            // The connection's time limit killed the command (with its process group); the host answered.
            return answer(launch, Round.Status.TIMED_OUT, e.getMessage());
        } catch (TemplateException e) {
            return answer(launch, Round.Status.EXITED, e.getMessage());
        } finally {
            if (feed != null) {
                feed.close();
            }
        }
    }

    private static Round.Answer answer(Round.Launch launch, Round.Status status, String why) {
        return new Round.Answer(launch, status, new ProbeResult(-1, "", why));
    }

    private static Round.Answer await(Future<Round.Answer> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a cross-host round ran", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a cross-host launch failed: " + e.getCause(), e.getCause());
        }
    }
}
