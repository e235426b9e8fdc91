package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyValueFileTest {

    static Stream<Arguments> sets() {
        return Stream.of(
                Arguments.of("appends a new key", "# tuning\na = 1\n", "b", "2", "# tuning\na = 1\nb = 2\n"),
                Arguments.of("replaces a value in place", "a = 1\nb = 2\n", "a", "5", "a = 5\nb = 2\n"),
                Arguments.of("keeps a correct line as written", "a=1\n", "a", "1", "a=1\n"),
                Arguments.of("drops later duplicates that would override", "a = 1\n; note\na = 3\n", "a", "1", "a = 1\n; note\n"),
                Arguments.of("keeps comments that mention the key", "# a = 9\na = 1\n", "a", "2", "# a = 9\na = 2\n"),
                Arguments.of("into an empty file", "", "net.core.rmem_max", "16777216", "net.core.rmem_max = 16777216\n"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("sets")
    void setsAKey(String name, String text, String key, String value, String expected) {
        assertEquals(expected, KeyValueFile.set(text, key, value));
    }

    @ParameterizedTest(name = "[{index}] {0} twice")
    @MethodSource("sets")
    void settingTwiceEqualsSettingOnce(String name, String text, String key, String value, String expected) {
        String once = KeyValueFile.set(text, key, value);
        assertEquals(once, KeyValueFile.set(once, key, value));
        assertEquals(Optional.of(value), KeyValueFile.get(once, key));
    }

    @Test
    void leavesTheTextItselfWhenAlreadySet() {
        String text = "a = 1"; // no final newline
        assertSame(text, KeyValueFile.set(text, "a", "1"));
    }

    @Test
    void parsesLastAssignmentWinning() {
        assertEquals(Map.of("a", "3", "b", "x y"), KeyValueFile.parse("a = 1\n  b=  x y  \n# c = 2\na = 3\n"));
    }

    @Test
    void removesEveryAssignmentOfTheKey() {
        assertEquals("# a = 0\nb = 2\n", KeyValueFile.remove("# a = 0\na = 1\nb = 2\na=3\n", "a"));
        String none = "b = 2";
        assertSame(none, KeyValueFile.remove(none, "a"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a=b", "# c", " padded", "two\nlines"})
    void rejectsKeysThatWouldNotReadBack(String key) {
        assertThrows(IllegalArgumentException.class, () -> KeyValueFile.set("", key, "1"));
    }

    @Test
    void rejectsMultiLineValues() {
        assertThrows(IllegalArgumentException.class, () -> KeyValueFile.set("", "a", "1\n2"));
    }
}
