package dev.provision.engine.exec;

import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.migrate.Jinja2;
import dev.provision.engine.playbook.Expression;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Playbook;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Suggestions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What can be refused before any host is contacted, in one place: {@code --syntax-check} runs
 * {@link #playbook}, a run runs {@link #playbook} and {@link #selection}. Every problem is reported
 * at once, each on its own line with file:line:column, so that a playbook that passes
 * {@code --syntax-check} is never refused later as invalid input.
 */
public final class RunChecks {
    private RunChecks() {
    }

    /**
     * Handlers named by {@code notify} exist (by name or {@code listen}), every expression and
     * template string parses, a play's host pattern is well formed (unless templated),
     * {@code --start-at-task} names a task.
     */
    public static void playbook(Playbook playbook, RunOptions options, TemplateEngine templates) throws InvalidInputException {
        List<String> problems = new ArrayList<>();
        for (Play play : playbook.plays()) {
            hostPattern(play, problems);
            handlers(play, problems);
            jinja(play.vars(), play.position(), problems);
            for (Task task : Executor.allTasks(play)) {
                expressions(task, templates, problems);
            }
        }
        startAtTask(playbook, options, problems);
        throwIfAny(problems);
    }

    /**
     * The run selects at least one host; {@code --limit} and {@code --replaced} name only what the
     * inventory has. A run that would contact nobody is a mistake, as {@code ansible-playbook} says
     * ("Specified hosts and/or --limit does not match any hosts"); a play that matches no host while
     * others do stays a warning.
     */
    public static void selection(Playbook playbook, Inventory inventory, RunOptions options, Set<String> replaced,
                                 TemplateEngine templates) throws InvalidInputException {
        List<String> problems = new ArrayList<>();
        Set<String> names = new TreeSet<>();
        inventory.hosts().forEach(h -> names.add(h.name()));
        Set<String> groupsAndHosts = new TreeSet<>(names);
        groupsAndHosts.addAll(inventory.groups().keySet());
        for (String host : replaced) {
            if (inventory.host(host).isEmpty()) {
                problems.add(SourcePosition.UNKNOWN + ": --replaced " + host + ": no such host in the inventory" + closest(host, names));
            }
        }
        int selected = 0;
        for (Play play : playbook.plays()) {
            selected += Executor.selectHosts(play, inventory, options, templates).size();
        }
        if (selected == 0 && problems.isEmpty()) {
            // the playbook's patterns, unless --limit narrowed them or -i named no host at all
            SourcePosition blamed = options.limit().isPresent() || names.isEmpty() || playbook.plays().isEmpty()
                    ? SourcePosition.UNKNOWN : playbook.plays().getFirst().hostsPosition();
            StringBuilder why = new StringBuilder(blamed + ": no host matches");
            List<String> patterns = new ArrayList<>();
            playbook.plays().forEach(p -> patterns.add("hosts: " + p.hosts()));
            why.append(' ').append(String.join(", ", new LinkedHashSet<>(patterns)));
            options.limit().ifPresent(l -> why.append(" with --limit ").append(l));
            Optional<String> unknown = unknownTerm(options.limit().orElse(""), inventory);
            if (unknown.isPresent()) {
                why.append(": the inventory has no host or group '").append(unknown.get()).append("'")
                        .append(closest(unknown.get(), groupsAndHosts));
            } else if (names.isEmpty()) {
                why.append(": the inventory has no hosts (is -i the right file?)");
            } else {
                why.append("; the inventory's groups: ").append(String.join(", ", new TreeSet<>(inventory.groups().keySet())));
            }
            problems.add(why.toString());
        }
        throwIfAny(problems);
    }

    /** The first plain term of {@code pattern} (no wildcard, regex or operator) that names nothing. */
    private static Optional<String> unknownTerm(String pattern, Inventory inventory) {
        for (String term : pattern.split("[:,]")) {
            String t = term.strip();
            if (t.startsWith("!") || t.startsWith("&")) {
                t = t.substring(1);
            }
            if (t.isEmpty() || t.equals("all") || t.startsWith("~") || t.contains("*") || t.contains("?")) {
                continue;
            }
            if (inventory.host(t).isEmpty() && !inventory.groups().containsKey(t)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    private static String closest(String typed, Set<String> candidates) {
        return Suggestions.closest(typed, candidates).map(s -> " (did you mean '" + s + "'?)").orElse("");
    }

    private static void hostPattern(Play play, List<String> problems) {
        if (play.hosts().contains("${")) {
            return; // checked once rendered, when the hosts are selected
        }
        try {
            Inventory.checkPattern(play.hosts());
        } catch (InvalidInputException e) {
            problems.add(play.hostsPosition() + ": " + e.problem());
        }
    }

    private static void handlers(Play play, List<String> problems) {
        Set<String> topics = new HashSet<>();
        for (Task h : play.handlers()) {
            if (!h.name().isEmpty()) {
                topics.add(h.name());
            }
            topics.addAll(h.listen());
        }
        for (Task t : Executor.allTasks(play)) {
            for (String n : t.notifies()) {
                if (!topics.contains(n)) {
                    problems.add(t.position() + ": notify names no handler '" + n + "'" + closest(n, topics)
                            + (topics.isEmpty() ? "; this play has no handlers" : "; handlers of this play: " + String.join(", ", new TreeSet<>(topics))));
                }
            }
        }
    }

    private static void expressions(Task task, TemplateEngine templates, List<String> problems) {
        List<Expression> bare = new ArrayList<>(task.when());
        task.changedWhen().ifPresent(bare::add);
        task.failedWhen().ifPresent(bare::add);
        task.until().ifPresent(bare::add);
        for (var arg : task.args().entrySet()) {
            jinja(arg.getValue(), task.argPositions().getOrDefault(arg.getKey(), task.position()), problems);
        }
        task.loop().ifPresent(loop -> jinja(loop.items(), loop.position(), problems));
        // values templated at run time: a Jinja2 one would reach the host (or the module) word for word
        task.keywords().get(Keyword.ENVIRONMENT).forEach(layer -> jinja(layer, task.position(), problems));
        jinja(task.vars(), task.position(), problems);
        for (Expression e : bare) {
            if (Jinja2.isCondition(e.text())) {
                String translated = Jinja2.condition(e.text().replaceAll("^\\s*\\{\\{(.*)\\}\\}\\s*$", "$1")).orElse("");
                String what = Jinja2.jinjaOnly(e.text()).map(w -> " (" + w + ")").orElse("");
                problems.add(e.position() + ": '" + e.text().strip() + "' is Jinja2" + what + "; conditions are FreeMarker expressions"
                        + (translated.isEmpty() ? " (see the README, Coming from Ansible)" : ": " + translated)
                        + "; provision migrate FILE rewrites a playbook");
                continue;
            }
            try {
                templates.parseExpression(e.text(), e.position());
            } catch (TemplateException failure) {
                problems.add(failure.getMessage());
            }
        }
        for (var arg : task.args().entrySet()) {
            try {
                templates.parse(arg.getValue(), task.argPositions().getOrDefault(arg.getKey(), task.position()));
            } catch (TemplateException failure) {
                problems.add(failure.getMessage());
            }
        }
        task.loop().ifPresent(loop -> {
            try {
                templates.parse(loop.items(), loop.position());
            } catch (TemplateException failure) {
                problems.add(failure.getMessage());
            }
        });
    }

    /**
     * A Jinja2 template in a value would reach the host word for word ({@code /srv/{{ item }}} as a
     * directory name): refuse it with its FreeMarker translation where there is one.
     */
    private static void jinja(Object value, SourcePosition where, List<String> problems) {
        switch (value) {
            case String text when Jinja2.isTemplate(text) -> {
                Optional<String> translated = Jinja2.template(text);
                problems.add(where + ": \"" + text.strip() + "\" is Jinja2, which provision does not evaluate (it would be used"
                        + " as written); provision's expressions are FreeMarker"
                        + translated.map(t -> ": \"" + t.strip() + "\"").orElse(" (see the README, Coming from Ansible)")
                        + "; provision migrate FILE rewrites a playbook");
            }
            case java.util.Map<?, ?> map -> map.values().forEach(v -> jinja(v, where, problems));
            case List<?> list -> list.forEach(v -> jinja(v, where, problems));
            case null, default -> {
            }
        }
    }

    /** {@code --start-at-task} naming no task would silently run nothing. */
    private static void startAtTask(Playbook playbook, RunOptions options, List<String> problems) {
        if (options.startAtTask().isEmpty()) {
            return;
        }
        String wanted = options.startAtTask().get();
        Set<String> names = new TreeSet<>();
        for (Play play : playbook.plays()) {
            for (Task t : Executor.tasksOf(play)) {
                if (t.name().equals(wanted) || t.displayName().equals(wanted)) {
                    return;
                }
                names.add(t.displayName());
            }
        }
        problems.add(SourcePosition.UNKNOWN + ": --start-at-task: no task named '" + wanted + "'" + closest(wanted, names)
                + "; see the names with --list-tasks");
    }

    private static void throwIfAny(List<String> problems) throws InvalidInputException {
        if (problems.isEmpty()) {
            return;
        }
        // A task that two plays share (a role) is checked once per play: say it once.
        problems = List.copyOf(new LinkedHashSet<>(problems));
        // One problem keeps its one-line form; several are one per line, each with its position.
        String first = problems.getFirst();
        String message = problems.size() == 1 ? first : problems.size() + " problems:\n  " + String.join("\n  ", problems);
        throw new Reported(message);
    }

    /** Problems already prefixed with their positions. */
    private static final class Reported extends InvalidInputException {
        private final String message;

        Reported(String message) {
            super(SourcePosition.UNKNOWN, message);
            this.message = message;
        }

        @Override
        public String getMessage() {
            return message;
        }
    }
}
