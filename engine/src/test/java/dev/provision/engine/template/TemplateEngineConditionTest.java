package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateEngineConditionTest {
    private static final SourcePosition WHEN = new SourcePosition("playbooks/site.yml", 30, 11);
    private static final Map<String, Object> VARS = Map.of(
            "facts", Map.of("os_family", "Debian", "gpus", 8),
            "install_cuda", true,
            "skip", false,
            "extra", List.of(),
            "mode", "fast");

    private final TemplateEngine engine = new TemplateEngine(List.of());

    @Test
    void booleanVariablesAreConditions() throws Exception {
        assertTrue(engine.test("install_cuda", VARS, WHEN));
        assertFalse(engine.test("skip", VARS, WHEN));
        assertTrue(engine.test("!skip", VARS, WHEN));
    }

    @Test
    void comparisonsAndLogicWork() throws Exception {
        assertTrue(engine.test("facts.os_family == \"Debian\" && facts.gpus > 4", VARS, WHEN));
        assertFalse(engine.test("facts.os_family == \"RedHat\" || extra?has_content", VARS, WHEN));
        assertTrue(engine.test("facts.gpus >= 8 && mode?has_content", VARS, WHEN));
    }

    @Test
    void definedTestsUseDoubleQuestionMark() throws Exception {
        assertTrue(engine.test("install_cuda??", VARS, WHEN));
        assertTrue(engine.test("!nothing_here??", VARS, WHEN));
    }

    @Test
    void conditionWrappedInDollarBracesIsAccepted() throws Exception {
        assertTrue(engine.test("${facts.gpus == 8}", VARS, WHEN));
    }

    @Test
    void stringResultIsNotABoolean() {
        TemplateException error = assertThrows(TemplateException.class, () -> engine.test("mode", VARS, WHEN));

        assertEquals("playbooks/site.yml:30:11: expression 'mode' is a string, not a boolean; "
                + "compare it (mode == \"yes\") or test it (mode?has_content)", error.getMessage());
    }

    @Test
    void numberAndListResultsAreNotBooleans() {
        TemplateException number = assertThrows(TemplateException.class, () -> engine.test("facts.gpus", VARS, WHEN));
        TemplateException list = assertThrows(TemplateException.class, () -> engine.test("extra", VARS, WHEN));

        assertTrue(number.getMessage().contains("'facts.gpus' is a number, not a boolean"), number.getMessage());
        assertTrue(list.getMessage().contains("'extra' is a list, not a boolean"), list.getMessage());
    }

    @Test
    void undefinedVariableInConditionIsNamed() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.test("facts.os_family == \"Debian\" && use_gpu", VARS, WHEN));

        assertEquals("playbooks/site.yml:30:11: undefined variable 'use_gpu' in \"facts.os_family == \"Debian\" && use_gpu\"; "
                + "define it (vars, group_vars, -e) or give a default with ! (e.g. use_gpu!\"default\")",
                error.getMessage());
    }

    @Test
    void ansibleDefinedTestGetsATranslation() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.test("ntp_servers is defined", VARS, WHEN));

        assertTrue(error.getMessage().startsWith("playbooks/site.yml:30:11: syntax error: unexpected \"is\" at column 13"),
                error.getMessage());
        assertTrue(error.getMessage().endsWith("FreeMarker writes 'x is defined' as x?? and 'x is not defined' as !x??"),
                error.getMessage());
    }

    @Test
    void operatorNeedingAValueSaysWhichSide() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.test("mode && install_cuda", VARS, WHEN));

        assertTrue(error.getMessage().contains("'mode' is a string, not a boolean"), error.getMessage());
    }

    @Test
    void ansibleWordOperatorsGetATranslation() {
        TemplateException error = assertThrows(TemplateException.class,
                () -> engine.test("install_cuda and not skip", VARS, WHEN));

        assertTrue(error.getMessage().endsWith("FreeMarker writes and, or, not as &&, ||, !"), error.getMessage());
    }
}
