package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** What Python 3.11's {@code ast.literal_eval} makes of INI values (checked against python3 itself). */
class PythonLiteralTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            5                | Integer 5
            -3               | Integer -3
            +7               | Integer 7
            00               | Integer 0
            0_0              | Integer 0
            1_000            | Integer 1000
            0x1f             | Integer 31
            0X_1F            | Integer 31
            0o17             | Integer 15
            0b101            | Integer 5
            12345678901234   | Long 12345678901234
            -2147483648      | Integer -2147483648
            99999999999999999999 | BigInteger 99999999999999999999
            1.5              | Double 1.5
            1e3              | Double 1000.0
            .5               | Double 0.5
            5.               | Double 5.0
            1.e2             | Double 100.0
            010.5            | Double 10.5
            -2.25            | Double -2.25
            (5)              | Integer 5
            -(5)             | Integer -5
            5 # a comment    | Integer 5
            `  5`            | Integer 5
            True             | Boolean true
            False            | Boolean false
            'a b'            | String a b
            "x"              | String x
            'a' "b"          | String ab
            'it\\'s'         | String it's
            '\\x41\\101\\u00e9' | String AAé
            '\\N{BULLET}'    | String •
            r'\\d+'          | String \\d+
            '\\q'            | String \\q
            u'x'             | String x
            b'ok'            | String ok
            '''tri'''        | String tri
            """)
    void readsPythonLiterals(String text, String expected) {
        assertEquals(expected, typed(PythonLiteral.read(text)));
    }

    @ParameterizedTest(name = "{0} stays text")
    @ValueSource(strings = {"0644", "0_7", "true", "TRUE", "yes", "none", "bar # note", "1+2", "--1", "-(-1)", "+True",
        "f'x'", "len('x')", "1 2", "5abc", "0b12", "1__0", "1_", "1e", "1.5.2", "0x", "[,]", "[1 2]", "(", "'open",
        "'a' b", "ur'x'", "b'a' 'b'", "x=1", "a b", "", "set(1)", "{**a}", "[*a]", "'\\xZZ'", "'\\N{NO SUCH NAME}'",
        "/srv/data", "http://x.example/a?b=c", "10.0.0.1", "node[01:03]"})
    void leavesTextThatIsNoLiteral(String text) {
        assertEquals(text, PythonLiteral.read(text));
    }

    @Test
    void readsContainers() {
        assertEquals(Arrays.asList(1, "two", null), PythonLiteral.read("[1, 'two', None]"));
        assertEquals(List.of(1, 2), PythonLiteral.read("(1, 2)"));
        assertEquals(List.of(3), PythonLiteral.read("(3,)"));
        assertEquals(List.of(1, 2), PythonLiteral.read("1, 2"));
        assertEquals(List.of(1, 2), PythonLiteral.read("[1, 2,]"));
        assertEquals(List.of(), PythonLiteral.read("()"));
        assertEquals(Map.of("a", 1, "b", List.of(true)), PythonLiteral.read("{'a': 1, 'b': [True]}"));
        assertEquals(Map.of("1", "one", "false", 2, "null", 3), PythonLiteral.read("{1: 'one', False: 2, None: 3}"));
        assertEquals(Map.of("x", Map.of("y", "z")), PythonLiteral.read("{'x': {'y': 'z'},}"));
        assertEquals(Map.of(), PythonLiteral.read("{}"));
        assertNull(PythonLiteral.read("None"));
        assertEquals("", PythonLiteral.read("''"));
    }

    @Test
    void stopsAtPythonsNestingLimit() {
        assertEquals(List.of(List.of()), PythonLiteral.read("[[]]"));
        String deep = "[".repeat(201) + "]".repeat(201);
        assertEquals(deep, PythonLiteral.read(deep));
        String huge = "[".repeat(100_000);
        assertEquals(huge, PythonLiteral.read(huge));
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {"1j", "1+2j", "-1.5e-3J", "{1, 2}", "set()", "...", "{[1]: 2}", "[1, 2j]"})
    void refusesLiteralsAnInventoryCannotHold(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PythonLiteral.read(text));
        assertTrue(e.getMessage().startsWith("'" + text + "' is a Python "), e.getMessage());
    }

    private static String typed(Object value) {
        return value.getClass().getSimpleName() + " " + value;
    }

    @Test
    void keepsBigIntegersExact() {
        assertEquals(new BigInteger("-99999999999999999999"), PythonLiteral.read("-99999999999999999999"));
    }
}
