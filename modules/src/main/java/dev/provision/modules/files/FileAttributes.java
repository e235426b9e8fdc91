package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code mode}, {@code owner} and {@code group} parameters every file module takes.
 *
 * <p>Modes are octal digits: {@code "0644"}, {@code "644"}, {@code "1777"} and {@code "0o755"} are
 * accepted and normalised to four digits ({@code 0644}). Symbolic modes ({@code u+x}) are not
 * supported. An integer is read as the octal digits it is written with: {@code mode: 644} means
 * {@code 0644} (Ansible would read it as decimal 644, a classic trap). The catch: a YAML loader that
 * follows YAML 1.1 turns an unquoted {@code 0644} into the integer 420 before any module sees it,
 * which would then mean {@code 0420}; the playbook loader must hand mode scalars over as written.
 * Quoting the mode ({@code "0644"}) is always safe.
 *
 * <p>Owners and groups are compared by name with what {@code stat} reports.
 */
final class FileAttributes {
    private FileAttributes() {
    }

    static ParamSpec.Builder declare(ParamSpec.Builder spec) {
        return spec.optional("mode", ParamSpec.Type.STRING)
                .optional("owner", ParamSpec.Type.STRING)
                .optional("group", ParamSpec.Type.STRING);
    }

    /** The attributes the task asks for, the mode normalised. */
    static Attributes requested(Params params) throws ModuleException {
        Optional<String> mode = params.optString("mode");
        return new Attributes(mode.isPresent() ? Optional.of(normalizeMode(mode.get())) : Optional.empty(),
                params.optString("owner"), params.optString("group"));
    }

    /** Four octal digits for a mode written as octal digits. */
    static String normalizeMode(String written) throws ModuleException {
        String digits = written.strip();
        if (digits.startsWith("0o")) {
            digits = digits.substring(2);
        }
        if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(c -> c >= '0' && c <= '7')) {
            throw new ModuleException("mode '" + written + "' is not an octal mode such as '0644' (symbolic modes are not supported)");
        }
        int value = Integer.parseInt(digits, 8);
        if (value > 07777) {
            throw new ModuleException("mode '" + written + "' is larger than 07777");
        }
        return String.format("%04o", value);
    }

    /** The requested attributes that differ from the current ones; empty when all match. */
    static Attributes differing(FileStat current, Attributes wanted) {
        return new Attributes(
                wanted.mode().filter(m -> !m.equals(current.octalMode())),
                wanted.owner().filter(o -> !o.equals(current.owner())),
                wanted.group().filter(g -> !g.equals(current.group())));
    }

    /**
     * What a file rewritten in place must get: the requested attributes, the current ones for the
     * rest, so that replacing the content never changes the owner or the mode behind the user's back.
     */
    static Attributes keepingCurrent(FileStat current, Attributes wanted) {
        return new Attributes(
                Optional.of(wanted.mode().orElse(current.octalMode())),
                Optional.of(wanted.owner().orElse(current.owner())),
                Optional.of(wanted.group().orElse(current.group())));
    }

    /** The diff of the attributes that differ, or empty when none does. */
    static Optional<Diff> diff(String path, FileStat current, Attributes wanted) {
        Attributes differing = differing(current, wanted);
        if (differing.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder before = new StringBuilder();
        StringBuilder after = new StringBuilder();
        differing.mode().ifPresent(m -> line(before, after, "mode", current.octalMode(), m));
        differing.owner().ifPresent(o -> line(before, after, "owner", current.owner(), o));
        differing.group().ifPresent(g -> line(before, after, "group", current.group(), g));
        return Optional.of(new Diff(path, before.toString(), after.toString()));
    }

    /** A change setting the attributes that differ, or empty when none does. */
    static Optional<Change> change(String path, FileStat current, Attributes wanted) {
        Attributes differing = differing(current, wanted);
        if (differing.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Change.withDiff("set " + describe(differing) + " of " + path,
                diff(path, current, wanted).orElseThrow(), new Command.SetAttributes(path, differing)));
    }

    /** {@code mode 0600, owner root}. */
    static String describe(Attributes attributes) {
        List<String> parts = new ArrayList<>();
        attributes.mode().ifPresent(m -> parts.add("mode " + m));
        attributes.owner().ifPresent(o -> parts.add("owner " + o));
        attributes.group().ifPresent(g -> parts.add("group " + g));
        return String.join(", ", parts);
    }

    private static void line(StringBuilder before, StringBuilder after, String name, String was, String wanted) {
        before.append(name).append(": ").append(was).append('\n');
        after.append(name).append(": ").append(wanted).append('\n');
    }
}
