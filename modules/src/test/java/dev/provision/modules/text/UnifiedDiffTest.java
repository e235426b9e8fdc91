package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.provision.modules.spi.Diff;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UnifiedDiffTest {
    private static final String HEAD = "--- before: /f\n+++ after: /f\n";

    static Stream<Arguments> diffs() {
        return Stream.of(
                Arguments.of("line added at the end", "a\nb\n", "a\nb\nc\n", 3,
                        HEAD + "@@ -1,2 +1,3 @@\n a\n b\n+c\n"),
                Arguments.of("new file", "", "x\ny\n", 3,
                        HEAD + "@@ -0,0 +1,2 @@\n+x\n+y\n"),
                Arguments.of("file emptied", "x\n", "", 3,
                        HEAD + "@@ -1 +0,0 @@\n-x\n"),
                Arguments.of("line changed with context", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n", 2,
                        HEAD + "@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+FIVE\n 6\n 7\n"),
                Arguments.of("distant changes make two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "X\n2\n3\n4\n5\n6\n7\n8\nY\n", 1,
                        HEAD + "@@ -1,2 +1,2 @@\n-1\n+X\n 2\n@@ -8,2 +8,2 @@\n 8\n-9\n+Y\n"),
                Arguments.of("close changes share a hunk", "1\n2\n3\n4\n", "X\n2\n3\nY\n", 1,
                        HEAD + "@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n-4\n+Y\n"),
                Arguments.of("final newline added", "a\nb", "a\nb\n", 3,
                        HEAD + "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"),
                Arguments.of("final newline removed", "a\n", "a", 3,
                        HEAD + "@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"),
                Arguments.of("zero context", "a\nb\nc\n", "a\nB\nc\n", 0,
                        HEAD + "@@ -2 +2 @@\n-b\n+B\n"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("diffs")
    void rendersUnifiedDiff(String name, String before, String after, int context, String expected) {
        assertEquals(expected, UnifiedDiff.render(new Diff("/f", before, after), context));
    }

    @Test
    void rendersNothingWhenBeforeEqualsAfter() {
        assertEquals("", UnifiedDiff.render(new Diff("/f", "same\n", "same\n"), 3));
    }

    @Test
    void rejectsNegativeContext() {
        assertThrows(IllegalArgumentException.class, () -> UnifiedDiff.render(new Diff("/f", "a", "b"), -1));
    }
}
