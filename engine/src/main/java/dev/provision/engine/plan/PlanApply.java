package dev.provision.engine.plan;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.connection.ConnectionFactory;
import dev.provision.engine.exec.Executor;
import dev.provision.engine.exec.FactCache;
import dev.provision.engine.exec.ModuleRegistry;
import dev.provision.engine.exec.PlanRecording;
import dev.provision.engine.exec.RunOptions;
import dev.provision.engine.exec.RunSummary;
import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.modules.text.ShellWords;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code --apply-plan}, once its header passed ({@link SavedPlans#verifyHeader}): a dry run on the
 * plan's hosts, read-only, must plan every step exactly as recorded ({@link SavedPlan#drift}); only
 * the hosts where it did get the changes, exactly those, applied from that dry run's recording
 * ({@link Executor#applyRecorded}: nothing is planned again). A host that moved is refused and left
 * untouched, with the command that makes a new plan for it.
 */
public final class PlanApply {
    /** What the apply came to, and the hosts refused because they moved (host to how). */
    public record Outcome(RunSummary summary, Map<String, String> drifted) {
    }

    private final ModuleRegistry modules;
    private final TemplateEngine templates;
    private final ConnectionFactory connections;
    private final RunOptions verify;
    private final char[] becomePassword;
    private final PrintStream out;
    private final RunListener listener;

    /**
     * @param verify the options of the verifying dry run (check mode), which the apply keeps (forks, time limit)
     * @param out where the verification's lines go (the hosts it could not reach, the ones that drifted)
     * @param listener the apply's output and reports
     */
    public PlanApply(ModuleRegistry modules, TemplateEngine templates, ConnectionFactory connections, RunOptions verify,
                     char[] becomePassword, PrintStream out, RunListener listener) {
        this.modules = requireNonNull(modules, "modules cannot be null");
        this.templates = requireNonNull(templates, "templates cannot be null");
        this.connections = requireNonNull(connections, "connections cannot be null");
        this.verify = requireNonNull(verify, "verify cannot be null");
        this.becomePassword = requireNonNull(becomePassword, "becomePassword cannot be null");
        this.out = requireNonNull(out, "out cannot be null");
        this.listener = requireNonNull(listener, "listener cannot be null");
        if (!verify.check()) {
            throw new IllegalArgumentException("a saved plan is verified by a dry run");
        }
    }

    /** Verifies {@code plan} (read from {@code file}) on {@code hosts} and applies it where it holds. */
    public Outcome apply(SavedPlan plan, Path file, Playbook book, Inventory inventory, List<String> hosts) throws InvalidInputException {
        out.println("Verifying " + file + " (made " + plan.header().created() + ") on " + hosts.size()
                + " host" + (hosts.size() == 1 ? "" : "s") + " with a dry run...");
        PlanRecording fresh = new PlanRecording();
        RunSummary verified = new Executor(modules, templates, connections, new SavedPlans.Unreachable(out), verify,
                FactCache.at(FactCache.defaultDirectory()), becomePassword).record(fresh).run(book, inventory);
        List<String> matching = new ArrayList<>();
        Map<String, String> drifted = new LinkedHashMap<>();
        Map<String, List<PlanRecording.Entry>> planned = fresh.entries();
        for (String host : hosts) {
            if (verified.unreachableHosts().contains(host)) {
                continue;
            }
            Optional<String> drift = plan.drift(host, planned.getOrDefault(host, List.of()));
            if (drift.isPresent()) {
                drifted.put(host, drift.get());
                out.println("drifted: [" + host + "] => " + drift.get() + "; left untouched");
            } else {
                matching.add(host);
            }
        }
        Executor applying = new Executor(modules, templates, connections, listener, verify, FactCache.none(), becomePassword);
        return new Outcome(SavedPlans.merge(applying.applyRecorded(fresh, matching, inventory), verified), drifted);
    }

    /** After the recap: which hosts were refused, and the command that makes and shows a new plan for them. */
    public static void printRefused(PrintStream out, SavedPlan plan, Path file, Map<String, String> drifted, SavedPlans.Hints hints)
            throws IOException {
        out.println();
        out.println("Refused, changed since the plan was made: " + String.join(", ", drifted.keySet())
                + ". Make and review a new plan for " + (drifted.size() == 1 ? "it" : "them") + ":");
        out.println("    " + ShellWords.join(SavedPlans.replanCommand(hints, plan, file, drifted.keySet())));
    }
}
