package dev.provision.modules.spi;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The facts about a host that several modules read ({@link Fact}: a program and a pure parser). */
public final class Facts {
    /** A program's name as it may appear in a script's text: no word of the playbook's ever does. */
    private static final Pattern PROGRAM = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.+-]*");

    private Facts() {
    }

    /** Where the host's shell finds {@code name} ({@code command -v}): its path, or empty when it has none. */
    public static Fact<Optional<String>> program(String name) {
        return firstProgram(name);
    }

    /**
     * The first of {@code names} the host's shell finds: what {@code command -v} says of it (a path,
     * or the name of a builtin), or empty when it has none of them.
     */
    public static Fact<Optional<String>> firstProgram(String... names) {
        if (names.length == 0 || !Arrays.stream(names).allMatch(n -> PROGRAM.matcher(n).matches())) {
            throw new IllegalArgumentException("not program names: " + Arrays.toString(names));
        }
        String script = Arrays.stream(names).map(n -> "command -v " + n).collect(Collectors.joining(" || "));
        return new Fact<>(List.of("sh", "-c", script), answer -> answer.ok()
                ? answer.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst() : Optional.empty());
    }

    /** The base name of a program {@link #firstProgram} found ({@code /usr/bin/podman}: {@code podman}). */
    public static String baseName(String found) {
        return found.substring(found.lastIndexOf('/') + 1);
    }

    /**
     * What systemd says of {@code unit} ({@code systemctl is-active}): {@code active}, {@code inactive},
     * {@code failed}, {@code activating}..., or empty where systemd cannot say (no {@code systemctl}:
     * exit 127; a host not booted with systemd: nothing on standard output).
     */
    public static Fact<Optional<String>> unitActivity(String unit) {
        return new Fact<>(List.of("systemctl", "is-active", unit), answer -> {
            String word = answer.stdout().strip();
            return answer.exitCode() == 127 || word.isEmpty() ? Optional.empty() : Optional.of(word.lines().findFirst().orElse(word));
        });
    }
}
