package dev.provision.engine.exec;

import dev.provision.engine.playbook.Task;
import dev.provision.engine.playbook.VarsFile;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.template.TemplateException;
import dev.provision.modules.spi.Expressions;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.Templates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** What a module sees of one task on one host: the host, templates, controller files, expressions. */
final class EngineTaskContext implements TaskContext {
    private final HostView host;
    private final PlayContext play;
    private final Task task;
    private final Map<String, Object> vars;
    private final TaskStep step;
    /** Whether the module asked for anything that reads variables (templates, expressions, the variables, the inventory). */
    private volatile boolean readsVariables;

    EngineTaskContext(HostView host, PlayContext play, Task task, Map<String, Object> vars, TaskStep step) {
        this.host = host;
        this.play = play;
        this.task = task;
        this.vars = vars;
        this.step = step;
    }

    @Override
    public <T> T sharedByAllHosts(Object key, Derivation<T> derivation) throws ModuleException {
        return step.shared(host.name(), key, derivation);
    }

    @Override
    public HostView host() {
        return host;
    }

    @Override
    public Templates templates() {
        readsVariables = true;
        return name -> {
            try {
                return play.templates.render(name, searchPath("templates"), vars);
            } catch (TemplateException e) {
                throw new ModuleException(e.getMessage(), e);
            }
        };
    }

    /** {@code templates/} (or {@code files/}) of the task's role or playbook, then the playbook's. */
    private List<Path> searchPath(String kind) {
        LinkedHashSet<Path> dirs = new LinkedHashSet<>();
        dirs.add(task.baseDirectory().resolve(kind).normalize());
        dirs.add(play.playbookDirectory.resolve(kind).normalize());
        return new ArrayList<>(dirs);
    }

    @Override
    public Path controllerFile(String name) throws ModuleException {
        List<Path> dirs = searchPath("files");
        dirs.add(task.baseDirectory());
        for (Path dir : dirs) {
            Path candidate = dir.resolve(name).normalize();
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new ModuleException(task.position() + ": file '" + name + "' not found; searched "
                + dirs.stream().map(Path::toString).collect(Collectors.joining(", ")));
    }

    @Override
    public Map<String, Object> controllerVars(String name) throws ModuleException {
        LinkedHashSet<Path> dirs = new LinkedHashSet<>(searchPath("vars"));
        dirs.add(task.baseDirectory());
        dirs.add(play.playbookDirectory);
        for (Path dir : dirs) {
            Path candidate = dir.resolve(name).normalize();
            if (Files.isRegularFile(candidate)) {
                try {
                    return VarsFile.read(candidate, VarsFile.Keys.VARIABLE_NAMES);
                } catch (InvalidInputException e) {
                    throw new ModuleException(e.getMessage(), e);
                }
            }
        }
        throw new ModuleException(task.position() + ": vars file '" + name + "' not found; searched "
                + dirs.stream().map(Path::toString).collect(Collectors.joining(", ")));
    }

    @Override
    public Expressions expressions() {
        readsVariables = true;
        return new Expressions() {
            @Override
            public boolean test(String expression) throws ModuleException {
                try {
                    return play.templates.test(expression, vars, task.position());
                } catch (TemplateException e) {
                    throw new ModuleException(e.getMessage(), e);
                }
            }

            @Override
            public Object value(String expression) throws ModuleException {
                try {
                    return play.templates.evaluate(expression, vars, task.position());
                } catch (TemplateException e) {
                    throw new ModuleException(e.getMessage(), e);
                }
            }
        };
    }

    /**
     * The task's variables, without {@code check_mode}: a module never learns whether it runs in a
     * dry run (templates the user writes may read it, as Ansible's {@code ansible_check_mode}).
     */
    @Override
    public Map<String, Object> variables() {
        readsVariables = true;
        return new WithoutCheckMode(vars);
    }

    /**
     * Whether the module asked for templates, expressions or variables (the inventory too): then its
     * plan may hang on other hosts' progress ({@code hostvars}, {@code play_hosts}), not on its
     * arguments and what it read of its host alone.
     */
    boolean readsVariables() {
        return readsVariables;
    }

    /** A view, not a copy: reading every variable could render ones the module never asks for. */
    private static final class WithoutCheckMode extends java.util.AbstractMap<String, Object> {
        private static final String HIDDEN = "check_mode";
        private final Map<String, Object> vars;

        WithoutCheckMode(Map<String, Object> vars) {
            this.vars = vars;
        }

        @Override
        public Object get(Object key) {
            return HIDDEN.equals(key) ? null : vars.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return !HIDDEN.equals(key) && vars.containsKey(key);
        }

        @Override
        public java.util.Set<Entry<String, Object>> entrySet() {
            return new java.util.AbstractSet<>() {
                @Override
                public java.util.Iterator<Entry<String, Object>> iterator() {
                    return vars.entrySet().stream().filter(e -> !HIDDEN.equals(e.getKey())).iterator();
                }

                @Override
                public int size() {
                    return vars.size() - (vars.containsKey(HIDDEN) ? 1 : 0);
                }
            };
        }
    }
}
