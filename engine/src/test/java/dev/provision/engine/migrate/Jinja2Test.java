package dev.provision.engine.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.template.TemplateEngine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Jinja2 to FreeMarker, each translation evaluated by provision's own template engine. */
class Jinja2Test {
    private static final TemplateEngine ENGINE = new TemplateEngine(List.of());
    private static final Map<String, Object> VARS = Map.of("item", "a", "pkgs", List.of("x", "y"), "node",
            Map.of("name", "n1", "port", 22), "flag", true, "hostvars", Map.of("n1", Map.of("ip", "10.0.0.1")), "h", "n1",
            "count", "3", "Name", "Gpu");

    static Stream<Arguments> templates() {
        return Stream.of(TEMPLATES).map(row -> Arguments.of((Object[]) row.split(" => ", -1)));
    }

    static Stream<Arguments> conditions() {
        return Stream.of(CONDITIONS).map(row -> Arguments.of((Object[]) row.split(" => ", -1)));
    }

    /** jinja => freemarker => rendered with VARS (empty: not rendered) */
    private static final String[] TEMPLATES = {
        "/srv/{{ item }} => /srv/${item} => /srv/a",
        "{{ node.gone | default(omit) }} => ${(node.gone)!omit} => ",
        "Hello {{inventory_hostname}} => Hello ${inventory_hostname} => ",
        "{{ node.name }}:{{ node['port'] }} => ${node.name}:${node[\"port\"]} => n1:22",
        "{{ hostvars[h]['ip'] }} => ${hostvars[h][\"ip\"]} => 10.0.0.1",
        "{{ pkgs | join(',') }} => ${pkgs?join(\",\")} => x,y",
        "{{ pkgs | length }} => ${pkgs?size} => 2",
        "{{ missing | default('none') }} => ${missing!\"none\"} => none",
        "{{ Name | lower }}-{{ item | upper }} => ${Name?lower_case}-${item?upper_case} => gpu-A",
        "{{ count | int + 1 }} => ${count?number + 1} => 4",
        "{{ item ~ '-suffix' }} => ${item?string + \"-suffix\"} => a-suffix",
        "{{ 'on' if flag else 'off' }} => ${(flag?is_boolean?then(flag, flag?is_number?then(flag != 0, flag?has_content)))?then(\"on\", \"off\")} => on",
        "{{ pkgs.0 }}-{{ node.gone | default(pkgs | first) }} => ${pkgs[0]}-${(node.gone)!pkgs?first} => x-x",
        "{% if flag %}on{% else %}off{% endif %} => <#if flag?is_boolean?then(flag, flag?is_number?then(flag != 0, flag?has_content))>on<#else>off</#if> => on",
        "{% for p in pkgs %}[{{ p }}]{% endfor %} => <#list pkgs as p>[${p}]</#list> => [x][y]",
    };

    /** jinja => freemarker */
    private static final String[] CONDITIONS = {
        "x is defined => x??",
        "node.name is not defined => !(node.name)??",
        "flag and not missing is defined => flag?is_boolean?then(flag, flag?is_number?then(flag != 0, flag?has_content)) && !missing??",
        "item == 'a' or item != 'b' => item == \"a\" || item != \"b\"",
        "'x' in pkgs => pkgs?is_sequence?then(pkgs?seq_contains(\"x\"), pkgs?is_hash?then(pkgs?keys?seq_contains(\"x\"), pkgs?contains(\"x\")))",
        "pkgs | length > 1 => pkgs?size > 1",
        "flag == True => flag?is_boolean?then(flag == true, flag?is_number?then(flag == 1, false))",
    };

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("templates")
    void templatesTranslateMechanicallyAndRenderTheSame(String jinja, String freemarker, String rendered) throws Exception {
        Optional<String> translated = Jinja2.template(jinja);
        assertEquals(Optional.of(freemarker), translated);
        if (!rendered.isEmpty()) {
            assertEquals(rendered, String.valueOf(ENGINE.interpolate(translated.get(), VARS, SourcePosition.UNKNOWN)));
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("conditions")
    void conditionsTranslate(String jinja, String freemarker) throws Exception {
        assertEquals(Optional.of(freemarker), Jinja2.expression(jinja));
        ENGINE.parseExpression(freemarker, SourcePosition.UNKNOWN);
    }

    @Test
    void whatHasNoMechanicalTwinIsNotGuessed() {
        for (String jinja : List.of("{{ lookup('file', 'x') }}", "{{ x | to_nice_yaml }}", "{{ x | map(attribute='a') | list }}",
                "{% macro m() %}{% endmacro %}", "{{ x if y }}")) {
            assertEquals(Optional.empty(), Jinja2.template(jinja), jinja);
        }
        assertEquals(Optional.empty(), Jinja2.expression("x is none"));
        assertEquals(Optional.empty(), Jinja2.expression("x is search(pattern)"), "a pattern in a variable");
        assertEquals(Optional.empty(), Jinja2.expression("x is search('a', ignorecase=True)"), "flags");
        assertEquals(Optional.empty(), Jinja2.expression("x is search('(?P<n>a)')"), "Python's named group");
        assertEquals(Optional.empty(), Jinja2.expression("x is search('\\\\Aa')"), "an escaped backslash");
        assertEquals(Optional.empty(), Jinja2.expression("x is search('\\Aa')"), "Python's \\A");
    }

    @Test
    void recognisesJinjaAndNotFreeMarker() {
        assertTrue(Jinja2.isTemplate("a {{ b }}"));
        assertTrue(Jinja2.isTemplate("{% if x %}y{% endif %}"));
        assertFalse(Jinja2.isTemplate("a ${b} <#if x>y</#if>"));
    }

    /** DeepOps' proxy idiom: the mapping's own braces end next to the expression's. */
    @Test
    void theProxyIdiomTranslatesAndRendersAMapping() throws Exception {
        Optional<String> translated = Jinja2.template("{{proxy_env if proxy_env is defined else {}}}");
        assertEquals(Optional.of("${(proxy_env??)?then(proxy_env, {})}"), translated);
        assertEquals(Map.of(), ENGINE.evaluate("(proxy_env??)?then(proxy_env, {})", VARS, SourcePosition.UNKNOWN));
    }

    /** Inside a double-quoted YAML scalar, every string literal of the translation is single-quoted. */
    @Test
    void aBoolFilterInsideDoubleQuotesKeepsTheYamlStringWhole() {
        String translated = Jinja2.template("\"{{ docker_install | bool }}\"", '\'').orElseThrow();
        assertEquals(2, translated.chars().filter(c -> c == '"').count(), translated);
        assertTrue(translated.contains("['yes', 'on', '1', 'true']"), translated);
    }
}
