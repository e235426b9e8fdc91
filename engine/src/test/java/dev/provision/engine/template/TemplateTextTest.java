package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TemplateTextTest {
    @Test
    void findsTheExpressionOfASingleInterpolation() {
        assertEquals(Optional.of("groups.gpu"), TemplateText.singleExpression(" ${groups.gpu} "));
        assertEquals(Optional.of(" {\"a\": 1} "), TemplateText.singleExpression("${ {\"a\": 1} }"));
        assertEquals(Optional.of("x + \"}\""), TemplateText.singleExpression("${x + \"}\"}"));
        assertEquals(Optional.of("r\"a\\\""), TemplateText.singleExpression("${r\"a\\\"}"));
    }

    @Test
    void textWithMoreThanOneInterpolationIsNotSingle() {
        assertEquals(Optional.empty(), TemplateText.singleExpression("${a}${b}"));
        assertEquals(Optional.empty(), TemplateText.singleExpression("${a} and ${b}"));
        assertEquals(Optional.empty(), TemplateText.singleExpression("x ${a}"));
        assertEquals(Optional.empty(), TemplateText.singleExpression("${a}\n"), "a block scalar keeps its newline");
        assertEquals(Optional.empty(), TemplateText.singleExpression("${\"unclosed}"));
    }

    @Test
    void onlyTemplateSyntaxNeedsRendering() {
        assertTrue(TemplateText.needsRendering("a ${b}"));
        assertTrue(TemplateText.needsRendering("<#if x>y</#if>"));
        assertTrue(TemplateText.needsRendering("[#if x]y[/#if]"));
        assertFalse(TemplateText.needsRendering("echo $HOME #{x} <b>"));
    }

    @Test
    void excerptPicksTheLineAndShortensIt() {
        assertEquals("second", TemplateText.excerpt("first\n  second\nthird", 2));
        assertEquals(100, TemplateText.excerpt("x".repeat(300), 1).length());
    }
}
