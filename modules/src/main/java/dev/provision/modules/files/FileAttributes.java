package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code mode}, {@code owner} and {@code group} parameters every file module takes.
 *
 * <p>Modes are octal digits: {@code "0644"}, {@code "644"}, {@code "1777"} and {@code "0o755"} are
 * accepted and normalised to four digits ({@code 0644}). Symbolic modes ({@code u+rwx,g-w}) are
 * applied to the current mode when the plan is made ({@link SymbolicMode}; a new file counts from
 * {@code 0644}, a new directory from {@code 0755}), so that commands only ever carry octal modes.
 * {@code preserve} ({@code copy} and {@code template}) is the mode of the controller's source file.
 * An integer is read as the octal digits it is written with: {@code mode: 644} means
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

    /**
     * The attributes the task asks for, the mode normalised (a symbolic mode stays symbolic until
     * {@link #differing}, {@link #keepingCurrent} or {@link #forNew} resolve it).
     */
    static Attributes requested(Params params) throws ModuleException {
        Optional<String> mode = params.optString("mode");
        if (mode.isPresent() && mode.get().equals("preserve")) {
            throw new ModuleException("mode=preserve needs a src file to take the mode from");
        }
        return new Attributes(mode.isPresent() ? Optional.of(normalizeMode(mode.get())) : Optional.empty(),
                params.optString("owner"), params.optString("group"));
    }

    /** As {@link #requested(Params)}, with {@code mode: preserve} meaning the mode of the controller file {@code source}. */
    static Attributes requested(Params params, Path source) throws ModuleException {
        if (!params.optString("mode").filter("preserve"::equals).isPresent()) {
            return requested(params);
        }
        try {
            int bits = 0;
            for (PosixFilePermission p : Files.getPosixFilePermissions(source)) {
                bits |= 0400 >> p.ordinal();
            }
            return new Attributes(Optional.of(FileStat.octal(bits)), params.optString("owner"), params.optString("group"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new ModuleException("mode=preserve: cannot read the mode of " + source + ": " + e.getMessage(), e);
        }
    }

    /** Four octal digits for a mode written as octal digits; a symbolic mode checked and kept as written. */
    static String normalizeMode(String written) throws ModuleException {
        if (SymbolicMode.looksSymbolic(written.strip()) && !written.strip().startsWith("0o")) {
            SymbolicMode.validate(written.strip());
            return written.strip();
        }
        String digits = written.strip();
        if (digits.startsWith("0o")) {
            digits = digits.substring(2);
        }
        if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(c -> c >= '0' && c <= '7')) {
            throw new ModuleException("mode '" + written + "' is not an octal mode such as '0644' nor a symbolic one such as 'u+rwx,g-w'");
        }
        int value = Integer.parseInt(digits, 8);
        if (value > 07777) {
            throw new ModuleException("mode '" + written + "' is larger than 07777");
        }
        return FileStat.octal(value);
    }

    /** The wanted mode in octal: a symbolic one applied to {@code base} (the mode it changes). */
    static String resolveMode(String wanted, int base, boolean directory) {
        return SymbolicMode.looksSymbolic(wanted) ? FileStat.octal(SymbolicMode.apply(wanted, base, directory)) : wanted;
    }

    /** The attributes resolved against an existing path's mode. */
    static Attributes resolved(FileStat current, Attributes wanted) {
        return new Attributes(wanted.mode().map(m -> resolveMode(m, current.mode(), current.type() == FileStat.Type.DIRECTORY)),
                wanted.owner(), wanted.group());
    }

    /** The attributes for a path that a command creates: a symbolic mode counts from {@code 0644} or {@code 0755}. */
    static Attributes forNew(Attributes wanted, boolean directory) {
        return new Attributes(wanted.mode().map(m -> resolveMode(m, directory ? 0755 : 0644, directory)),
                wanted.owner(), wanted.group());
    }

    static Attributes forNewFile(Attributes wanted) {
        return forNew(wanted, false);
    }

    /** The requested attributes that differ from the current ones; empty when all match. */
    static Attributes differing(FileStat current, Attributes requested) {
        Attributes wanted = resolved(current, requested);
        return new Attributes(
                wanted.mode().filter(m -> !m.equals(current.octalMode())),
                wanted.owner().filter(o -> !o.equals(current.owner())),
                wanted.group().filter(g -> !g.equals(current.group())));
    }

    /**
     * What a file rewritten in place must get: the requested attributes, the current ones for the
     * rest, so that replacing the content never changes the owner or the mode behind the user's back.
     */
    static Attributes keepingCurrent(FileStat current, Attributes requested) {
        Attributes wanted = resolved(current, requested);
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
