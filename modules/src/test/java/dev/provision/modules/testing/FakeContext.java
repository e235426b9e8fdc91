package dev.provision.modules.testing;

import dev.provision.modules.spi.Expressions;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.Templates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A task context for tests: templates are a map of name to rendered text, controller files live
 * under a temporary directory, and expressions are a map of expression to value ({@link
 * Expressions#test} wants a Boolean there). An expression that is not in the map is "undefined".
 */
public final class FakeContext implements TaskContext {
    private final FakeHost host;
    private final Path controllerDirectory;
    private final Map<String, String> templates = new HashMap<>();
    private final Map<String, Object> expressions = new HashMap<>();
    private final Map<String, Object> variables = new LinkedHashMap<>();
    private final Map<String, Map<String, Object>> varsFiles = new HashMap<>();

    public FakeContext(FakeHost host, Path controllerDirectory) {
        this.host = host;
        this.controllerDirectory = controllerDirectory;
    }

    public FakeContext template(String name, String rendered) {
        templates.put(name, rendered);
        return this;
    }

    public FakeContext controllerFile(String name, byte[] content) {
        try {
            Path file = controllerDirectory.resolve(name);
            Files.createDirectories(file.getParent());
            Files.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FakeContext controllerFile(String name, String content) {
        return controllerFile(name, content.getBytes(StandardCharsets.UTF_8));
    }

    /** A vars file {@link #controllerVars} finds, with its mapping. */
    public FakeContext varsFile(String name, Map<String, Object> content) {
        varsFiles.put(name, Map.copyOf(content));
        return this;
    }

    public FakeContext expression(String expression, Object value) {
        expressions.put(expression, value);
        return this;
    }

    public FakeContext variable(String name, Object value) {
        variables.put(name, value);
        return this;
    }

    @Override
    public HostView host() {
        return host;
    }

    @Override
    public Templates templates() {
        return name -> {
            String rendered = templates.get(name);
            if (rendered == null) {
                throw new ModuleException("template " + name + " not found");
            }
            return rendered;
        };
    }

    @Override
    public Map<String, Object> controllerVars(String name) throws ModuleException {
        Map<String, Object> content = varsFiles.get(name);
        if (content == null) {
            throw new ModuleException("vars file '" + name + "' not found");
        }
        return content;
    }

    @Override
    public Path controllerFile(String name) throws ModuleException {
        Path file = controllerDirectory.resolve(name);
        if (!Files.exists(file)) {
            throw new ModuleException("could not find " + name + " in " + controllerDirectory);
        }
        return file;
    }

    @Override
    public Expressions expressions() {
        return new Expressions() {
            @Override
            public boolean test(String expression) throws ModuleException {
                if (value(expression) instanceof Boolean b) {
                    return b;
                }
                throw new ModuleException("expression " + expression + " is not a boolean");
            }

            @Override
            public Object value(String expression) throws ModuleException {
                if (!expressions.containsKey(expression)) {
                    throw new ModuleException("undefined: " + expression);
                }
                return expressions.get(expression);
            }
        };
    }

    @Override
    public Map<String, Object> variables() {
        return Map.copyOf(variables);
    }
}
