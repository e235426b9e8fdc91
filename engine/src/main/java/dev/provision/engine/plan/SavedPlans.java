package dev.provision.engine.plan;

import dev.provision.engine.exec.PlanRecording;
import dev.provision.engine.exec.RunOptions;
import dev.provision.engine.exec.RunSummary;
import dev.provision.engine.inventory.Host;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.report.HostStats;
import dev.provision.engine.report.HumanOutput;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Saved plans around the file: written after a recorded dry run, shown, and the checks before an
 * apply (made by this version, not too old, from the same playbook, inventory and {@code -e}
 * values; which hosts). The apply itself is {@link PlanApply}.
 */
public final class SavedPlans {
    private SavedPlans() {
    }

    /**
     * What the commands a user is told to run next start with: how provision was invoked, and what
     * stands for {@code -e} values, which are never repeated in a hint (they may hold secrets).
     */
    public record Hints(String launcher, String hiddenVars) {
    }

    /** Where the apply takes the playbook and the inventory from: the plan's own. */
    public record Applicable(Path playbook, List<String> inventory) {
    }

    /** Writes the plan of a recorded dry run; returns what to tell the user once the recap is printed. */
    public static List<String> save(Path file, PlanRecording recording, RunSummary summary, Path playbook, List<String> inventory,
                                    RunOptions options, String version, Hints hints) throws IOException, InvalidInputException {
        List<String> sources = inventory.stream().map(s -> Files.exists(Path.of(s)) ? Path.of(s).toAbsolutePath().toString() : s).toList();
        Set<String> planned = recording.entries().keySet();
        // in inventory order, as the recap lists them
        List<String> hosts = summary.stats().keySet().stream().filter(planned::contains)
                .filter(h -> !summary.unreachableHosts().contains(h)).toList();
        SavedPlan.Header header = new SavedPlan.Header(version, Instant.now(),
                playbook.toAbsolutePath().toString(), Sources.playbook(playbook), sources, Sources.inventory(sources), hosts,
                List.copyOf(options.tags()), List.copyOf(options.skipTags()), Sources.extraVars(options.extraVars()), SavedPlan.newSalt());
        for (Map.Entry<String, List<PlanRecording.Entry>> e : recording.entries().entrySet()) {
            for (PlanRecording.Entry entry : e.getValue()) {
                if (!entry.ranForReal() && !entry.changes().isEmpty() && recording.setsEnvironment(entry)) {
                    throw new InvalidInputException(new SourcePosition(file.toString(), 0, 0), "cannot save this plan: task '"
                            + entry.step().task() + "' (" + entry.step().position() + ") on " + e.getKey() + " sets environment:, "
                            + "which an applied plan does not carry yet, so its commands would run without it; apply without "
                            + "a saved plan, or set the variables another way (the program's own options or files)");
                }
                if (!entry.ranForReal() && dev.provision.engine.exec.RunTimeOutput.in(entry.changes())) {
                    throw new InvalidInputException(new SourcePosition(file.toString(), 0, 0), "cannot save this plan: task '"
                            + entry.step().task() + "' (" + entry.step().position() + ") on " + e.getKey() + " uses the output "
                            + "of a program the dry run did not run, so the run would not do what the plan shows; give that "
                            + "program's task 'check_mode: false' (it then runs in the dry run: read-only commands only) "
                            + "or apply without a saved plan");
                }
            }
        }
        SavedPlan plan = SavedPlan.of(header, recording);
        try {
            plan.write(file);
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(file.toString(), 0, 0), "cannot write the plan: " + e.getMessage(), e);
        }
        int changes = 0;
        int changing = 0;
        for (List<SavedPlan.Step> steps : plan.hosts().values()) {
            int mine = steps.stream().filter(s -> !s.ranForReal()).mapToInt(s -> s.changes().size()).sum();
            changes += mine;
            changing += mine > 0 ? 1 : 0;
        }
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("Saved the plan to " + file + ": " + changes + " change" + (changes == 1 ? "" : "s") + " on " + changing + " of "
                + hosts.size() + " host" + (hosts.size() == 1 ? "" : "s") + ".");
        if (!plan.failedHosts().isEmpty()) {
            lines.add("Failed in the dry run, so never applied from this plan: " + String.join(", ", plan.failedHosts()));
        }
        lines.add("Review it:  " + ShellWords.join(List.of(hints.launcher(), "--show-plan", file.toString())));
        lines.add("Apply it:   " + ShellWords.join(applyCommand(hints, file, header)));
        return lines;
    }

    private static List<String> applyCommand(Hints hints, Path file, SavedPlan.Header header) throws IOException {
        List<String> words = new ArrayList<>(List.of(hints.launcher(), "--apply-plan", file.toString()));
        if (!header.extraVarsSha256().equals(Sources.extraVars(Map.of()))) {
            words.addAll(List.of("-e", hints.hiddenVars()));
        }
        return words;
    }

    /**
     * Refuses a plan that cannot be applied as it is: made by another provision, too old, or from a
     * playbook, inventory or extra variables that are not the ones it was made from.
     */
    public static Applicable verifyHeader(SavedPlan plan, Path file, Path playbook, List<String> inventory, Map<String, Object> extraVars,
                                          Duration maxAge, String version) throws InvalidInputException, IOException {
        SavedPlan.Header h = plan.header();
        SourcePosition at = new SourcePosition(file.toString(), 0, 0);
        if (!h.version().equals(version)) {
            throw new InvalidInputException(at, "was made by " + h.version() + ", this is " + version
                    + "; make and review a new plan with this version (--check --save-plan)");
        }
        Duration age = Duration.between(h.created(), Instant.now());
        if (age.compareTo(maxAge) > 0) {
            throw new InvalidInputException(at, "was made " + age.toHours() + " h ago, more than --max-plan-age " + maxAge.toHours()
                    + " h; make and review a new plan (or raise --max-plan-age)");
        }
        Path book = Path.of(h.playbook());
        if (playbook != null && !playbook.toAbsolutePath().normalize().equals(book.normalize())) {
            throw new InvalidInputException(at, "was made for the playbook " + book + ", not " + playbook + "; leave the playbook out");
        }
        if (!inventory.isEmpty() && !inventory.stream().map(s -> Files.exists(Path.of(s)) ? Path.of(s).toAbsolutePath().toString() : s)
                .toList().equals(h.inventory())) {
            throw new InvalidInputException(at, "was made with -i " + String.join(" -i ", h.inventory()) + "; leave -i out");
        }
        if (!Files.isRegularFile(book) || !Sources.playbook(book).equals(h.playbookSha256())) {
            throw new InvalidInputException(at, "the playbook " + book + " (or its roles, templates or vars) changed since the plan"
                    + " was made; make and review a new plan");
        }
        if (!Sources.inventory(h.inventory()).equals(h.inventorySha256())) {
            throw new InvalidInputException(at, "the inventory " + String.join(", ", h.inventory()) + " changed since the plan was made;"
                    + " make and review a new plan");
        }
        if (!Sources.extraVars(extraVars).equals(h.extraVarsSha256())) {
            throw new InvalidInputException(at, "was made with other -e values than these; give the same -e values as for --save-plan");
        }
        return new Applicable(book, h.inventory());
    }

    /** The plan's hosts that may be applied, narrowed by {@code --limit}; never more than the plan has. */
    public static List<String> hostsToApply(SavedPlan plan, Inventory inventory, Optional<String> limit, Path file) throws InvalidInputException {
        Set<String> hosts = new LinkedHashSet<>(plan.header().hosts());
        hosts.removeAll(plan.failedHosts());
        if (limit.isPresent()) {
            Set<String> limited = new LinkedHashSet<>();
            for (Host h : inventory.select(limit.get())) {
                limited.add(h.name());
            }
            hosts.retainAll(limited);
        }
        if (hosts.isEmpty()) {
            throw new InvalidInputException(new SourcePosition(file.toString(), 0, 0), "has no host to apply"
                    + (limit.isPresent() ? " within --limit " + limit.get() : "") + " (its hosts: " + String.join(", ", plan.header().hosts())
                    + (plan.failedHosts().isEmpty() ? "" : "; failed in its dry run: " + String.join(", ", plan.failedHosts())) + ")");
        }
        return List.copyOf(hosts);
    }

    /** The command that makes a new plan for the hosts that moved. */
    static List<String> replanCommand(Hints hints, SavedPlan plan, Path file, Collection<String> hosts) throws IOException {
        List<String> words = new ArrayList<>(List.of(hints.launcher()));
        for (String source : plan.header().inventory()) {
            words.addAll(List.of("-i", source));
        }
        if (!plan.header().tags().isEmpty()) {
            words.addAll(List.of("--tags", String.join(",", plan.header().tags())));
        }
        if (!plan.header().skipTags().isEmpty()) {
            words.addAll(List.of("--skip-tags", String.join(",", plan.header().skipTags())));
        }
        if (!plan.header().extraVarsSha256().equals(Sources.extraVars(Map.of()))) {
            words.addAll(List.of("-e", hints.hiddenVars()));
        }
        words.addAll(List.of("--limit", String.join(",", hosts), "--check", "--diff", "--save-plan", file.toString(), plan.header().playbook()));
        return words;
    }

    /** The apply's counters, with the hosts its dry run could not reach. */
    static RunSummary merge(RunSummary applied, RunSummary verified) {
        Map<String, HostStats> stats = new LinkedHashMap<>(applied.stats());
        List<String> unreachable = new ArrayList<>(applied.unreachableHosts());
        for (String host : verified.unreachableHosts()) {
            HostStats s = new HostStats();
            s.count(TaskStatus.UNREACHABLE);
            stats.putIfAbsent(host, s);
            unreachable.add(host);
        }
        return new RunSummary(stats, applied.failedHosts(), unreachable, applied.interrupted());
    }

    /** {@code --show-plan}: the plan as the dry run's {@code --diff} output showed it. */
    public static void show(SavedPlan plan, Path file, PrintStream out, Hints hints) throws IOException {
        SavedPlan.Header h = plan.header();
        out.println("Plan " + file + ": made " + h.created() + " by " + h.version() + " from " + h.playbook()
                + " with -i " + String.join(" -i ", h.inventory()));
        HumanOutput human = new HumanOutput(out, false, true, 0);
        human.playStarted("saved plan", h.hosts(), true);
        Map<PlanRecording.Step, List<TaskResult>> byStep = new LinkedHashMap<>();
        for (String host : plan.hosts().keySet()) {
            for (Map.Entry<PlanRecording.Step, TaskResult> e : plan.forDisplay(host)) {
                byStep.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
            }
        }
        byStep.forEach((step, results) -> {
            human.taskStarted(step.task(), step.position(), step.handler());
            results.forEach(human::hostResult);
        });
        out.println();
        out.println("Apply it:   " + ShellWords.join(applyCommand(hints, file, h)));
    }

    /** The apply's dry run prints nothing but the hosts it could not reach. */
    static final class Unreachable implements RunListener {
        private final PrintStream out;

        Unreachable(PrintStream out) {
            this.out = out;
        }

        @Override
        public void hostResult(TaskResult result) {
            if (result.status() == TaskStatus.UNREACHABLE) {
                out.println("unreachable: [" + result.host() + "] => " + result.message());
            }
        }
    }
}
