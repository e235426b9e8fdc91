package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplateEngineRenderTest {
    @TempDir
    Path workspace;

    private Path write(String relative, String content) throws IOException {
        Path file = workspace.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }

    @Test
    void rendersTemplateWithVariables() throws Exception {
        write("templates/chrony.conf.ftl", "<#list ntp_servers as s>\nserver ${s} iburst\n</#list>\nport ${port}\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        String rendered = engine.render("chrony.conf.ftl", List.of(),
                Map.of("ntp_servers", List.of("a.example", "b.example"), "port", 123));

        assertEquals("server a.example iburst\nserver b.example iburst\nport 123\n", rendered);
    }

    @Test
    void rendersTemplateInSubdirectory() throws Exception {
        write("templates/sub/x.ftl", "x=${x}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("x=1", engine.render("sub/x.ftl", List.of(), Map.of("x", 1)));
    }

    @Test
    void firstRootOfSearchPathWins() throws Exception {
        write("roles/ntp/templates/chrony.conf.ftl", "from role");
        write("templates/chrony.conf.ftl", "from repository");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("from role", engine.render("chrony.conf.ftl",
                List.of(workspace.resolve("roles/ntp/templates")), Map.of()));
        assertEquals("from repository", engine.render("chrony.conf.ftl",
                List.of(workspace.resolve("roles/other/templates")), Map.of()));
    }

    @Test
    void defaultRootsAreSearchedAfterSearchPath() throws Exception {
        write("templates/hosts.ftl", "only in repository");
        write("roles/r/templates/other.ftl", "other");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("only in repository",
                engine.render("hosts.ftl", List.of(workspace.resolve("roles/r/templates")), Map.of()));
    }

    @Test
    void includeResolvesInsideTheSameRoots() throws Exception {
        write("roles/r/templates/main.ftl", "<#include \"header.ftl\">body");
        write("templates/header.ftl", "# managed by provision\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("# managed by provision\nbody",
                engine.render("main.ftl", List.of(workspace.resolve("roles/r/templates")), Map.of()));
    }

    @Test
    void missingTemplateNamesEveryDirectorySearched() throws Exception {
        Files.createDirectories(workspace.resolve("templates"));
        Path roleTemplates = workspace.resolve("roles/ntp/templates");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("chrony.conf.ftl", List.of(roleTemplates), Map.of()));

        assertTrue(error.getMessage().startsWith("template 'chrony.conf.ftl' not found; searched: "), error.getMessage());
        assertTrue(error.getMessage().contains(roleTemplates + " (missing)"), error.getMessage());
        assertTrue(error.getMessage().contains(workspace.resolve("templates").toString()), error.getMessage());
        assertEquals(SourcePosition.UNKNOWN, error.position());
    }

    @Test
    void refusesNameThatBacksOutOfTheRoots() throws Exception {
        write("templates/a.ftl", "a");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("../../etc/passwd", List.of(), Map.of()));

        assertTrue(error.getMessage().contains("'../../etc/passwd' is not allowed"), error.getMessage());
    }

    @Test
    void refusesNameThatBacksOutAfterGoingDown() throws Exception {
        write("secret.txt", "secret");
        write("templates/sub/a.ftl", "a");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertThrows(TemplateException.class, () -> engine.render("sub/../../secret.txt", List.of(), Map.of()));
    }

    @Test
    void allowsDotDotThatStaysInsideTheRoots() throws Exception {
        write("templates/a.ftl", "a");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("a", engine.render("sub/../a.ftl", List.of(), Map.of()));
    }

    @Test
    void refusesAbsoluteName() throws Exception {
        Path outside = write("outside.ftl", "outside");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render(outside.toString(), List.of(), Map.of()));

        assertTrue(error.getMessage().contains("is not allowed"), error.getMessage());
    }

    @Test
    void refusesIncludeOutsideTheRoots() throws Exception {
        write("outside.ftl", "SECRET");
        write("templates/a.ftl", "line one\n<#include \"../outside.ftl\">");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("a.ftl", List.of(), Map.of()));

        assertFalse(error.getMessage().contains("SECRET"));
        assertTrue(error.getMessage().startsWith(workspace.resolve("templates/a.ftl") + ":2:1: "), error.getMessage());
        assertTrue(error.getMessage().contains("'../outside.ftl' is not allowed"), error.getMessage());
    }

    @Test
    void refusesSymbolicLinkLeavingTheRoot() throws Exception {
        Path outside = write("outside.ftl", "SECRET");
        Files.createDirectories(workspace.resolve("templates"));
        Files.createSymbolicLink(workspace.resolve("templates/link.ftl"), outside);
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("link.ftl", List.of(), Map.of()));

        assertFalse(error.getMessage().contains("SECRET"));
        assertTrue(error.getMessage().contains("leads out of the template directories"), error.getMessage());
    }

    @Test
    void refusesIncludeThroughSymbolicLinkLeavingTheRoot() throws Exception {
        Path outside = write("outside.ftl", "SECRET");
        write("templates/a.ftl", "<#include \"link.ftl\">");
        Files.createSymbolicLink(workspace.resolve("templates/link.ftl"), outside);
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("a.ftl", List.of(), Map.of()));

        assertEquals(workspace.resolve("templates/a.ftl") + ":1:1: included template 'link.ftl' is not allowed: "
                + "it leads out of the template directories", error.getMessage());
    }

    @Test
    void missingIncludeNamesTheIncludingTemplateAndPosition() throws Exception {
        write("templates/a.ftl", "x\n  <#include \"nope.ftl\">");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("a.ftl", List.of(), Map.of()));

        assertEquals(new SourcePosition(workspace.resolve("templates/a.ftl").toString(), 2, 3), error.position());
        assertTrue(error.problem().startsWith("included template 'nope.ftl' not found; searched: "), error.problem());
    }

    @Test
    void undefinedVariableNamesVariableAndTemplatePosition() throws Exception {
        write("templates/chrony.conf.ftl", "# chrony\nserver ${ntp_servers?join(\",\")}\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("chrony.conf.ftl", List.of(), Map.of()));

        assertEquals(workspace.resolve("templates/chrony.conf.ftl") + ":2:10: undefined variable 'ntp_servers'; "
                + "define it (vars, group_vars, -e) or give a default with ! (e.g. ${ntp_servers!\"default\"})",
                error.getMessage());
        assertInstanceOf(freemarker.core.InvalidReferenceException.class, error.getCause());
    }

    @Test
    void undefinedVariableInIncludedTemplateIsPlacedInThatTemplate() throws Exception {
        write("roles/r/templates/main.ftl", "<#include \"part.ftl\">");
        write("templates/part.ftl", "\n\n${missing}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("main.ftl", List.of(workspace.resolve("roles/r/templates")), Map.of()));

        assertEquals(new SourcePosition(workspace.resolve("templates/part.ftl").toString(), 3, 3), error.position());
        assertTrue(error.problem().startsWith("undefined variable 'missing'"), error.problem());
    }

    @Test
    void syntaxErrorGivesTemplateLineAndColumn() throws Exception {
        write("templates/bad.ftl", "ok\nvalue ${a b}\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("bad.ftl", List.of(), Map.of("a", 1)));

        assertEquals(workspace.resolve("templates/bad.ftl") + ":2:11: syntax error: unexpected \"b\"", error.getMessage());
    }

    @Test
    void errorMessagesAreOneLine() throws Exception {
        write("templates/a.ftl", "${m}\n");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.render("a.ftl", List.of(), Map.of("m", Map.of("k", "v"))));

        assertFalse(error.getMessage().contains("\n"), error.getMessage());
        assertFalse(error.getMessage().contains("FTL stack"), error.getMessage());
        assertTrue(error.getMessage().contains("'m' is a map, not text"), error.getMessage());
    }

    @Test
    void defaultWithExclamationMarkAppliesToUndefinedVariables() throws Exception {
        write("templates/a.ftl", "${ntp_servers!\"pool.ntp.org\"} ${(facts.tz)!\"UTC\"}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("pool.ntp.org UTC", engine.render("a.ftl", List.of(), Map.of()));
        assertEquals("x Europe", engine.render("a.ftl", List.of(),
                Map.of("ntp_servers", "x", "facts", Map.of("tz", "Europe"))));
    }

    @Test
    void rendersNumbersWithoutGroupingAndBooleansAsWords() throws Exception {
        write("templates/a.ftl", "${port} ${big} ${ratio} ${enabled}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("65535 1234567890123 0.5 true", engine.render("a.ftl", List.of(),
                Map.of("port", 65535, "big", 1234567890123L, "ratio", 0.5, "enabled", true)));
    }

    @Test
    void htmlLookingExtensionIsNotEscaped() throws Exception {
        write("templates/a.ftlh", "${v}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("<a & b>", engine.render("a.ftlh", List.of(), Map.of("v", "<a & b>")));
    }

    @Test
    void squareBracketTagSyntaxIsDetected() throws Exception {
        write("templates/a.ftl", "[#list xs as x]${x};[/#list]");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));

        assertEquals("1;2;", engine.render("a.ftl", List.of(), Map.of("xs", List.of(1, 2))));
    }

    @Test
    void parsedTemplateIsReusedNotReadAgain() throws Exception {
        Path template = write("templates/a.ftl", "first ${x}");
        TemplateEngine engine = new TemplateEngine(List.of(workspace.resolve("templates")));
        assertEquals("first 1", engine.render("a.ftl", List.of(), Map.of("x", 1)));

        Files.writeString(template, "second ${x}");
        Files.setLastModifiedTime(template, java.nio.file.attribute.FileTime.fromMillis(0));

        assertEquals("first 2", engine.render("a.ftl", List.of(), Map.of("x", 2)));
    }
}
