package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplateEngineSandboxTest {
    private static final SourcePosition WHERE = new SourcePosition("playbooks/site.yml", 5, 7);

    @TempDir
    Path workspace;

    private final TemplateEngine engine = new TemplateEngine(List.of());

    @Test
    void newBuiltInCannotInstantiateExecute() {
        TemplateException error = assertThrows(TemplateException.class, () -> engine.interpolate(
                "${\"freemarker.template.utility.Execute\"?new()(\"id\")}", Map.of(), WHERE));

        assertTrue(error.getMessage().startsWith("playbooks/site.yml:5:7: "), error.getMessage());
        assertTrue(error.getMessage().contains("?new is not available"), error.getMessage());
        assertFalse(error.getMessage().contains("uid="), error.getMessage());
    }

    @Test
    void newBuiltInIsRefusedInTemplateFiles() throws Exception {
        Files.writeString(workspace.resolve("a.ftl"),
                "<#assign ex = \"freemarker.template.utility.ObjectConstructor\"?new()>${ex(\"java.io.File\", \"/\")}");
        TemplateEngine files = new TemplateEngine(List.of(workspace));

        TemplateException error = assertThrows(TemplateException.class, () -> files.render("a.ftl", List.of(), Map.of()));

        assertEquals(workspace.resolve("a.ftl") + ":1:1: ?new is not available: templates cannot create Java objects "
                + "(here freemarker.template.utility.ObjectConstructor)", error.getMessage());
    }

    @Test
    void apiBuiltInIsRefused() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("${m?api.size()}", Map.of("m", Map.of("a", 1)), WHERE));

        assertTrue(error.getMessage().startsWith("playbooks/site.yml:5:7: ?api is not available"), error.getMessage());
    }

    @Test
    void javaObjectsInVariablesAreNotExposed() {
        Map<String, Object> vars = Map.of("builder", new StringBuilder("abc"));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("${builder.reverse()}", vars, WHERE));

        assertTrue(error.getMessage().contains("java.lang.StringBuilder cannot be used in a template"), error.getMessage());
    }

    @Test
    void javaMethodsOfPlainValuesCannotBeCalled() {
        Map<String, Object> vars = Map.of("name", "node1", "m", Map.of("a", 1));

        assertThrows(TemplateException.class, () -> engine.evaluate("name.length()", vars, WHERE));
        assertThrows(TemplateException.class, () -> engine.evaluate("m.getClass()", vars, WHERE));
        assertThrows(TemplateException.class, () -> engine.evaluate("m.size()", vars, WHERE));
    }

    @Test
    void includeIsNotAvailableInYamlValues() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("<#include \"/etc/passwd\">", Map.of(), WHERE));

        assertEquals("playbooks/site.yml:5:7: <#include> and <#import> work only in template files "
                + "in \"<#include \"/etc/passwd\">\"", error.getMessage());
    }
}
