package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.text.ManagedBlock.Markers;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ManagedBlockTest {
    private static final String B = "# BEGIN ANSIBLE MANAGED BLOCK";
    private static final String E = "# END ANSIBLE MANAGED BLOCK";

    static Stream<Arguments> puts() {
        return Stream.of(
                Arguments.of("a marker inside a line is no marker", "x" + B + "\nx\n" + E + "\n", "x", InsertPosition.END_OF_FILE,
                        "x" + B + "\nx\n" + E + "\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("a lone carriage return ends the line before a marker, which gains a newline",
                        "a\r" + B + "\nx\n" + E + "\n", "x", InsertPosition.END_OF_FILE, "a\r\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("the last of two blocks counts", B + "\nold\n" + E + "\n" + B + "\nx\n" + E + "\n", "x\n",
                        InsertPosition.END_OF_FILE, B + "\nold\n" + E + "\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("a block that holds more than the wanted lines is replaced", B + "\nx\ny\n" + E + "\n", "x",
                        InsertPosition.END_OF_FILE, B + "\nx\n" + E + "\n"),
                Arguments.of("swapped markers are rewritten in order", E + "\nx\n" + B + "\n", "x",
                        InsertPosition.END_OF_FILE, B + "\nx\n" + E + "\n"),
                Arguments.of("appends at EOF", "a\nb\n", "x\ny\n", InsertPosition.END_OF_FILE,
                        "a\nb\n" + B + "\nx\ny\n" + E + "\n"),
                Arguments.of("appends to a file without final newline", "a", "x", InsertPosition.END_OF_FILE,
                        "a\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("inserts into an empty file", "", "x", InsertPosition.END_OF_FILE,
                        B + "\nx\n" + E + "\n"),
                Arguments.of("inserts at BOF", "a\n", "x", InsertPosition.BEGINNING_OF_FILE,
                        B + "\nx\n" + E + "\na\n"),
                Arguments.of("inserts after the last matching line", "k=1\nk=2\nz\n", "x", InsertPosition.after("^k="),
                        "k=1\nk=2\n" + B + "\nx\n" + E + "\nz\n"),
                Arguments.of("inserts before the last matching line", "a\nz\nz\n", "x", InsertPosition.before("^z"),
                        "a\nz\n" + B + "\nx\n" + E + "\nz\n"),
                Arguments.of("unmatched regex falls back to EOF", "a\n", "x", InsertPosition.after("nomatch"),
                        "a\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("replaces an existing block in place", "a\n" + B + "\nold\nold2\n" + E + "\nz\n", "new",
                        InsertPosition.END_OF_FILE, "a\n" + B + "\nnew\n" + E + "\nz\n"),
                Arguments.of("position ignored when block exists", B + "\nold\n" + E + "\nz\n", "new",
                        InsertPosition.END_OF_FILE, B + "\nnew\n" + E + "\nz\n"),
                Arguments.of("empty block removes markers", "a\n" + B + "\nold\n" + E + "\n", "",
                        InsertPosition.END_OF_FILE, "a\n"),
                Arguments.of("only one marker: a new block is added", "a\n" + B + "\n", "x",
                        InsertPosition.END_OF_FILE, "a\n" + B + "\n" + B + "\nx\n" + E + "\n"),
                Arguments.of("keeps a missing final newline after the block", B + "\nold\n" + E + "\nz", "new",
                        InsertPosition.END_OF_FILE, B + "\nnew\n" + E + "\nz"),
                Arguments.of("ends the line before an inserted block", "a\nb", "x", InsertPosition.BEGINNING_OF_FILE,
                        B + "\nx\n" + E + "\na\nb"),
                Arguments.of("multi-line insertafter counts the match's newlines", "a\nb\nc\n", "x",
                        InsertPosition.after("(?m)^a\\nb$"), "a\nb\n" + B + "\nx\n" + E + "\nc\n"),
                Arguments.of("multi-line insertbefore", "a\nb\nc\n", "x",
                        InsertPosition.before("(?m)^b\\nc"), "a\n" + B + "\nx\n" + E + "\nb\nc\n"),
                Arguments.of("CRLF lines kept as they are", "a\r\nb\r\n", "x", InsertPosition.END_OF_FILE,
                        "a\r\nb\r\n" + B + "\nx\n" + E + "\n"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("puts")
    void putsTheBlock(String name, String text, String block, InsertPosition where, String expected) {
        assertEquals(expected, ManagedBlock.put(text, Markers.DEFAULT, block, where));
    }

    @ParameterizedTest(name = "[{index}] {0} twice")
    @MethodSource("puts")
    void putIsIdempotent(String name, String text, String block, InsertPosition where, String expected) {
        String once = ManagedBlock.put(text, Markers.DEFAULT, block, where);
        assertEquals(once, ManagedBlock.put(once, Markers.DEFAULT, block, where));
    }

    @Test
    void returnsTheInputUnchangedWhenTheBlockIsAlreadyThere() {
        String text = "a\n" + B + "\nx\n" + E + "\n";
        assertSame(text, ManagedBlock.put(text, Markers.DEFAULT, "x\n", InsertPosition.END_OF_FILE));
    }

    @Test
    void removesTheBlockAndKeepsEverythingElse() {
        String text = "a\n" + B + "\nx\n" + E + "\nz\n";
        String removed = ManagedBlock.remove(text, Markers.DEFAULT);
        assertEquals("a\nz\n", removed);
        assertEquals(removed, ManagedBlock.remove(removed, Markers.DEFAULT));
    }

    @Test
    void customMarkersKeepSeparateBlocksApart() {
        Markers ntp = Markers.of("// {mark} ntp", "start", "stop");
        String text = ManagedBlock.put("", Markers.DEFAULT, "one", InsertPosition.END_OF_FILE);
        String both = ManagedBlock.put(text, ntp, "two", InsertPosition.END_OF_FILE);
        assertEquals(B + "\none\n" + E + "\n// start ntp\ntwo\n// stop ntp\n", both);
        assertTrue(ManagedBlock.isPresent(both, ntp));
        assertEquals(text, ManagedBlock.remove(both, ntp));
        assertFalse(ManagedBlock.isPresent(text, ntp));
    }

    /** The scan without splitting (no '\r') and the line split agree on when a marker is a whole line. */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "both markers on their own lines|a\\n%B\\nx\\n%E\\n|true",
            "only the begin marker|a\\n%B\\nx\\n|false",
            "end marker without its newline at the end of the file|%B\\nx\\n%E|false",
            "markers inside longer lines|x %B\\ny\\n%E y\\n|false",
            "marker at the very start|%B\\n%E\\n|true",
            "markers swapped|%E\\nx\\n%B\\n|true",
    })
    void findsBothMarkersAsWholeLines(String name, String shape, boolean present) {
        String text = shape.replace("\\n", "\n").replace("%B", B).replace("%E", E);
        assertEquals(present, ManagedBlock.isPresent(text, Markers.DEFAULT));
        // A lone carriage return in another line sends it through the line split: the same answer.
        assertEquals(present, ManagedBlock.isPresent("lone\rcr\n" + text, Markers.DEFAULT));
    }

    @Test
    void renamesTheMarkersOfABlockInPlace() {
        String old = "a\n# BEGIN MANAGED BLOCK\nx\n# END MANAGED BLOCK\nz\n";
        assertEquals("a\n" + B + "\nx\n" + E + "\nz\n", ManagedBlock.renameMarkers(old, Markers.FORMER_DEFAULT, Markers.DEFAULT));
        assertSame(old, ManagedBlock.renameMarkers(old, Markers.of("# {mark} other", "BEGIN", "END"), Markers.DEFAULT));
    }

    @Test
    void rejectsAMarkerTemplateWithoutMark() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Markers.of("# managed", "BEGIN", "END"));
        assertTrue(e.getMessage().contains("{mark}"), e.getMessage());
    }
}
