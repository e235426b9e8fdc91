package dev.provision.modules.files;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * "This path must be a file with this content and these attributes": the one planner behind
 * {@code copy}, {@code template}, {@code lineinfile} and {@code blockinfile}, and behind every
 * other module that writes a whole file ({@code hosts}, {@code sysctl}, {@code limits},
 * {@code mount}'s fstab, {@code authorized_key}, {@code ssh_known_hosts}).
 *
 * <p>A missing file becomes one {@code PutFile} (after checking that its directory exists); a file
 * with other content becomes one {@code PutFile} with a content diff and, where they differ too, an
 * attribute diff; a file with the right content but other attributes becomes one
 * {@code SetAttributes}. A symlink is followed for reading and comparing; writing replaces the link
 * with a file, as Ansible's {@code copy} does without {@code follow}. Editors that write through
 * a link pass the path it leads to ({@link FilePaths#followLinks}).
 *
 * <p>{@link #directory} plans "this path must be a directory with these attributes", and
 * {@link #planInDirectory} a file whose directory may have to be created first. Pure functions of
 * what they read through the {@link HostView}; thread-safe.
 */
public final class FileContentPlanner {
    /** Files larger than this are compared by size first (the line diff of such a file is noise). */
    static final int LINE_DIFF_LIMIT = 100 * 1024;

    private FileContentPlanner() {
    }

    /** What is at a path now. The stat is the file's, a symlink followed. */
    public record Existing(FileStat stat, byte[] content) {
        public Existing {
            requireNonNull(stat, "stat cannot be null");
            requireNonNull(content, "content cannot be null");
        }

        /** The content as UTF-8 text, for the line editors. */
        public String text(String path) throws ModuleException {
            return decode(content).orElseThrow(() -> new ModuleException(path + " is not UTF-8 text"));
        }
    }

    /**
     * Reads the current file; empty when the path (or a symlink's target) does not exist.
     *
     * @throws ModuleException when the path is a directory or not a regular file
     */
    public static Optional<Existing> read(HostView host, String path) throws ModuleException {
        Optional<FileStat> stat = FilePaths.statFollowing(host, path);
        if (stat.isEmpty()) {
            return Optional.empty();
        }
        switch (stat.get().type()) {
            case DIRECTORY -> throw new ModuleException(path + " is a directory, not a file");
            case FILE -> {
            }
            case LINK, OTHER -> throw new ModuleException(path + " is not a regular file");
        }
        byte[] content = host.readFile(path).orElseThrow(() -> new ModuleException("cannot read " + path));
        return Optional.of(new Existing(stat.get(), content));
    }

    /** Reads the path, then plans as {@link #create} or {@link #update} with a generic summary. */
    public static Plan plan(HostView host, String path, byte[] wanted, Attributes attributes, String convergedReason)
            throws ModuleException {
        Optional<FileStat> stat = FilePaths.statFollowing(host, path);
        if (stat.isPresent() && stat.get().type() == FileStat.Type.FILE && stat.get().size() != wanted.length
                && Math.max(stat.get().size(), wanted.length) > LINE_DIFF_LIMIT) {
            // A large file of another size differs: no need to bring it over to compare (Ansible, too,
            // shows no line diff past about 100 KiB).
            List<Diff> diffs = new ArrayList<>();
            diffs.add(new Diff(path, "", "content differs (" + stat.get().size() + " bytes -> " + wanted.length + " bytes)\n"));
            FileAttributes.diff(path, stat.get(), attributes).ifPresent(diffs::add);
            Command put = new Command.PutFile(path, wanted, FileAttributes.keepingCurrent(stat.get(), attributes));
            return Plan.of(new Change("update " + path, diffs, List.of(put)));
        }
        Optional<Existing> existing = read(host, path);
        if (existing.isEmpty()) {
            return create(host, path, wanted, attributes);
        }
        return update(path, existing.get(), wanted, attributes, "update " + path, convergedReason);
    }

    /** Plans a new file; fails when its directory is missing (Ansible's {@code copy} and {@code template} do). */
    public static Plan create(HostView host, String path, byte[] wanted, Attributes attributes) throws ModuleException {
        FilePaths.requireParentDirectory(host, path);
        return createInNewDirectory(path, wanted, attributes);
    }

    /**
     * Plans a new file, creating its missing directories first ({@code mkdir -p} with the default
     * mode, as Ansible's {@code create: true} does with {@code os.makedirs}).
     */
    public static Plan createWithParents(HostView host, String path, byte[] wanted, Attributes attributes)
            throws ModuleException {
        String parent = FilePaths.parent(path);
        if (FilePaths.missingDirectories(host, parent).isEmpty()) {
            return create(host, path, wanted, attributes);
        }
        List<Change> changes = new ArrayList<>();
        changes.add(Change.withDiff("create directory " + parent, new Diff(parent, "state: absent\n", "state: directory\n"),
                new Command.MakeDirectory(parent, Attributes.NONE)));
        changes.addAll(createInNewDirectory(path, wanted, attributes).changes());
        return Plan.of(changes, "");
    }

    /** Plans a new file whose directory an earlier change of the same plan creates. */
    public static Plan createInNewDirectory(String path, byte[] wanted, Attributes attributes) {
        String summary = "create " + path + (attributes.isEmpty() ? "" : " (" + FileAttributes.describe(attributes) + ")");
        return Plan.of(Change.withDiff(summary, contentDiff(path, new byte[0], wanted),
                new Command.PutFile(path, wanted, FileAttributes.forNewFile(attributes))));
    }

    /**
     * Plans an existing file.
     *
     * @param summary what the content change does ({@code line added to /etc/x})
     * @param convergedReason why nothing changes, when nothing does
     */
    public static Plan update(String path, Existing existing, byte[] wanted, Attributes attributes, String summary,
                       String convergedReason) {
        Optional<Change> attributeChange = FileAttributes.change(path, existing.stat(), attributes);
        if (Arrays.equals(existing.content(), wanted)) {
            return attributeChange.map(Plan::of).orElseGet(() -> Plan.converged(convergedReason));
        }
        List<Diff> diffs = new ArrayList<>();
        diffs.add(contentDiff(path, existing.content(), wanted));
        FileAttributes.diff(path, existing.stat(), attributes).ifPresent(diffs::add);
        Command put = new Command.PutFile(path, wanted, FileAttributes.keepingCurrent(existing.stat(), attributes));
        return Plan.of(new Change(summary, diffs, List.of(put)));
    }

    /**
     * Plans a file as {@link #plan} does, except that a missing directory is created first with
     * {@code directoryAttributes} ({@code mkdir -p}); use it for drop-in directories such as
     * {@code /etc/systemd/system.conf.d} that a fresh host may lack.
     */
    public static Plan planInDirectory(HostView host, String path, byte[] wanted, Attributes attributes,
                                       Attributes directoryAttributes, String convergedReason) throws ModuleException {
        String parent = FilePaths.parent(path);
        if (FilePaths.statFollowing(host, parent).isPresent()) {
            return plan(host, path, wanted, attributes, convergedReason);
        }
        // One mkdir -p with the attributes on the last directory: a drop-in directory's parents are the system's.
        List<Change> changes = new ArrayList<>();
        changes.add(Change.withDiff("create directory " + parent, new Diff(parent, "state: absent\n", "state: directory\n"),
                new Command.MakeDirectory(parent, FileAttributes.forNew(directoryAttributes, true))));
        changes.addAll(createInNewDirectory(path, wanted, attributes).changes());
        return Plan.of(changes, convergedReason);
    }

    /**
     * Plans "this path is a directory with these attributes": when it is missing, a {@code mkdir}
     * of each missing directory with the attributes (as Ansible's {@code file} gives them to every
     * directory it creates; one {@code mkdir -p} when there are none); the attributes that differ
     * when it exists; nothing when all is right. A final symlink is followed.
     *
     * @throws ModuleException when the path exists and is not a directory
     */
    public static Plan directory(HostView host, String path, Attributes wanted) throws ModuleException {
        Optional<FileStat> current = FilePaths.statFollowing(host, path);
        if (current.isEmpty()) {
            // Every directory created gets the attributes, as Ansible's file module gives them; without
            // attributes one mkdir -p does the same.
            List<String> missing = wanted.isEmpty() ? List.of(path) : FilePaths.missingDirectories(host, path);
            List<Command> mkdirs = missing.stream().<Command>map(d -> new Command.MakeDirectory(d, FileAttributes.forNew(wanted, true))).toList();
            return Plan.of(new Change("create directory " + path,
                    List.of(new Diff(path, "state: absent\n", "state: directory\n")), mkdirs));
        }
        if (current.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException(path + " already exists as a " + FilePaths.kind(current.get()) + ", not a directory");
        }
        String what = path + " is a directory";
        return FileAttributes.change(path, current.get(), wanted)
                .map(Plan::of)
                .orElseGet(() -> Plan.converged(what + (wanted.isEmpty() ? "" : " with " + FileAttributes.describe(wanted))));
    }

    /** A text diff, or one line about the sizes when either side is not text. */
    static Diff contentDiff(String path, byte[] before, byte[] after) {
        Optional<String> beforeText = decode(before);
        Optional<String> afterText = decode(after);
        if (beforeText.isPresent() && afterText.isPresent()) {
            return new Diff(path, beforeText.get(), afterText.get());
        }
        return new Diff(path, "", "binary content differs (" + before.length + " bytes -> " + after.length + " bytes)\n");
    }

    /** Strict UTF-8 without NUL bytes, else empty: raw bytes must never reach a terminal (nor a saved plan's text). */
    public static Optional<String> decode(byte[] bytes) {
        boolean ascii = true;
        for (byte b : bytes) {
            if (b == 0) {
                return Optional.empty();
            }
            ascii &= b > 0;
        }
        if (ascii) {
            return Optional.of(new String(bytes, StandardCharsets.ISO_8859_1)); // the common case, without a decoder
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
