package dev.provision.engine.exec;

import dev.provision.engine.connection.Connection;
import dev.provision.engine.connection.CountingConnection;
import dev.provision.engine.connection.EnvironmentConnection;
import dev.provision.engine.connection.TimeLimitedConnection;
import dev.provision.engine.connection.UnreachableException;
import dev.provision.engine.playbook.Expression;
import dev.provision.engine.playbook.Keyword;
import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.ShellWords;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a task is given on one host, in one place: whether its conditions hold, its loop's items and
 * their labels, its arguments rendered, whether it only plans, and the connection its commands run
 * on (the chain of the host's connection, become, {@code environment:}, counting and time limit is
 * built here and nowhere else).
 */
final class TaskInputs {
    private final PlayContext play;
    private final Connections connections;

    TaskInputs(PlayContext play, Connections connections) {
        this.play = play;
        this.connections = connections;
    }

    /** An item's variables and validated parameters; or its result, where it ends before it is planned. */
    record Item(Map<String, Object> vars, Params params, TaskResult settled) {
    }

    /**
     * What an item of {@code task} (its loop variable in {@code itemVars}; none outside a loop) is
     * given before it is planned: skipped where a {@code when:} is false, failed where its
     * {@code become_method} is not sudo or its arguments do not validate.
     */
    Item item(Task task, HostState host, TaskModule module, Map<String, Object> itemVars, String label, TaskStep step,
              int index) throws TemplateException {
        Map<String, Object> vars = play.varsFor(task, host, itemVars);
        Optional<Expression> skips = falseCondition(task, vars);
        if (skips.isPresent()) {
            return new Item(vars, null, TaskResult.simple(host.name(), TaskStatus.SKIPPED, "condition false: "
                    + skips.get().text()).withItemLabel(label));
        }
        if (task.keywords().get(Keyword.BECOME_METHOD).isPresent()) {
            Object method = play.templates.interpolate(task.keywords().get(Keyword.BECOME_METHOD).get(), vars, task.position());
            if (!"sudo".equals(String.valueOf(method).strip())) {
                return new Item(vars, null, ItemOutcome.failure(host, task, ItemOutcome.positioned(task, "become_method '"
                        + method + "' is not supported: become runs through sudo")).withItemLabel(label));
            }
        }
        try {
            return new Item(vars, step.render(host.name(), index, vars, v -> module.params().validate(arguments(task, module.params(), v))), null);
        } catch (ParamException e) {
            SourcePosition at = task.argPositions().getOrDefault(e.param(), task.position());
            return new Item(vars, null, ItemOutcome.failure(host, task, at + ": " + e.getMessage()).withItemLabel(label));
        }
    }

    /** The first of the task's {@code when:} conditions that is false here (the later ones are not evaluated). */
    Optional<Expression> falseCondition(Task task, Map<String, Object> vars) throws TemplateException {
        for (Expression when : task.when()) {
            if (!play.templates.test(when.text(), vars, when.position())) {
                return Optional.of(when);
            }
        }
        return Optional.empty();
    }

    /** The items of {@code task}'s loop on {@code host}, its expression evaluated or its list rendered. */
    List<?> loopItems(Task task, HostState host, Loop loop) throws TemplateException, LoopLookups.LookupException {
        Map<String, Object> vars = play.varsFor(task, host, Map.of());
        Object evaluated = loop.items() instanceof String s ? play.templates.evaluate(stripBraces(s), vars, loop.position())
                : play.templates.interpolate(loop.items(), vars, loop.position());
        return LoopLookups.items(loop, evaluated, task, play.playbookDirectory);
    }

    String itemLabel(Task task, HostState host, Loop loop, Object item) throws TemplateException {
        return loop.label().isEmpty() ? render(item) : String.valueOf(play.templates.interpolate(loop.label(),
                play.varsFor(task, host, Map.of(loop.loopVar(), item)), loop.position()));
    }

    /** The task's arguments with the free form mapped to its parameter and templates rendered. */
    Map<String, Object> arguments(Task task, ParamSpec spec, Map<String, Object> vars) throws TemplateException, ParamException {
        Set<String> bare = spec.expressions(); // evaluated by the module, not interpolated first
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : task.args().entrySet()) {
            String key = e.getKey();
            if (key.equals(Task.FREE_FORM)) {
                key = spec.freeForm().orElseThrow(() -> new ParamException(Task.FREE_FORM,
                        "module '" + task.module() + "' takes no free-form argument; give its parameters as a mapping"));
            }
            SourcePosition at = task.argPositions().getOrDefault(e.getKey(), task.position());
            Object value = bare.contains(key) ? e.getValue() : withoutOmitted(play.templates.interpolate(e.getValue(), vars, at));
            if (!PlayContext.OMIT.equals(value)) {
                out.put(key, value);
            }
        }
        return out;
    }

    /** A rendered value with the mapping entries that rendered to {@code omit} left out, at any depth (Ansible's remove_omit). */
    private static Object withoutOmitted(Object value) {
        return switch (value) {
            case Map<?, ?> m -> {
                Map<Object, Object> kept = new LinkedHashMap<>();
                m.forEach((k, v) -> {
                    if (!PlayContext.OMIT.equals(v)) {
                        kept.put(k, withoutOmitted(v));
                    }
                });
                yield kept;
            }
            case List<?> l -> l.stream().map(TaskInputs::withoutOmitted).toList();
            case null, default -> value;
        };
    }

    /**
     * The connection a task's commands run on for {@code host}, built here only: the host's (or
     * delegate's) connection with become, counted in {@code exchanges}, with the task's {@code environment:},
     * bounded by its time limit.
     */
    Connection connection(Task task, HostState host, Map<String, Object> vars,
                                      java.util.concurrent.atomic.AtomicInteger exchanges)
            throws TemplateException, UnreachableException {
        // Ansible's timeout: each item of a loop (with its until retries) gets the task's time limit.
        return timeLimited(task, play.options.taskTimeout(),
                EnvironmentConnection.of(CountingConnection.of(connections.forTask(task, play.play, host), exchanges),
                        environment(task, vars)));
    }

    /** {@code connection} bounded by {@code task}'s {@code timeout:}, else the run's {@code --task-timeout}; a saved plan's apply too. */
    static Connection timeLimited(Task task, Duration taskTimeout, Connection connection) {
        return TimeLimitedConnection.of(connection, task.timeoutSeconds().map(Duration::ofSeconds).orElse(taskTimeout),
                task.timeoutSeconds().map(s -> "timeout: " + s).orElse("--task-timeout " + taskTimeout.toSeconds()));
    }

    /** Whether {@code task}'s commands on {@code host} run as root (what a forecast of the files they make needs). */
    boolean runsAsRoot(Task task, HostState host) {
        return connections.runsAsRoot(task, play.play, host);
    }

    /**
     * The connection a cross-host round runs {@code task}'s commands on for {@code host}: the run's
     * connection with the task's become and {@code environment:}, as its own commands get; the round
     * bounds each command itself.
     */
    Connection launchConnection(Task task, HostState host) throws TemplateException, UnreachableException {
        Map<String, Object> vars = play.varsFor(task, host, Map.of());
        return EnvironmentConnection.of(connections.forTask(task, play.play, host), environment(task, vars));
    }

    /**
     * The task's {@code environment:} for this host: its layers (play, blocks, task) templated with the
     * task's variables and merged, a later layer's variable winning.
     */
    private Map<String, String> environment(Task task, Map<String, Object> vars) throws TemplateException {
        Map<String, String> merged = new LinkedHashMap<>();
        for (Object layer : task.keywords().get(Keyword.ENVIRONMENT)) {
            Object value = layer instanceof String expression
                    ? play.templates.evaluate(stripBraces(expression), vars, task.position())
                    : play.templates.interpolate(layer, vars, task.position());
            if (!(value instanceof Map<?, ?> variables)) {
                throw new TemplateException(task.position(), "'environment' must give a mapping of variable names "
                        + "to values, got " + describe(value));
            }
            for (Map.Entry<?, ?> e : variables.entrySet()) {
                String name = String.valueOf(e.getKey());
                if (!ShellWords.isName(name)) {
                    throw new TemplateException(task.position(), "'environment' names '" + name
                            + "', which is not an environment variable name (letters, digits and '_')");
                }
                Object v = e.getValue();
                if (v instanceof Map<?, ?> || v instanceof List<?>) {
                    throw new TemplateException(task.position(), "environment variable '" + name
                            + "' needs a single value, got " + describe(v));
                }
                merged.put(name, v == null ? "" : render(v));
            }
        }
        return merged;
    }

    /** Whether this task only plans: the run's {@code --check}, unless the task's {@code check_mode:} says otherwise. */
    boolean checkMode(Task task) {
        return task.checkMode().orElse(play.options.check());
    }

    private static String stripBraces(String s) {
        String t = s.strip();
        if (t.startsWith("${") && t.endsWith("}") && t.indexOf("${", 2) < 0) {
            return t.substring(2, t.length() - 1);
        }
        return t;
    }

    static String render(Object item) {
        return item instanceof Map<?, ?> || item instanceof List<?> ? String.valueOf(item) : String.valueOf(item);
    }

    private static String describe(Object o) {
        return o == null ? "nothing" : o instanceof Map ? "a mapping" : "'" + o + "'";
    }
}
