package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.engine.e2e.Launched;
import dev.provision.engine.e2e.Provision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two launchers, {@code ./provision} and the installed {@code packaging/provision.sh}, started from
 * a current directory the JVM could not start in: one line that says what to do and exit 5, never the
 * JVM's "Error occurred during initialization of VM". Both checks run before Java is looked for, so
 * no jar or runtime is needed.
 */
class LauncherTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    /** nobody/nogroup on Debian, the overflow ids everywhere. */
    private static final String NOBODY = "65534";

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"provision", "packaging/provision.sh"})
    void aCurrentDirectoryTheUserCannotEnterIsOneLineAndExit5(String launcher) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs root and setpriv to run the launcher as another user");
        assumeTrue(asNobody(tmp, "test", "-r", Provision.REPO.resolve(launcher).toString()).exitCode() == 0,
                "the checkout is out of reach of user nobody");
        Path closed = Files.createDirectory(tmp.resolve("closed"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));

        List<String> command = new ArrayList<>(start(launcher));
        command.add("--version");
        Launched.Output run = asNobody(closed, command.toArray(String[]::new));

        assertEquals(5, run.exitCode(), run.stderr());
        assertEquals("provision: cannot read the current directory " + closed.toRealPath() + " (permission denied): cd to a"
                + " directory you can read and run provision again\n", run.stderr());
        assertEquals("", run.stdout());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"provision", "packaging/provision.sh"})
    void aDeletedCurrentDirectoryIsOneLineAndExit5(String launcher) throws Exception {
        Path gone = Files.createDirectory(tmp.resolve("gone"));
        List<String> command = new ArrayList<>(List.of("sh", "-c", "cd \"$1\" && rmdir \"$1\" && shift && exec \"$@\" --version",
                "sh", gone.toString()));
        command.addAll(start(launcher));
        Launched.Output run = Launched.run(new ProcessBuilder(command), LIMIT);

        assertEquals(5, run.exitCode(), run.stderr());
        // the shell itself may say first that it lost its directory; ours is the last line, and the only one of provision
        List<String> lines = run.stderr().lines().toList();
        assertEquals("provision: the current directory no longer exists: cd to another one and run provision again",
                lines.getLast(), run.stderr());
        assertFalse(run.stderr().contains("initialization of VM") || run.stderr().contains("java."), run.stderr());
    }

    /** The package installs provision.sh executable; in the checkout it is a plain file. */
    private static List<String> start(String launcher) {
        String path = Provision.REPO.resolve(launcher).toString();
        return launcher.endsWith(".sh") ? List.of("sh", path) : List.of(path);
    }

    private static Launched.Output asNobody(Path directory, String... command) throws Exception {
        List<String> argv = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups"));
        argv.addAll(List.of(command));
        return Launched.run(new ProcessBuilder(argv).directory(directory.toFile()), LIMIT);
    }
}
