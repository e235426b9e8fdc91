package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Expected values are what Python 3.11's {@code re.subn} answers for the same arguments. */
class PythonRegexTest {

    private static String sub(String regex, int flags, String template, String text) {
        return PythonRegex.substitute(PythonRegex.compile(regex, flags), template, text).text();
    }

    @Test
    void multiLineCaretAlsoMatchesAtTheEndAfterANewlineButNotInAClass() {
        assertEquals("# a\n# b\n# ", sub("^", Pattern.MULTILINE, "# ", "a\nb\n"));
        assertEquals("#", sub("^", Pattern.MULTILINE, "#", ""), "Python's ^ matches an empty text; Java's multi-line one does not");
        assertEquals("# a\n", sub("^(.+)$", Pattern.MULTILINE, "# \\1", "a\n"));
        assertEquals("-\n-", sub("[^\n]", Pattern.MULTILINE, "-", "a\nb"));
        assertEquals("^x", sub("\\^", Pattern.MULTILINE, "^", "^x"));
        assertEquals("a\nb", sub("^", 0, "", "a\nb"));
    }

    @Test
    void bigZIsTheVeryEnd() {
        assertEquals("a\n", sub("\\n\\Z", 0, "", "a\n\n"));
    }

    @Test
    void templatesExpandAsPythonDoes() {
        assertEquals("[a][]", sub("(a)|b", 0, "[\\1]", "ab"));
        assertEquals("A\u0000$1 \\- \r", sub("a", 0, "\\101\\0$1 \\- \\r", "a"));
        assertEquals("k=v", sub("(?P<k>\\w+):(?P<v>\\w+)", 0, "\\g<k>=\\g<2>", "k:v"));
        assertEquals("xax", sub("a", 0, "x\\g<0>x", "a"));
        assertEquals(2, PythonRegex.substitute(PythonRegex.compile("a"), "a", "aa").count());
    }

    @Test
    void templatesPythonRefusesFailBeforeAnythingMatches() {
        Pattern p = PythonRegex.compile("(a)");
        assertThrows(IllegalArgumentException.class, () -> PythonRegex.checkTemplate(p, "\\2"));
        assertThrows(IllegalArgumentException.class, () -> PythonRegex.checkTemplate(p, "\\g<name>"));
        assertThrows(IllegalArgumentException.class, () -> PythonRegex.checkTemplate(p, "\\q"));
        assertThrows(IllegalArgumentException.class, () -> PythonRegex.checkTemplate(p, "x\\"));
        assertThrows(IllegalArgumentException.class, () -> PythonRegex.checkTemplate(p, "\\g1"));
        PythonRegex.checkTemplate(p, "\\1\\g<1>\\g<0>$2");
    }
}
