package dev.provision.engine.playbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What derives from the keyword table: inheritance as each keyword declares it, the values of those never set, equality. */
class KeywordTest {
    private static Expression at(String text) {
        return new Expression(text, new dev.provision.engine.source.SourcePosition("site.yml", 1, 1));
    }

    @Test
    void eachKeywordCombinesWithWhatItInheritsAsItsDeclarationSays() {
        Keywords parent = Keywords.none();
        parent.set(Keyword.WHEN, List.of(at("a")));
        parent.set(Keyword.TAGS, Set.of("outer"));
        parent.set(Keyword.VARS, Map.of("x", 1, "y", 1));
        parent.set(Keyword.ENVIRONMENT, List.of(Map.of("A", "1")));
        parent.set(Keyword.BECOME_USER, Optional.of("outer"));
        parent.set(Keyword.IGNORE_ERRORS, true);
        parent.set(Keyword.BACKGROUND_SECONDS, Optional.of(30));
        Keywords own = Keywords.none();
        own.set(Keyword.WHEN, List.of(at("b")));
        own.set(Keyword.TAGS, Set.of("inner"));
        own.set(Keyword.VARS, Map.of("y", 2));
        own.set(Keyword.ENVIRONMENT, List.of(Map.of("B", "2")));
        own.set(Keyword.BECOME_USER, Optional.of("inner"));

        TaskKeywords child = parent.inherit(own).freeze();
        assertEquals(List.of("a", "b"), child.get(Keyword.WHEN).stream().map(Expression::text).toList(), "the outer condition first");
        assertEquals(Set.of("outer", "inner"), child.get(Keyword.TAGS), "tags united");
        assertEquals(Map.of("x", 1, "y", 2), child.get(Keyword.VARS), "vars merged, the inner winning");
        assertEquals(List.of(Map.of("A", "1"), Map.of("B", "2")), child.get(Keyword.ENVIRONMENT), "layers, the outer first");
        assertEquals(Optional.of("inner"), child.get(Keyword.BECOME_USER), "the innermost setting wins");
        assertTrue(child.get(Keyword.IGNORE_ERRORS), "the parent's where the child sets none");
        assertEquals(Optional.empty(), child.get(Keyword.BACKGROUND_SECONDS), "async is a task's own, never inherited");
    }

    @Test
    void aKeywordSetNowhereHasItsUnsetValueAndSettingThatValueIsTheSameTask() {
        TaskKeywords none = Keywords.none().freeze();
        assertEquals(TaskKeywords.NONE, none);
        for (Keyword<?> k : Keyword.ALL) {
            assertEquals(k.unset(), none.get(k), k.name());
        }
        Keywords explicit = Keywords.none();
        explicit.set(Keyword.IGNORE_ERRORS, false);
        explicit.set(Keyword.WHEN, List.of());
        assertEquals(TaskKeywords.NONE, explicit.freeze(), "ignore_errors: false is what a task that never set it has");
        explicit.set(Keyword.NO_LOG, true);
        assertNotEquals(TaskKeywords.NONE, explicit.freeze());
    }

    @Test
    void connectionLocalDelegatesToLocalhostUnlessDelegateToSaysOtherwise() {
        Keywords local = Keywords.none();
        local.set(Keyword.CONNECTION_LOCAL, true);
        assertEquals(Optional.of("localhost"), local.freeze().delegateTo());
        local.set(Keyword.DELEGATE_TO, Optional.of("node01"));
        assertEquals(Optional.of("node01"), local.freeze().delegateTo());
        assertEquals(Optional.empty(), TaskKeywords.NONE.delegateTo());
    }

    @Test
    void everyKeywordOfTheTableIsOfferedAndNamedOnce() {
        assertEquals(Keyword.ALL.size(), Set.copyOf(Keywords.NAMES).size());
        assertTrue(Keywords.NAMES.containsAll(List.of("when", "tags", "vars", "become", "become_user", "ignore_errors", "no_log",
                "run_once", "delegate_to", "delegate_facts", "check_mode", "timeout", "environment", "become_method", "connection")));
    }
}
