package dev.provision.modules.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.testing.Args;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** How YAML-shaped values reach the file modules: the spec's coercions and the mode rule. */
class ModeAndCoercionTest {
    private final LineInFileModule lineinfile = new LineInFileModule();

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of("0644", "0644"),
                Arguments.of("644", "0644"),
                Arguments.of(644, "0644"),       // an integer is read as the octal digits it is written with
                Arguments.of(420, "0420"),       // so YAML 1.1's 0644-as-420 would mean 0420: the loader must keep the digits
                Arguments.of("1777", "1777"),
                Arguments.of("01777", "1777"),
                Arguments.of("0o750", "0750"),
                Arguments.of(" 0600 ", "0600"));
    }

    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @MethodSource("modes")
    void normalisesModes(Object written, String expected) throws Exception {
        Params params = lineinfile.params().validate(Args.of("path", "/x", "line", "a", "mode", written));
        assertEquals(Optional.of(expected), FileAttributes.requested(params).mode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"u+q", "0648", "", "rw-r--r--", "99999"})
    void rejectsModesThatAreNotOctal(String mode) {
        assertThrows(ModuleException.class, () -> FileAttributes.normalizeMode(mode));
    }

    @Test
    void modeStaysAStringThroughValidation() throws Exception {
        assertEquals("0644", lineinfile.params().validate(Args.of("path", "/x", "mode", "0644")).string("mode"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "true", "on", "1", "YES"})
    void truthyStringsBecomeTrue(String written) throws Exception {
        assertTrue(lineinfile.params().validate(Args.of("path", "/x", "create", written)).bool("create"));
    }

    @Test
    void unknownParameterSuggestsTheClosestName() {
        ParamException e = assertThrows(ParamException.class,
                () -> lineinfile.params().validate(Args.of("path", "/x", "insertafte", "EOF")));
        assertEquals("insertafte", e.param());
        assertTrue(e.getMessage().contains("did you mean 'insertafter'?"), e.getMessage());
    }

    @Test
    void choicesAreEnforced() {
        ParamException e = assertThrows(ParamException.class,
                () -> lineinfile.params().validate(Args.of("path", "/x", "state", "latest")));
        assertEquals("state", e.param());
        assertTrue(e.getMessage().contains("must be one of: present, absent"), e.getMessage());
    }

    @Test
    void aliasesResolveToTheCanonicalName() throws Exception {
        assertEquals("/x", lineinfile.params().validate(Args.of("dest", "/x", "line", "a")).string("path"));
        ParamException e = assertThrows(ParamException.class,
                () -> lineinfile.params().validate(Args.of("dest", "/x", "name", "/y")));
        assertTrue(e.getMessage().contains("repeats"), e.getMessage());
    }
}
