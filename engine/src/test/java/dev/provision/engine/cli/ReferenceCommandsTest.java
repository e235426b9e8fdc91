package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code provision doc}, {@code completion} and {@code man}: made from the definitions the engine uses. */
class ReferenceCommandsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int provision(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void docShowsAModulesParametersAsTheEngineValidatesThem() {
        assertEquals(0, provision("doc", "sysctl"), printed());
        assertTrue(printed().matches("(?s)sysctl\n\nParameters:\n  name +string; required; aliases: key\n.*"), printed());
        assertTrue(printed().contains("state           string; default: present; one of: present, absent"), printed());
    }

    @Test
    void docShowsADescriptionWithDollarsAndBackslashesAsWritten() {
        assertEquals(0, provision("doc", "replace"), printed());
        assertTrue(printed().contains("(\\1, \\g<1>, \\g<name> insert groups; $ is a plain dollar)"), printed());
    }

    @Test
    void docNamesTheAnsibleParametersAModuleRefusesWithTheReason() {
        assertEquals(0, provision("doc", "apt"), printed());
        assertTrue(printed().contains("\nNot supported (refused with the reason; false or no is accepted as not given):\n"), printed());
        assertTrue(printed().contains("\n  deb: provision installs from the package lists only;"), printed());
    }

    @Test
    void docListsTheModulesAndSuggestsForATypo() {
        assertEquals(0, provision("doc"), printed());
        assertTrue(printed().contains("\n  blockinfile\n") && printed().contains("\n  sysctl\n"), printed());
        out.reset();
        assertEquals(ExitCode.USAGE.code(), provision("doc", "sysclt"));
        assertTrue(printed().contains("no module 'sysclt' (did you mean sysctl?)"), printed());
    }

    @Test
    void completionAndManCoverEveryOptionAndCommand() {
        assertEquals(0, provision("completion"), printed());
        String completion = printed();
        out.reset();
        assertEquals(0, provision("man"), printed());
        String man = printed();
        for (String option : new String[] {"--check", "--save-plan", "--apply-plan", "--task-timeout", "--become-user"}) {
            assertTrue(completion.contains(option), option + " in the completion script");
            assertTrue(man.contains(option.replace("-", "\\-")), option + " in the man page");
        }
        assertTrue(completion.contains("migrate") && man.contains(".B migrate"), man);
        assertTrue(man.startsWith(".TH PROVISION 1\n") && man.contains(".SH EXIT STATUS"), man);
    }
}
