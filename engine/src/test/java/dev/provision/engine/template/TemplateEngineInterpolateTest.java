package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateEngineInterpolateTest {
    private static final SourcePosition WHERE = new SourcePosition("playbooks/site.yml", 12, 9);
    private static final Map<String, Object> VARS = Map.of(
            "groups", Map.of("all", List.of("n1", "n2", "n3"), "gpu", List.of("n2")),
            "port", 65535,
            "enabled", true,
            "facts", Map.of("os_family", "Debian", "cpus", 64),
            "name", "node1");

    private final TemplateEngine engine = new TemplateEngine(List.of());

    @Test
    void singleExpressionReturnsTheListItself() throws Exception {
        Object value = engine.interpolate("${groups.all}", VARS, WHERE);

        assertEquals(List.of("n1", "n2", "n3"), value);
    }

    @Test
    void singleExpressionIgnoresSurroundingBlanks() throws Exception {
        assertEquals(List.of("n2"), engine.interpolate("  ${groups.gpu} ", VARS, WHERE));
    }

    @Test
    void singleExpressionReturnsNumberAndBoolean() throws Exception {
        assertEquals(65535, engine.interpolate("${port}", VARS, WHERE));
        assertEquals(Boolean.TRUE, engine.interpolate("${enabled}", VARS, WHERE));
        assertEquals(Boolean.FALSE, engine.interpolate("${port > 70000}", VARS, WHERE));
    }

    @Test
    void computedWholeNumbersBecomeLong() throws Exception {
        assertEquals(65536L, engine.interpolate("${port + 1}", VARS, WHERE));
        assertEquals(new BigDecimal("0.5"), engine.interpolate("${1 / 2}", VARS, WHERE));
    }

    @Test
    void singleExpressionReturnsMapAndBuiltList() throws Exception {
        assertEquals(Map.of("os_family", "Debian", "cpus", 64), engine.interpolate("${facts}", VARS, WHERE));
        assertEquals(List.of("a", "b"), engine.interpolate("${\"a,b\"?split(\",\")}", VARS, WHERE));
        assertEquals(Map.of("k", List.of(1L, 2L)), engine.interpolate("${ {\"k\": [1, 2]} }", VARS, WHERE));
    }

    @Test
    void textAroundExpressionRendersToString() throws Exception {
        assertEquals("node1:65535", engine.interpolate("${name}:${port}", VARS, WHERE));
        assertEquals("port 65535", engine.interpolate("port ${port}", VARS, WHERE));
        assertEquals("gpu", engine.interpolate("<#if facts.cpus gt 8>gpu<#else>cpu</#if>", VARS, WHERE));
    }

    @Test
    void datesRenderAsIsoInUtc() throws Exception {
        java.util.Date stamp = java.util.Date.from(java.time.Instant.parse("2024-01-02T03:04:05Z"));

        assertEquals("at 2024-01-02T03:04:05Z", engine.interpolate("at ${stamp}", Map.of("stamp", stamp), WHERE));
        assertSame(stamp, engine.interpolate("${stamp}", Map.of("stamp", stamp), WHERE));
    }

    @Test
    void stringWithBracesInsideLiteralsIsStillOneExpression() throws Exception {
        assertEquals("}{", engine.interpolate("${\"}\" + \"{\"}", VARS, WHERE));
    }

    @Test
    void stringsWithoutTemplateSyntaxAreReturnedAsTheyAre() throws Exception {
        String plain = "echo $HOME #{not special}";

        assertSame(plain, engine.interpolate(plain, VARS, WHERE));
    }

    @Test
    void nestedMapsAndListsAreRebuiltWithInterpolatedContent() throws Exception {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("name", "chrony on ${name}");
        value.put("hosts", "${groups.gpu}");
        value.put("nested", List.of(Map.of("port", "${port}"), 7, "plain"));
        value.put("flag", false);

        Object interpolated = engine.interpolate(value, VARS, WHERE);

        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("name", "chrony on node1");
        expected.put("hosts", List.of("n2"));
        expected.put("nested", List.of(Map.of("port", 65535), 7, "plain"));
        expected.put("flag", false);
        assertEquals(expected, interpolated);
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(((Map<?, ?>) interpolated).keySet()));
    }

    @Test
    void nonStringsPassThrough() throws Exception {
        Object number = 42;
        assertSame(number, engine.interpolate(number, VARS, WHERE));
        assertEquals(null, engine.interpolate(null, VARS, WHERE));
        Map<String, Object> untouched = Map.of("a", List.of(1, "x"));
        assertSame(untouched, engine.interpolate(untouched, VARS, WHERE));
    }

    @Test
    void undefinedVariableNamesVariableAndPosition() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("${ntp_servers?join(\",\")}", VARS, WHERE));

        assertEquals("playbooks/site.yml:12:9: undefined variable 'ntp_servers' in \"${ntp_servers?join(\",\")}\"; "
                + "define it (vars, group_vars, -e) or give a default with ! (e.g. ${ntp_servers!\"default\"})",
                error.getMessage());
        assertEquals(WHERE, error.position());
    }

    @Test
    void undefinedVariableInsideTextIsNamed() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("server ${facts.ntp} iburst", VARS, WHERE));

        assertEquals("playbooks/site.yml:12:9: undefined variable 'facts.ntp' in \"server ${facts.ntp} iburst\"; "
                + "define it (vars, group_vars, -e) or give a default with ! (e.g. ${(facts.ntp)!\"default\"})",
                error.getMessage());
    }

    @Test
    void defaultsApplyToMissingVariables() throws Exception {
        assertEquals("pool.ntp.org", engine.interpolate("${ntp_servers!\"pool.ntp.org\"}", VARS, WHERE));
        assertEquals(List.of(), engine.interpolate("${extra_hosts![]}", VARS, WHERE));
    }

    @Test
    void syntaxErrorGivesColumnInsideTheValue() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("port ${a b}", VARS, WHERE));

        assertEquals("playbooks/site.yml:12:9: syntax error: unexpected \"b\" at column 10 in \"port ${a b}\"",
                error.getMessage());
    }

    @Test
    void listInsideTextIsExplained() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.interpolate("hosts: ${groups.all}", VARS, WHERE));

        assertTrue(error.getMessage().contains("'groups.all' is a list, not text"), error.getMessage());
        assertTrue(error.getMessage().contains("groups.all?join(\",\")"), error.getMessage());
        assertFalse(error.getMessage().contains("\n"));
    }

    @Test
    void evaluateReturnsNativeValues() throws Exception {
        assertEquals(List.of("n1", "n2", "n3"), engine.evaluate("groups.all", VARS, WHERE));
        assertEquals(3, ((Number) engine.evaluate("groups.all?size", VARS, WHERE)).intValue());
        assertEquals(3L, engine.evaluate("1 + 2", VARS, WHERE));
        assertEquals("Debian", engine.evaluate("facts.os_family", VARS, WHERE));
        assertEquals(Boolean.TRUE, engine.evaluate("enabled && port > 1", VARS, WHERE));
        assertEquals(List.of("n2", "n3"), engine.evaluate("groups.all?filter(h -> h != \"n1\")", VARS, WHERE));
    }

    @Test
    void evaluateAcceptsExpressionWrappedInDollarBraces() throws Exception {
        assertEquals(List.of("n2"), engine.evaluate("${groups.gpu}", VARS, WHERE));
    }

    @Test
    void evaluateOfIncompleteExpressionSaysSo() {
        TemplateException error = assertThrows(TemplateException.class, () -> engine.evaluate("1 +", VARS, WHERE));

        assertEquals("playbooks/site.yml:12:9: syntax error: the expression ends too early in \"1 +\"", error.getMessage());
    }

    @Test
    void evaluateOfFunctionIsRefused() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.evaluate("name?starts_with", VARS, WHERE));

        assertTrue(error.getMessage().startsWith("playbooks/site.yml:12:9: cannot use the value of \"name?starts_with\""),
                error.getMessage());
    }

    @Test
    void evaluateUndefinedGivesBareDefaultAdvice() {
        TemplateException error = assertThrows(TemplateException.class, () -> engine.evaluate("missing", VARS, WHERE));

        assertTrue(error.getMessage().endsWith("(e.g. missing!\"default\")"), error.getMessage());
    }
}
