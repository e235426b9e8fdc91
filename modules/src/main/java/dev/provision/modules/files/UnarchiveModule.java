package dev.provision.modules.files;

import dev.provision.modules.files.ArchiveMembers.Format;
import dev.provision.modules.files.ArchiveMembers.Kind;
import dev.provision.modules.files.ArchiveMembers.Member;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code unarchive} (Ansible's {@code ansible.builtin.unarchive}): an archive's members extracted
 * into an existing directory {@code dest} with the host's {@code tar} or {@code unzip}. See
 * {@link #description()} for what converged means.
 *
 * <p>A controller archive is listed here ({@link ArchiveMembers}); the change puts it on the host
 * in {@code /tmp} under a name made from its SHA-256 (so that a plan is the same value each time it
 * is made), extracts it, and removes it whether the extraction worked or not. A host archive
 * ({@code remote_src}) is listed there with a read-only {@code tar -tf} or {@code unzip -Z1}.
 */
public final class UnarchiveModule implements TaskModule {
    private static final ParamSpec SPEC = FileAttributes.declare(ParamSpec.builder()
                    .required("src", Type.STRING)
                    .required("dest", Type.STRING)
                    .withDefault("remote_src", Type.BOOL, false)
                    .optional("creates", Type.STRING)
                    .withDefault("extra_opts", Type.LIST, List.of())
                    .withDefault("list_files", Type.BOOL, false)
                    .optional("copy", Type.BOOL)
                    .refused("keep_newer", "members are extracted over what is there; use creates to extract once")
                    .refused("validate_certs", "a URL src is not supported: download it with get_url, then unarchive it "
                            + "with remote_src: yes"))
            .build();
    /** Top-level members up to this many are looked at one by one; more, and dest is listed once. */
    private static final int STAT_EACH_LIMIT = 8;
    /** Members named in a diff; the rest are counted. */
    private static final int DIFF_NAMES = 20;

    public UnarchiveModule() {
    }

    @Override
    public String name() {
        return "unarchive";
    }

    @Override
    public String description() {
        return """
                Extracts an archive into dest, an existing directory on the host, with the host's tar or
                unzip. src is a file on the controller (found like copy's src), put on the host for the
                extraction and removed after it; with remote_src: yes it is a path on the host. Formats,
                by the name's suffix: .tar, .tar.gz/.tgz, .tar.bz2/.tbz2, .tar.xz/.txz, .zip.

                Converged means: creates, when given, exists on the host; otherwise every member of the
                archive exists under dest with the same kind (file, directory, link) and, for a file, the
                same size, and with the mode, owner and group asked for (applied to every member, like
                chmod -R, chown -R on what the archive puts in dest). Contents are not compared: give
                creates, or a new archive name, when a member changes but keeps its size. An archive on
                the host is listed by name only, so there a member that exists counts. A .tar.bz2 or
                .tar.xz on the controller cannot be listed here (the JDK reads neither): it needs creates.

                extra_opts are added to tar's (or unzip's) command line as given. list_files: yes
                registers the members' names as 'files'. copy: no means remote_src: yes, as in Ansible.
                A URL src is refused: use get_url first.
                """;
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        HostView host = context.host();
        String src = params.string("src");
        if (src.contains("://")) {
            throw new ModuleException("src " + src + " is a URL, which is not supported: download it with get_url, "
                    + "then unarchive it with remote_src: yes");
        }
        String dest = FilePaths.stripTrailingSlashes(FilePaths.requireAbsolute("dest", params.string("dest")));
        // copy: no is Ansible's older spelling of remote_src: yes
        boolean remote = params.bool("remote_src") || (params.has("copy") && !params.bool("copy"));
        Format format = ArchiveMembers.Format.of(FilePaths.basename(src)).orElseThrow(() -> new ModuleException(
                "cannot tell the format of " + src + " from its name: it must end in .tar, .tar.gz, .tgz, .tar.bz2, "
                        + ".tbz2, .tar.xz, .txz or .zip"));
        List<String> extra = new ArrayList<>();
        for (Object o : params.list("extra_opts")) {
            extra.add(String.valueOf(o));
        }
        Attributes wanted = FileAttributes.requested(params);
        Optional<FileStat> destStat = FilePaths.statFollowing(host, dest);
        if (destStat.isEmpty() || destStat.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("dest " + dest + " must be an existing directory"
                    + (destStat.isEmpty() ? "" : " (it is a " + FilePaths.kind(destStat.get()) + ")"));
        }
        Optional<String> creates = params.optString("creates");
        if (creates.isPresent()) {
            FilePaths.requireAbsolute("creates", creates.get());
            if (host.stat(creates.get()).isPresent()) {
                return Plan.converged(creates.get() + " exists (creates): " + src + " is not extracted again");
            }
        }

        Path local = null;
        List<Member> members;
        boolean unlisted = false;
        if (remote) {
            FilePaths.requireAbsolute("src", src);
            Optional<FileStat> srcStat = FilePaths.statFollowing(host, src);
            if (srcStat.isEmpty() || srcStat.get().type() != FileStat.Type.FILE) {
                throw new ModuleException("Source '" + src + "' does not exist on the host (or is not a file)");
            }
            members = remoteMembers(host, src, format);
        } else {
            local = context.controllerFile(src);
            if (!Files.isRegularFile(local)) {
                throw new ModuleException("src " + src + " (" + local + ") is not a file");
            }
            if (!format.readableHere()) {
                if (creates.isEmpty()) {
                    throw new ModuleException("a ." + format.word + " on the controller cannot be listed to know whether it "
                            + "is extracted already (no " + (format == Format.TAR_XZ ? "xz" : "bzip2")
                            + " decoder here): give creates, a path the archive makes");
                }
                members = List.of();
                unlisted = true;
            } else {
                try {
                    members = ArchiveMembers.read(local, format);
                } catch (IOException | IllegalArgumentException e) {
                    throw new ModuleException("cannot read " + src + " (" + local + ") as a ." + format.word + ": " + e.getMessage(), e);
                }
            }
        }
        Map<String, Object> result = params.bool("list_files") ? Map.of("files", ArchiveMembers.paths(members)) : Map.of();

        List<String> differing = unlisted ? List.of("(the archive's members: " + creates.orElseThrow() + " is missing)")
                : differing(host, dest, members, wanted);
        if (differing.isEmpty()) {
            String reason = dest + " holds the " + members.size() + " members of " + src
                    + (wanted.isEmpty() ? "" : ", with " + FileAttributes.describe(wanted));
            return Plan.converged(reason).withResult(result);
        }

        List<Command> commands = new ArrayList<>();
        String archive;
        if (remote) {
            archive = src;
            commands.add(new Command.Exec(extraction(format, archive, dest, extra), null));
        } else {
            byte[] content;
            try {
                content = Files.readAllBytes(local);
            } catch (IOException e) {
                throw new ModuleException("cannot read src " + src + " (" + local + "): " + e.getMessage(), e);
            }
            archive = "/tmp/.provision-unarchive-" + Sha256.hex(content).substring(0, 16) + "." + format.word;
            commands.add(new Command.PutFile(archive, content,
                    new Attributes(Optional.of("0600"), Optional.empty(), Optional.empty())));
            List<String> argv = new ArrayList<>(List.of("sh", "-c", "tmp=$1; shift; \"$@\"; rc=$?; rm -f -- \"$tmp\"; exit $rc",
                    "unarchive", archive));
            argv.addAll(extraction(format, archive, dest, extra));
            commands.add(new Command.Exec(argv, null));
        }
        commands.addAll(attributeCommands(dest, members, wanted));

        StringBuilder after = new StringBuilder();
        differing.stream().limit(DIFF_NAMES).forEach(p -> after.append(p).append('\n'));
        if (differing.size() > DIFF_NAMES) {
            after.append("... and ").append(differing.size() - DIFF_NAMES).append(" more\n");
        }
        String summary = "extract " + src + " into " + dest
                + (unlisted ? "" : " (" + differing.size() + " of " + members.size() + " members missing or different)");
        Change change = new Change(summary, List.of(new Diff(dest + " (from " + src + ")", "", after.toString())), commands);
        return new Plan(List.of(change), "", Map.of(), result);
    }

    /** The extraction's argument vector: archive and dest as words of their own, extra_opts as given. */
    private static List<String> extraction(Format format, String archive, String dest, List<String> extra) {
        List<String> argv = new ArrayList<>();
        if (format == Format.ZIP) {
            argv.addAll(List.of("unzip", "-o", archive));
            argv.addAll(extra);
            argv.addAll(List.of("-d", dest));
        } else {
            argv.addAll(List.of("tar", "-x"));
            argv.addAll(format.tarFlags);
            argv.addAll(List.of("-f", archive, "-C", dest));
            argv.addAll(extra);
        }
        return argv;
    }

    /** chown/chgrp/chmod -R on what the archive puts directly into dest; none without attributes or members. */
    private static List<Command> attributeCommands(String dest, List<Member> members, Attributes wanted) {
        Set<String> tops = new LinkedHashSet<>();
        members.forEach(m -> tops.add(join(dest, m.top())));
        if (tops.isEmpty()) {
            return List.of();
        }
        List<Command> commands = new ArrayList<>();
        wanted.owner().ifPresent(o -> commands.add(exec(List.of("chown", "-R", "--", o), tops)));
        wanted.group().ifPresent(g -> commands.add(exec(List.of("chgrp", "-R", "--", g), tops)));
        wanted.mode().ifPresent(m -> commands.add(exec(List.of("chmod", "-R", "--", m), tops)));
        return commands;
    }

    private static Command exec(List<String> head, Set<String> paths) {
        List<String> argv = new ArrayList<>(head);
        argv.addAll(paths);
        return new Command.Exec(argv, null);
    }

    private static String join(String dest, String relative) {
        return (dest.equals("/") ? "" : dest) + "/" + relative;
    }

    private static List<Member> remoteMembers(HostView host, String src, Format format) throws ModuleException {
        List<String> argv = new ArrayList<>();
        if (format == Format.ZIP) {
            argv.addAll(List.of("unzip", "-Z1", src));
        } else {
            argv.addAll(List.of("tar", "-t"));
            argv.addAll(format.tarFlags);
            argv.addAll(List.of("-f", src));
        }
        ProbeResult r = host.probe(argv.toArray(String[]::new));
        if (!r.ok()) {
            throw new ModuleException("cannot list " + src + " on the host (" + String.join(" ", argv) + "): " + r.stderr().strip());
        }
        try {
            return ArchiveMembers.listing(r.stdout());
        } catch (IllegalArgumentException e) {
            throw new ModuleException("cannot extract " + src + ": " + e.getMessage(), e);
        }
    }

    /**
     * The members (paths under dest) that are missing, of another kind or size, or of other
     * attributes than asked; empty when the archive is extracted.
     */
    private static List<String> differing(HostView host, String dest, List<Member> members, Attributes wanted)
            throws ModuleException {
        SortedMap<String, FileStat> there = new TreeMap<>();
        Set<String> tops = new LinkedHashSet<>();
        members.forEach(m -> tops.add(m.top()));
        if (tops.size() > STAT_EACH_LIMIT) {
            there.putAll(host.walk(dest));
        } else {
            for (String top : tops) {
                String path = join(dest, top);
                Optional<FileStat> stat = host.stat(path);
                if (stat.isEmpty()) {
                    continue;
                }
                there.put(path, stat.get());
                if (stat.get().type() == FileStat.Type.DIRECTORY && members.stream().anyMatch(m -> !m.path().equals(top) && m.top().equals(top))) {
                    there.putAll(host.walk(path));
                }
            }
        }
        List<String> differing = new ArrayList<>();
        for (Member m : members) {
            String path = join(dest, m.path());
            FileStat stat = there.get(path);
            if (stat == null || !sameKind(m, stat) || !FileAttributes.differing(stat, wantedFor(stat, wanted)).isEmpty()) {
                differing.add(path);
            }
        }
        return differing;
    }

    /** Links take owner and group (chown -R changes the link itself) but no mode. */
    private static Attributes wantedFor(FileStat stat, Attributes wanted) {
        return stat.type() == FileStat.Type.LINK ? new Attributes(Optional.empty(), wanted.owner(), wanted.group()) : wanted;
    }

    private static boolean sameKind(Member m, FileStat stat) {
        return switch (m.kind()) {
            case ANY -> true;
            case DIRECTORY -> stat.type() == FileStat.Type.DIRECTORY;
            case LINK -> stat.type() == FileStat.Type.LINK;
            // a zip stores a symlink as a file holding its target: the link's size is the target's length
            case FILE -> (stat.type() == FileStat.Type.FILE || stat.type() == FileStat.Type.LINK)
                    && (m.size() < 0 || m.size() == stat.size());
        };
    }
}
