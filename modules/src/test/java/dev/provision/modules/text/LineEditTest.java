package dev.provision.modules.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LineEditTest {

    private static Arguments edit(String name, String text, UnaryOperator<String> op, String expected) {
        return Arguments.of(name, text, op, expected);
    }

    private static UnaryOperator<String> presentLine(String line, InsertPosition where) {
        return t -> LineEdit.present(t, line, where, false).text();
    }

    private static UnaryOperator<String> replace(String regexp, String line, InsertPosition where, boolean backrefs) {
        return t -> LineEdit.present(t, PythonRegex.compile(regexp), line, where, backrefs, false).text();
    }

    static Stream<Arguments> edits() {
        return Stream.of(
                edit("appends a missing line", "a\n", presentLine("b", InsertPosition.END_OF_FILE), "a\nb\n"),
                edit("appends after a line without final newline", "a", presentLine("b", InsertPosition.END_OF_FILE), "a\nb\n"),
                edit("leaves a present line", "a\nb\nc\n", presentLine("b", InsertPosition.END_OF_FILE), "a\nb\nc\n"),
                edit("inserts at BOF", "a\n", presentLine("b", InsertPosition.BEGINNING_OF_FILE), "b\na\n"),
                edit("inserts after last match", "x1\nx2\ny\n", presentLine("b", InsertPosition.after("^x")), "x1\nx2\nb\ny\n"),
                edit("inserts before last match", "y\nx1\nx2\n", presentLine("b", InsertPosition.before("^x")), "y\nx1\nb\nx2\n"),
                edit("unmatched insertafter goes to EOF", "a\n", presentLine("b", InsertPosition.after("^zz")), "a\nb\n"),
                edit("replaces the last regexp match", "port 1\nport 2\nz\n",
                        replace("^port ", "port 22", InsertPosition.END_OF_FILE, false), "port 1\nport 22\nz\n"),
                edit("regexp without match appends", "a\n",
                        replace("^port ", "port 22", InsertPosition.END_OF_FILE, false), "a\nport 22\n"),
                edit("regexp without match but exact line present", "port 22\n",
                        replace("^Port ", "port 22", InsertPosition.END_OF_FILE, false), "port 22\n"),
                edit("backrefs expand groups", "SELINUX=enforcing\n",
                        replace("^(SELINUX)=\\w+", "\\1=disabled", InsertPosition.END_OF_FILE, true), "SELINUX=disabled\n"),
                edit("named backrefs", "key: old\n",
                        replace("^(?P<k>\\w+): \\w+$", "\\g<k>: new", InsertPosition.END_OF_FILE, true), "key: new\n"),
                edit("backrefs without match inserts nothing", "a\n",
                        replace("^nomatch(.*)", "x\\1", InsertPosition.END_OF_FILE, true), "a\n"),
                edit("absent by regexp removes every match", "a\n#x\nb\n#y\n", t -> LineEdit.absent(t, PythonRegex.compile("^#")).text(), "a\nb\n"),
                edit("absent by line", "a\nb\na\n", t -> LineEdit.absent(t, "a").text(), "b\n"),
                edit("absent keeps a missing final newline", "a\nb", t -> LineEdit.absent(t, "a").text(), "b"),
                edit("absent of a CRLF line", "a\r\nb\r\n", t -> LineEdit.absent(t, "a").text(), "b\r\n"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("edits")
    void editsLikeLineinfile(String name, String text, UnaryOperator<String> op, String expected) {
        assertEquals(expected, op.apply(text));
    }

    @ParameterizedTest(name = "[{index}] {0} twice")
    @MethodSource("edits")
    void editingTwiceEqualsEditingOnce(String name, String text, UnaryOperator<String> op, String expected) {
        String once = op.apply(text);
        assertEquals(once, op.apply(once));
    }

    @Test
    void reportsWhatHappened() {
        assertEquals("line added", LineEdit.present("", "x", InsertPosition.END_OF_FILE, false).message());
        assertEquals("line replaced", LineEdit.present("y\n", PythonRegex.compile("y"), "x", InsertPosition.END_OF_FILE, false, false).message());
        assertEquals("2 lines removed", LineEdit.absent("x\nx\n", "x").message());
        LineEdit.Result unchanged = LineEdit.present("x\n", "x", InsertPosition.END_OF_FILE, false);
        assertFalse(unchanged.changed());
        assertEquals("line already present", unchanged.message());
    }

    @Test
    void returnsTheInputItselfWhenNothingChanges() {
        String text = "a\nb\n";
        assertSame(text, LineEdit.present(text, "b", InsertPosition.END_OF_FILE, false).text());
    }

    @Test
    void anEqualLineGainsItsNewlineAndLosesItsCarriageReturnAsInAnsible() {
        assertEquals("a\nb\n", LineEdit.present("a\nb", "b", InsertPosition.END_OF_FILE, false).text());
        assertEquals("a\r\nb\n", LineEdit.present("a\r\nb\r\n", "b", InsertPosition.END_OF_FILE, false).text());
    }

    @Test
    void insertingAfterALastLineWithoutNewlineEndsItFirst() {
        // Ansible 2.14 glues the two lines together ("ab\n"); we keep them apart.
        assertEquals("a\nb\n", LineEdit.present("a", "b", InsertPosition.after("^a"), false).text());
    }

    @Test
    void searchStringSelectsLinesContainingIt() {
        LineEdit.Selector port = new LineEdit.Selector.Containing("Port ");
        assertEquals("a\nPort 22\n", LineEdit.present("a\n#Port 2\n", java.util.Optional.of(port), "Port 22",
                InsertPosition.END_OF_FILE, false, false).text());
        assertEquals("a\n", LineEdit.absent("a\n#Port 2\n", port).text());
    }

    @Test
    void firstMatchPicksTheFirstLine() {
        LineEdit.Result r = LineEdit.present("p 1\np 2\n", PythonRegex.compile("^p "), "p 9", InsertPosition.END_OF_FILE, false, true);
        assertEquals("p 9\np 2\n", r.text());
    }

    @Test
    void rejectsBackrefToMissingGroup() {
        assertThrows(IllegalArgumentException.class,
                () -> LineEdit.present("a\n", PythonRegex.compile("a"), "\\2", InsertPosition.END_OF_FILE, true, false));
    }
}
