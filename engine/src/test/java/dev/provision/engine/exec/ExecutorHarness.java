package dev.provision.engine.exec;

import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.playbook.PlaybookLoader;
import dev.provision.engine.report.HumanOutput;
import dev.provision.engine.report.Listeners;
import dev.provision.engine.report.RunListener;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.template.TemplateEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Runs a playbook written in a test through the real executor, over {@link RecordingConnectionFactory}. */
final class ExecutorHarness {
    final RecordingConnectionFactory factory = new RecordingConnectionFactory();
    final List<TaskResult> results = Collections.synchronizedList(new ArrayList<>());
    /** Every progress and result event in order: {@code progress STEP DONE/TOTAL}, {@code result HOST STATUS}. */
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final ByteArrayOutputStream human = new ByteArrayOutputStream();
    /** Modules the run knows besides those on the class path: a test's own. */
    final List<dev.provision.modules.spi.TaskModule> extraModules = new ArrayList<>();
    /** Where the run's hosts are: the recording fakes unless a test sets other connections. */
    dev.provision.engine.connection.ConnectionFactory connections = factory;
    /** The fact cache the run reads and writes; none unless a test sets one. */
    FactCache factCache = FactCache.none();
    private final Path dir;

    ExecutorHarness(Path dir) {
        this.dir = dir;
    }

    RunSummary run(String playbook, String inventory, RunOptions options, char[] becomePassword) throws Exception {
        Path book = Files.writeString(dir.resolve("site.yml"), playbook);
        Path inv = Files.writeString(dir.resolve("inventory.yml"), inventory);
        ModuleRegistry modules = ModuleRegistry.load().with(extraModules);
        Playbook loaded = PlaybookLoader.load(book, modules);
        Inventory hosts = Inventory.load(List.of(inv.toString()), dir);
        RunListener recorder = new RunListener() {
            @Override
            public void hostResult(TaskResult result) {
                results.add(result);
                events.add("result " + result.host() + " " + result.status());
            }

            @Override
            public void progress(String step, int done, int total) {
                events.add("progress " + step + " " + done + "/" + total);
            }
        };
        RunListener listener = new Listeners(List.of(recorder,
                new HumanOutput(new PrintStream(human, true, StandardCharsets.UTF_8), false, true, 3)));
        TemplateEngine templates = new TemplateEngine(List.of());
        RunChecks.playbook(loaded, options, templates); // as the command line does before a run
        RunSummary summary = new Executor(modules, templates, connections, listener, options, factCache, becomePassword)
                .run(loaded, hosts);
        listener.recap(summary.stats(), "");
        return summary;
    }

    RunSummary run(String playbook, String inventory) throws Exception {
        return run(playbook, inventory, options(false), new char[0]);
    }

    static RunOptions options(boolean check) {
        return new RunOptions(check, true, Set.of(), Set.of(), 10, Map.of(), Optional.empty(), Optional.empty(), 3);
    }

    String humanOutput() {
        return human.toString(StandardCharsets.UTF_8);
    }
}
