package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code copy} of a large controller file ({@value #THRESHOLD} bytes and more): planned without
 * reading the source into memory or the host's file back. A host file of another size differs; one
 * of the same size is compared on the host ({@link HostView#holdsControllerFile}); the write is an
 * {@link Command.UploadFile}, streamed. Shows no line diff (Ansible shows none past about 100 KiB
 * either). {@code validate} and {@code backup} keep the in-memory path ({@link CopyModule}).
 */
final class LargeUpload {
    static final long THRESHOLD = 4L * 1024 * 1024;

    private LargeUpload() {
    }

    /** Whether {@code file} is a regular controller file large enough to be uploaded as a stream. */
    static boolean applies(Path file) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return attributes.isRegularFile() && attributes.size() >= THRESHOLD;
        } catch (IOException e) {
            return false; // the in-memory path reports why it cannot be read
        }
    }

    /** As {@link CopyModule#planFile}, for a source that stays on the controller until the write. */
    static Plan plan(HostView host, String dest, String basename, Path source, Attributes attributes, boolean follow,
                     boolean force) throws ModuleException {
        BasicFileAttributes sourceAttributes;
        try {
            sourceAttributes = Files.readAttributes(source, BasicFileAttributes.class);
        } catch (IOException e) {
            throw new ModuleException("cannot read src " + source + ": " + e.getMessage(), e);
        }
        long size = sourceAttributes.size();
        long modified = sourceAttributes.lastModifiedTime().toMillis();
        List<Change> changes = new ArrayList<>();
        String path = dest;
        if (dest.endsWith("/")) {
            path = dest + basename;
            String dir = FilePaths.stripTrailingSlashes(dest);
            if (FilePaths.statFollowing(host, dir).isEmpty()) {
                changes.add(Change.withDiff("create directory " + dir, new Diff(dir, "state: absent\n", "state: directory\n"),
                        new Command.MakeDirectory(dir, Attributes.NONE)));
            }
        } else if (FilePaths.statFollowing(host, dest).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent()) {
            path = dest + "/" + basename;
        }
        Command.UploadFile upload = new Command.UploadFile(path, source, size, modified, FileAttributes.forNewFile(attributes));
        if (!changes.isEmpty()) {
            changes.add(create(path, size, upload, attributes));
            return Plan.of(changes, "");
        }
        Optional<FileStat> own = host.stat(path);
        if (own.isPresent() && own.get().type() == FileStat.Type.LINK) {
            Optional<FileStat> target = FilePaths.statFollowing(host, path);
            if (!force && target.isPresent()) {
                return Plan.converged(path + " exists (force=false: its content is left alone)");
            }
            if (!follow || target.isEmpty()) {
                // Ansible unlinks the link and writes a file in its place (see CopyModule)
                return Plan.of(new Change("replace link " + path + " with a file",
                        List.of(new Diff(path, "state: link\ntarget: " + own.get().linkTarget() + "\n", "state: file\n"),
                                sizeDiff(path, 0, size)),
                        List.of(new Command.Remove(path), upload)));
            }
            path = FilePaths.followLinks(host, path);
            upload = new Command.UploadFile(path, source, size, modified, FileAttributes.forNewFile(attributes));
        }
        Optional<FileStat> current = FilePaths.statFollowing(host, path);
        if (current.isEmpty()) {
            FilePaths.requireParentDirectory(host, path);
            return Plan.of(create(path, size, upload, attributes));
        }
        if (!force) {
            return Plan.converged(path + " exists (force=false: its content is left alone)");
        }
        FileStat stat = current.get();
        if (stat.type() != FileStat.Type.FILE) {
            throw new ModuleException(path + " is a " + FilePaths.kind(stat) + ", not a file");
        }
        if (stat.size() == size && !host.changesPending(path) && host.holdsControllerFile(path, source)) {
            String reason = CopyModule.convergedReason(path, attributes);
            return FileAttributes.change(path, stat, attributes).map(Plan::of).orElseGet(() -> Plan.converged(reason));
        }
        List<Diff> diffs = new ArrayList<>();
        diffs.add(sizeDiff(path, stat.size(), size));
        FileAttributes.diff(path, stat, attributes).ifPresent(diffs::add);
        Command.UploadFile update = new Command.UploadFile(path, source, size, modified, FileAttributes.keepingCurrent(stat, attributes));
        return Plan.of(new Change("update " + path, diffs, List.of(update)));
    }

    private static Change create(String path, long size, Command.UploadFile upload, Attributes attributes) {
        String summary = "create " + path + (attributes.isEmpty() ? "" : " (" + FileAttributes.describe(attributes) + ")");
        return Change.withDiff(summary, new Diff(path, "", "content: " + size + " bytes (no line diff for a file this large)\n"), upload);
    }

    private static Diff sizeDiff(String path, long before, long after) {
        return new Diff(path, "", before == after ? "content differs (" + after + " bytes, the same size)\n"
                : "content differs (" + before + " bytes -> " + after + " bytes)\n");
    }
}
