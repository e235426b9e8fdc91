package dev.provision.modules.files;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.text.Sha256;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * {@code copy} with {@code remote_src: true}: {@code src} is a file or a directory on the managed
 * host, copied there without its content passing through the controller. Files are compared by
 * size, then by SHA-256 computed on the host ({@code sha256sum}, one probe per directory); in a dry
 * run where an earlier task changes either side, by the forecast contents instead, since the tool
 * would read the old ones.
 *
 * <p>A file goes where {@code copy} puts any file (a {@code dest} ending in {@code /} or naming a
 * directory takes the base name of {@code src}); a new file gets {@code 0644} unless {@code mode}
 * says otherwise ({@code preserve}: the mode of {@code src}), a rewritten one keeps its attributes.
 *
 * <p>A directory follows Ansible's (and rsync's) rule on the trailing slash: {@code src: /a/d/}
 * copies what {@code d} holds into {@code dest}, {@code src: /a/d} copies {@code d} itself into
 * {@code dest} (as {@code dest/d}); a missing {@code dest} is created. Below that root, a missing
 * directory or file is created with the mode of its source, a file of other content is rewritten
 * and gets its source's mode, a symlink is created as a symlink; what exists and agrees is left
 * alone, modes included, and nothing is ever removed. {@code owner} and {@code group} apply to the
 * root and everything below it, {@code mode} to the root alone, as in Ansible.
 */
final class RemoteCopy {
    private RemoteCopy() {
    }

    static Plan plan(HostView host, String src, String dest, Optional<String> mode, Attributes owners, boolean follow,
                     boolean force) throws ModuleException {
        FilePaths.requireAbsolute("src", src);
        // "d/" names the directory d (a file with a slash after its name does not exist)
        Optional<FileStat> source = FilePaths.statFollowing(host, src.equals("/") ? src : FilePaths.stripTrailingSlashes(src))
                .filter(s -> !src.endsWith("/") || s.type() == FileStat.Type.DIRECTORY);
        if (source.isEmpty()) {
            throw new ModuleException("Source " + src + " not found");
        }
        Optional<String> wantedMode = mode.isEmpty() ? Optional.empty()
                : Optional.of(mode.get().equals("preserve") ? source.get().octalMode() : FileAttributes.normalizeMode(mode.get()));
        Attributes wanted = new Attributes(wantedMode, owners.owner(), owners.group());
        return switch (source.get().type()) {
            case FILE -> file(host, src, source.get(), dest, wanted, follow, force);
            case DIRECTORY -> directory(host, src, source.get(), dest, wanted);
            case LINK, OTHER -> throw new ModuleException("Cannot copy invalid source '" + src + "': not a file");
        };
    }

    // --- one file ----------------------------------------------------------------------------------

    private static Plan file(HostView host, String src, FileStat source, String dest, Attributes wanted, boolean follow,
                             boolean force) throws ModuleException {
        String path = dest;
        List<Change> first = new ArrayList<>();
        if (dest.endsWith("/")) {
            path = dest + FilePaths.basename(src);
            String dir = FilePaths.parent(path);
            if (!FilePaths.missingDirectories(host, dir).isEmpty()) {
                first.add(Change.withDiff("create directory " + dir, new Diff(dir, "state: absent\n", "state: directory\n"),
                        new Command.MakeDirectory(dir, Attributes.NONE)));
            }
        } else if (FilePaths.statFollowing(host, dest).filter(s -> s.type() == FileStat.Type.DIRECTORY).isPresent()) {
            path = dest + "/" + FilePaths.basename(src);
        }
        Optional<FileStat> own = first.isEmpty() ? host.stat(path) : Optional.empty();
        if (own.isPresent() && own.get().type() == FileStat.Type.LINK) {
            Optional<FileStat> target = FilePaths.statFollowing(host, path);
            if (!force && target.isPresent()) {
                return Plan.converged(path + " exists (force=false: its content is left alone)");
            }
            if (!follow || target.isEmpty()) {
                // As copy does with content: the link goes, a file takes its place (the target is untouched).
                return Plan.of(new Change("replace link " + path + " with a copy of " + src,
                        List.of(new Diff(path, "state: link\ntarget: " + own.get().linkTarget() + "\n", "state: file\n"),
                                copyDiff(src, source)),
                        List.of(new Command.Remove(path), new Command.CopyFile(src, path, FileAttributes.forNewFile(wanted)))));
            }
            path = FilePaths.followLinks(host, path);
            own = host.stat(path);
        }
        if (own.isPresent() && !force) {
            return Plan.converged(path + " exists (force=false: its content is left alone)");
        }
        if (own.isEmpty()) {
            if (first.isEmpty()) {
                FilePaths.requireParentDirectory(host, path);
            }
            String summary = "copy " + src + " to " + path + (wanted.isEmpty() ? "" : " (" + FileAttributes.describe(wanted) + ")");
            first.add(Change.withDiff(summary, copyDiff(src, source), new Command.CopyFile(src, path, FileAttributes.forNewFile(wanted))));
            return Plan.of(first, "");
        }
        FileStat existing = own.get();
        if (existing.type() == FileStat.Type.DIRECTORY) {
            throw new ModuleException(path + " is a directory, not a file");
        }
        if (sameContent(host, src, source, path, existing)) {
            String reason = path + " already has the content of " + src
                    + (wanted.isEmpty() ? "" : " and " + FileAttributes.describe(wanted));
            return FileAttributes.change(path, existing, wanted).map(Plan::of).orElseGet(() -> Plan.converged(reason));
        }
        List<Diff> diffs = new ArrayList<>();
        diffs.add(copyDiff(src, source));
        FileAttributes.diff(path, existing, wanted).ifPresent(diffs::add);
        return Plan.of(new Change("update " + path + " from " + src, diffs,
                List.of(new Command.CopyFile(src, path, FileAttributes.keepingCurrent(existing, wanted)))));
    }

    private static Diff copyDiff(String src, FileStat source) {
        return new Diff(src, "", "content of " + src + " (" + source.size() + " bytes)\n");
    }

    /** Whether two files on the host hold the same bytes: sizes first, then checksums taken there. */
    private static boolean sameContent(HostView host, String a, FileStat aStat, String b, FileStat bStat) throws ModuleException {
        if (aStat.type() != FileStat.Type.FILE || bStat.type() != FileStat.Type.FILE || aStat.size() != bStat.size()) {
            return false;
        }
        if (aStat.sameFileAs(bStat)) {
            return true;
        }
        return checksums(host, List.of(a, b)).stream().distinct().count() == 1;
    }

    /** The SHA-256 of each file, in order; in a dry run, of the forecast content of a file an earlier task changes. */
    private static List<String> checksums(HostView host, List<String> files) throws ModuleException {
        String[] digests = new String[files.size()];
        List<String> onHost = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            String f = files.get(i);
            if (host.changesPending(f)) {
                byte[] content = host.readFile(f).orElseThrow(() -> new ModuleException("cannot read " + f));
                digests[i] = Sha256.hex(content);
            } else {
                onHost.add(f);
            }
        }
        if (!onHost.isEmpty()) {
            List<String> argv = new ArrayList<>(List.of("sha256sum", "-z", "--"));
            argv.addAll(onHost);
            ProbeResult r = host.probe(argv.toArray(String[]::new));
            if (!r.ok()) {
                throw new ModuleException("cannot checksum " + String.join(", ", onHost) + ": " + r.stderr().strip());
            }
            // -z: each line ends in NUL, so no file name can break the parse
            String[] lines = r.stdout().split("\0");
            if (lines.length != onHost.size()) {
                throw new ModuleException("sha256sum answered " + lines.length + " lines for " + onHost.size() + " files");
            }
            int next = 0;
            for (int i = 0; i < digests.length; i++) {
                if (digests[i] == null) {
                    String line = lines[next++];
                    digests[i] = line.substring(0, Math.max(0, line.indexOf(' ')));
                }
            }
        }
        return Arrays.asList(digests);
    }

    // --- a directory tree ---------------------------------------------------------------------------

    private static Plan directory(HostView host, String src, FileStat source, String dest, Attributes wanted)
            throws ModuleException {
        String srcDir = FilePaths.stripTrailingSlashes(src);
        String destDir = FilePaths.stripTrailingSlashes(dest);
        Optional<FileStat> destStat = FilePaths.statFollowing(host, destDir);
        if (destStat.isPresent() && destStat.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("dest " + dest + " exists and is not a directory; cannot copy the directory " + src + " into it");
        }
        // With a slash, the contents go into dest; without, the directory itself (dest/d).
        String root = src.endsWith("/") ? destDir : (destDir.equals("/") ? "" : destDir) + "/" + FilePaths.basename(srcDir);
        Optional<FileStat> rootStat = FilePaths.statFollowing(host, root);
        if (rootStat.isPresent() && rootStat.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException(root + " exists and is not a directory; cannot copy the directory " + src + " there");
        }
        Attributes owners = new Attributes(Optional.empty(), wanted.owner(), wanted.group());
        List<Change> changes = new ArrayList<>();
        if (rootStat.isEmpty()) {
            // A root copied whole takes its source's mode (Ansible's copytree); one made to hold the
            // contents of src without a slash is a plain mkdir -p.
            boolean whole = src.endsWith("/") || destStat.isPresent();
            String missingParent = FilePaths.parent(root);
            if (!FilePaths.missingDirectories(host, missingParent).isEmpty()) {
                changes.add(Change.withDiff("create directory " + missingParent,
                        new Diff(missingParent, "state: absent\n", "state: directory\n"), new Command.MakeDirectory(missingParent, Attributes.NONE)));
            }
            Optional<String> mode = wanted.mode().isPresent() ? wanted.mode()
                    : whole ? Optional.of(source.octalMode()) : Optional.empty();
            Attributes rootAttributes = FileAttributes.forNew(new Attributes(mode, wanted.owner(), wanted.group()), true);
            changes.add(Change.withDiff("create directory " + root + " (copy of " + src + ")",
                    new Diff(root, "state: absent\n", "state: directory\n"), new Command.MakeDirectory(root, rootAttributes)));
        } else {
            FileAttributes.change(root, rootStat.get(), wanted).ifPresent(changes::add);
        }
        SortedMap<String, FileStat> from = host.walk(srcDir);
        SortedMap<String, FileStat> to = rootStat.isPresent() ? host.walk(root) : new java.util.TreeMap<>();
        List<String[]> toCompare = new ArrayList<>();
        for (Map.Entry<String, FileStat> e : from.entrySet()) {
            String rel = e.getKey().substring(srcDir.length());
            String target = root + rel;
            FileStat s = e.getValue();
            FileStat there = to.get(target);
            if (there == null) {
                Command create = switch (s.type()) {
                    case DIRECTORY -> new Command.MakeDirectory(target, new Attributes(Optional.of(s.octalMode()), owners.owner(), owners.group()));
                    case FILE -> new Command.CopyFile(e.getKey(), target, new Attributes(Optional.of(s.octalMode()), owners.owner(), owners.group()));
                    case LINK -> new Command.Symlink(target, s.linkTarget());
                    case OTHER -> throw new ModuleException("cannot copy " + e.getKey() + ": not a file, directory or link");
                };
                changes.add(Change.withDiff("create " + target + " (copy of " + e.getKey() + ")",
                        new Diff(target, "state: absent\n", "state: " + FilePaths.kind(s) + "\n"), create));
                if (s.type() == FileStat.Type.LINK && !owners.isEmpty()) {
                    changes.add(Change.of("set " + FileAttributes.describe(owners) + " of " + target, new Command.SetAttributes(target, owners)));
                }
                continue;
            }
            if (s.type() == FileStat.Type.FILE && there.type() == FileStat.Type.FILE) {
                if (s.size() != there.size()) {
                    changes.add(update(e.getKey(), s, target, there, owners));
                } else {
                    toCompare.add(new String[] {e.getKey(), target});
                }
            } else if (s.type() != there.type()) {
                throw new ModuleException("cannot copy " + e.getKey() + " to " + target + ": a " + FilePaths.kind(there)
                        + " is there");
            }
        }
        if (!toCompare.isEmpty()) {
            List<String> files = new ArrayList<>();
            toCompare.forEach(p -> files.addAll(List.of(p)));
            List<String> sums = checksums(host, files);
            for (int i = 0; i < toCompare.size(); i++) {
                if (!sums.get(2 * i).equals(sums.get(2 * i + 1))) {
                    String[] p = toCompare.get(i);
                    changes.add(update(p[0], from.get(p[0]), p[1], to.get(p[1]), owners));
                }
            }
        }
        // Owner and group reach everything below the root, copied or not (Ansible's chown_recursive).
        if (!owners.isEmpty()) {
            java.util.Set<String> written = new java.util.HashSet<>();
            for (Change c : changes) {
                for (Command command : c.commands()) {
                    if (command instanceof Command.CopyFile cf) {
                        written.add(cf.path());
                    }
                }
            }
            for (Map.Entry<String, FileStat> e : to.entrySet()) {
                if (!written.contains(e.getKey())) {
                    Attributes forThis = owners;
                    FileAttributes.change(e.getKey(), e.getValue(), forThis).ifPresent(changes::add);
                }
            }
        }
        if (changes.isEmpty()) {
            return Plan.converged(root + " already holds what " + src + " holds"
                    + (wanted.isEmpty() ? "" : ", with " + FileAttributes.describe(wanted)));
        }
        return Plan.of(changes, "");
    }

    /** A file of other content: rewritten with its source's mode (Ansible's copymode), its owner kept unless asked. */
    private static Change update(String from, FileStat source, String target, FileStat there, Attributes owners) {
        Attributes attributes = new Attributes(Optional.of(source.octalMode()),
                Optional.of(owners.owner().orElse(there.owner())), Optional.of(owners.group().orElse(there.group())));
        return new Change("update " + target + " from " + from, List.of(copyDiff(from, source)),
                List.of(new Command.CopyFile(from, target, attributes)));
    }
}
