package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Words as Python's {@code shlex.split(line, comments=True)} makes them. */
class ShellWordsTest {
    private static List<String> words(String line) {
        return ShellWords.split(line).stream().map(ShellWords.Word::text).toList();
    }

    @Test
    void splitsAtBlanksAndJoinsQuotedParts() {
        assertEquals(List.of("node01", "a=x y", "b=x y", "c=x y", "d=x\"y", "e=its"),
                words("node01 a=\"x y\" b='x y' c=x\\ y d=\"x\\\"y\" e='it''s'"));
        assertEquals(List.of("h", "f='quoted'", "g=", "h=#not"), words("h f=\"'quoted'\" g=\"\" h=\"#not\""));
    }

    @Test
    void keepsBackslashesInsideDoubleQuotesExceptBeforeQuoteAndBackslash() {
        assertEquals(List.of("j=back\\slash", "k=back\\slash", "l=\\n"), words("j=\"back\\\\slash\" k='back\\slash' l=\"\\n\""));
    }

    @Test
    void endsTheLineAtAnUnquotedHash() {
        assertEquals(List.of("node01", "x=1"), words("node01 x=1#comment y=2"));
        assertEquals(List.of("node01"), words("node01   # comment"));
    }

    @Test
    void givesEachWordItsColumn() {
        List<ShellWords.Word> words = ShellWords.split("  node01\tx=1  y=\"a b\"");
        assertEquals(List.of(3, 10, 15), words.stream().map(ShellWords.Word::column).toList());
    }

    @Test
    void pointsAtTheQuoteThatIsNeverClosed() {
        ShellWords.MalformedException e = assertThrows(ShellWords.MalformedException.class,
                () -> ShellWords.split("node01 motd=\"hello world"));
        assertEquals(13, e.column());
        assertEquals(9, assertThrows(ShellWords.MalformedException.class, () -> ShellWords.split("node01 x\\")).column());
    }
}
