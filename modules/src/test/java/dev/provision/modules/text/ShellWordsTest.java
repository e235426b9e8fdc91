package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShellWordsTest {

    static Stream<Arguments> splits() {
        return Stream.of(
                Arguments.of("ls -l /tmp", List.of("ls", "-l", "/tmp")),
                Arguments.of("  spaced\tout\n words  ", List.of("spaced", "out", "words")),
                Arguments.of("", List.of()),
                Arguments.of("echo 'a b'  c", List.of("echo", "a b", "c")),
                Arguments.of("echo \"a b\" c", List.of("echo", "a b", "c")),
                Arguments.of("echo '$HOME' \"$HOME\"", List.of("echo", "$HOME", "$HOME")),
                Arguments.of("echo 'it'\\''s'", List.of("echo", "it's")),
                Arguments.of("echo \"say \\\"hi\\\" \\\\ \\n\"", List.of("echo", "say \"hi\" \\ \\n")),
                Arguments.of("echo a\\ b", List.of("echo", "a b")),
                Arguments.of("echo '' \"\"", List.of("echo", "", "")),
                Arguments.of("pre'mid'\"post\"", List.of("premidpost")),
                Arguments.of("one\\\ntwo", List.of("onetwo")),
                Arguments.of("grep x | wc -l > out", List.of("grep", "x", "|", "wc", "-l", ">", "out")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("splits")
    void splitsLikeAPosixShell(String line, List<String> words) {
        assertEquals(words, ShellWords.split(line));
    }

    @ParameterizedTest
    @ValueSource(strings = {"echo 'open", "echo \"open", "echo \"a\\\"", "echo trailing\\"})
    void rejectsUnterminatedInput(String line) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShellWords.split(line));
        assertTrue(e.getMessage().contains(line), e.getMessage());
    }

    @Test
    void namesTheKindOfUnterminatedQuote() {
        assertTrue(ShellWords.split("ok").size() == 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShellWords.split("a 'b"))
                .getMessage().startsWith("unterminated single quote at column 3"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShellWords.split("a \"b"))
                .getMessage().startsWith("unterminated double quote at column 3"));
    }

    static Stream<List<String>> wordLists() {
        return Stream.of(List.of("a"), List.of("it's", "a b", ""), List.of("$x", "`y`", "\"q\"", "back\\slash"),
                List.of("tab\there", "new\nline", "*", "~"));
    }

    @ParameterizedTest
    @MethodSource("wordLists")
    void splitReadsBackWhatJoinWrote(List<String> words) {
        assertEquals(words, ShellWords.split(ShellWords.join(words)));
    }
}
