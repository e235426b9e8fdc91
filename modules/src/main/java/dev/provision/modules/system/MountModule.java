package dev.provision.modules.system;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code mount}: a file system's line in fstab and whether it is mounted.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code path} (alias {@code name}), required, absolute: the mount point.
 *   <li>{@code src}, {@code fstype}: required for {@code present} and {@code mounted}. Any fstype
 *       works ({@code nfs}, {@code nfs4}, {@code lustre}, {@code fuse.juicefs}, {@code fuse.sshfs},
 *       {@code tmpfs}, ...); {@code bind} is written as fstype {@code none} with {@code bind} added
 *       to the options, as mount(8) wants it.
 *   <li>{@code opts} (default {@code defaults}), {@code dump} (default 0), {@code passno} (default 0).
 *   <li>{@code state}, required: {@code mounted} (fstab line, mount point created, mounted; a mount
 *       of another source is unmounted and mounted again; a changed fstab line under a mounted file
 *       system is applied with a remount), {@code present} (fstab line only), {@code unmounted}
 *       (unmounted, fstab untouched), {@code absent} (unmounted and the fstab line removed; the
 *       mount point directory is left in place), {@code remounted} (an action: always planned).
 *   <li>{@code fstab} (default {@code /etc/fstab}).
 * </ul>
 *
 * <p>The fstab line is managed per mount point: an existing line for the same path is replaced
 * where it stands (later ones are removed: mount(8) would use the last) and kept as written when
 * its fields already match; blanks in fields are written as {@code \040}. Whether the path is
 * mounted now comes from {@code findmnt -n -r -o SOURCE,FSTYPE,OPTIONS --mountpoint PATH} (the
 * facts read at the start of the run are stale after earlier tasks). Mounting runs {@code mount
 * PATH} after the fstab write, so mount(8) takes everything from fstab. The source of a mounted
 * FUSE file system other than sshfs, and of a bind mount, is not compared: the kernel reports
 * something other than what fstab says.
 */
public final class MountModule implements TaskModule {
    static final String DEFAULT_FSTAB = "/etc/fstab";
    private static final java.util.regex.Pattern FSTYPE = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9._+-]*");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("path", Type.STRING, "name")
            .optional("src", Type.STRING)
            .optional("fstype", Type.STRING)
            .withDefault("opts", Type.STRING, "defaults")
            .withDefault("dump", Type.STRING, "0")
            .withDefault("passno", Type.STRING, "0")
            .add(new ParamSpec.Param("state", Type.STRING, true, Optional.empty(),
                    List.of("mounted", "present", "unmounted", "absent", "remounted"), List.of(), false))
            .withDefault("fstab", Type.STRING, DEFAULT_FSTAB)
            .build();

    /** An fstab entry, fields unescaped. */
    record Entry(String src, String path, String fstype, String opts, String dump, String passno) {
        String line() {
            return String.join(" ", escape(src), escape(path), escape(fstype), escape(opts), dump, passno);
        }

        static Optional<Entry> parse(String line) {
            String stripped = line.strip();
            if (stripped.isEmpty() || stripped.startsWith("#")) {
                return Optional.empty();
            }
            String[] f = stripped.split("\\s+");
            if (f.length < 2) {
                return Optional.empty();
            }
            return Optional.of(new Entry(unescape(f[0]), unescape(f[1]), f.length > 2 ? unescape(f[2]) : "",
                    f.length > 3 ? unescape(f[3]) : "defaults", f.length > 4 ? f[4] : "0", f.length > 5 ? f[5] : "0"));
        }
    }

    /** What findmnt says is mounted at the path. */
    record Mounted(String source, String fstype) {
    }

    public MountModule() {
    }

    @Override
    public String name() {
        return "mount";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String path = stripTrailingSlash(params.string("path"));
        String fstab = params.string("fstab");
        for (String p : List.of(path, fstab)) {
            if (!p.startsWith("/") || p.contains("\n")) {
                throw new ModuleException("path and fstab must be absolute paths, got '" + p + "'");
            }
        }
        String state = params.string("state");
        HostView host = context.host();
        Optional<Mounted> mounted = mounted(host, path);
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        switch (state) {
            case "present", "mounted" -> {
                Entry wanted = entry(params, path);
                Plan fstabPlan = fstabPlan(host, fstab, path, Optional.of(wanted));
                changes.addAll(fstabPlan.changes());
                if (fstabPlan.isEmpty()) {
                    reasons.add(fstabPlan.reason());
                }
                if (state.equals("mounted")) {
                    mount(host, path, wanted, mounted, !fstabPlan.isEmpty(), changes, reasons);
                }
            }
            case "unmounted" -> unmount(path, mounted, changes, reasons);
            case "absent" -> {
                unmount(path, mounted, changes, reasons);
                Plan fstabPlan = fstabPlan(host, fstab, path, Optional.empty());
                changes.addAll(fstabPlan.changes());
                if (fstabPlan.isEmpty()) {
                    reasons.add(fstabPlan.reason());
                }
            }
            case "remounted" -> changes.add(mounted.isPresent()
                    ? change("remount " + path, path, "mounted", "mounted (remounted)", Command.Exec.of("mount", "-o", "remount", path))
                    : change("mount " + path + " (it was not mounted, so there was nothing to remount)", path, "not mounted", "mounted",
                            Command.Exec.of("mount", path)));
            default -> throw new ModuleException("unsupported state " + state);
        }
        Plan plan = Plan.of(changes, String.join("; ", reasons));
        if (plan.isEmpty()) {
            return plan;
        }
        return switch (state) {
            case "mounted", "remounted" -> params.optString("src").isPresent() && params.optString("fstype").isPresent()
                    ? plan.withProbeAfterwards(findmnt(path), new ProbeResult(0, escapeFindmnt(entry(params, path).src()) + " "
                            + escapeFindmnt(entry(params, path).fstype()) + " " + params.string("opts") + "\n", ""))
                    : plan;
            case "unmounted", "absent" -> plan.withProbeAfterwards(findmnt(path), new ProbeResult(1, "", ""));
            default -> plan;
        };
    }

    private static List<String> findmnt(String path) {
        return List.of("findmnt", "-n", "-r", "-o", "SOURCE,FSTYPE,OPTIONS", "--mountpoint", path);
    }

    /** findmnt -r's escaping of blanks and backslashes, the reverse of {@link #unescapeFindmnt}. */
    private static String escapeFindmnt(String field) {
        return field.replace("\\", "\\x5c").replace(" ", "\\x20").replace("\t", "\\x09");
    }

    private static Entry entry(Params params, String path) throws ModuleException {
        String src = params.optString("src").orElseThrow(() -> new ModuleException("src is required with state=" + params.string("state")));
        String fstype = params.optString("fstype").orElseThrow(() -> new ModuleException("fstype is required with state=" + params.string("state")));
        String opts = params.string("opts");
        if (fstype.equals("bind")) {
            fstype = "none";
            if (!Arrays.asList(opts.split(",")).contains("bind") && !Arrays.asList(opts.split(",")).contains("rbind")) {
                opts = opts.equals("defaults") ? "bind" : opts + ",bind";
            }
        }
        for (String field : List.of(src, fstype, opts, params.string("dump"), params.string("passno"))) {
            if (field.isEmpty() || field.contains("\n")) {
                throw new ModuleException("src, fstype, opts, dump and passno must be non-empty single lines");
            }
        }
        if (!FSTYPE.matcher(fstype).matches()) {
            throw new ModuleException("fstype '" + fstype + "' is not a file system type (a word such as nfs4, lustre, fuse.sshfs)");
        }
        for (String field : List.of(src, opts)) {
            if (!field.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw new ModuleException("src and opts are fstab fields and cannot hold blanks or control characters"
                        + " (write a space in a path as \\040): '" + field + "'");
            }
        }
        if (!params.string("dump").matches("[0-9]+") || !params.string("passno").matches("[0-9]+")) {
            throw new ModuleException("dump and passno must be numbers");
        }
        return new Entry(src, path, fstype, opts, params.string("dump"), params.string("passno"));
    }

    private static void mount(HostView host, String path, Entry wanted, Optional<Mounted> mounted, boolean fstabChanged,
                              List<Change> changes, List<String> reasons) throws ModuleException {
        if (mounted.isEmpty()) {
            changes.addAll(FileContentPlanner.directory(host, path, Attributes.NONE).changes());
            changes.add(change("mount " + path, path, "not mounted", "mounted from " + wanted.src(), Command.Exec.of("mount", path)));
            return;
        }
        Mounted now = mounted.get();
        if (!sameSource(wanted, now)) {
            changes.add(new Change("mount " + path + " from " + wanted.src() + " instead of " + now.source() + " (" + now.fstype() + ")",
                    List.of(new Diff("mount " + path, "mounted from " + now.source() + " (" + now.fstype() + ")\n",
                            "mounted from " + wanted.src() + " (" + wanted.fstype() + ")\n")),
                    List.of(Command.Exec.of("umount", path), Command.Exec.of("mount", path))));
        } else if (fstabChanged) {
            changes.add(change("remount " + path + " with the new options from fstab", path, "mounted", "mounted with " + wanted.opts(),
                    Command.Exec.of("mount", "-o", "remount", path)));
        } else {
            reasons.add(path + " is mounted from " + now.source());
        }
    }

    private static void unmount(String path, Optional<Mounted> mounted, List<Change> changes, List<String> reasons) {
        if (mounted.isPresent()) {
            changes.add(change("unmount " + path, path, "mounted from " + mounted.get().source(), "not mounted", Command.Exec.of("umount", path)));
        } else {
            reasons.add(path + " is not mounted");
        }
    }

    /** Whether what is mounted is what fstab would mount, as far as the kernel's report can tell. */
    private static boolean sameSource(Entry wanted, Mounted now) {
        boolean bind = wanted.fstype().equals("none") && Arrays.asList(wanted.opts().split(",")).stream().anyMatch(o -> o.equals("bind") || o.equals("rbind"));
        if (bind) {
            return true;
        }
        if (!family(wanted.fstype()).equals(family(now.fstype()))) {
            return false;
        }
        if (wanted.fstype().startsWith("fuse.") && !wanted.fstype().equals("fuse.sshfs")) {
            return true;
        }
        return stripTrailingSlash(wanted.src()).equals(stripTrailingSlash(now.source()));
    }

    /** nfs with vers=4 shows as nfs4. */
    private static String family(String fstype) {
        return fstype.equals("nfs4") ? "nfs" : fstype;
    }

    private static Optional<Mounted> mounted(HostView host, String path) throws ModuleException {
        ProbeResult probe = host.probe(findmnt(path).toArray(String[]::new));
        if (probe.exitCode() == 1 && probe.stdout().isBlank()) {
            return Optional.empty();
        }
        if (!probe.ok()) {
            throw new ModuleException("findmnt failed for " + path + " (exit " + probe.exitCode() + "): " + probe.stderr().strip());
        }
        List<String> lines = probe.stdout().lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        // Stacked mounts: the last line is the one on top, the one a process sees.
        String[] f = lines.getLast().strip().split(" ");
        return Optional.of(new Mounted(unescapeFindmnt(f[0]), f.length > 1 ? unescapeFindmnt(f[1]) : ""));
    }

    private static Plan fstabPlan(HostView host, String fstab, String path, Optional<Entry> wanted) throws ModuleException {
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, fstab);
        if (existing.isEmpty()) {
            if (wanted.isEmpty()) {
                return Plan.converged(fstab + " does not exist; no line for " + path);
            }
            return FileContentPlanner.create(host, fstab, (wanted.get().line() + "\n").getBytes(StandardCharsets.UTF_8),
                    new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root")));
        }
        String text = existing.get().text(fstab);
        List<String> lines = new ArrayList<>(text.lines().toList());
        boolean placed = false;
        boolean found = false;
        for (int i = 0; i < lines.size(); i++) {
            Optional<Entry> entry = Entry.parse(lines.get(i));
            if (entry.isEmpty() || !stripTrailingSlash(entry.get().path()).equals(path)) {
                continue;
            }
            found = true;
            if (wanted.isEmpty() || placed) {
                lines.remove(i--);
            } else {
                if (!entry.get().equals(wanted.get())) {
                    lines.set(i, wanted.get().line());
                }
                placed = true;
            }
        }
        if (wanted.isPresent() && !placed) {
            lines.add(wanted.get().line());
        }
        if (lines.equals(text.lines().toList())) {
            return Plan.converged(wanted.isPresent() ? fstab + " has the line for " + path : fstab + " has no line for " + path);
        }
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l).append('\n'));
        String summary = wanted.isEmpty() ? "remove " + path + " from " + fstab
                : (found ? "update the line for " + path + " in " : "add " + path + " to ") + fstab;
        return FileContentPlanner.update(fstab, existing.get(), sb.toString().getBytes(StandardCharsets.UTF_8), Attributes.NONE, summary, "");
    }

    private static Change change(String summary, String path, String before, String after, Command command) {
        return Change.withDiff(summary, new Diff("mount " + path, before + "\n", after + "\n"), command);
    }

    /** fstab's octal escapes for the characters that would split a field. */
    static String escape(String field) {
        StringBuilder sb = new StringBuilder();
        for (char c : field.toCharArray()) {
            switch (c) {
                case ' ' -> sb.append("\\040");
                case '\t' -> sb.append("\\011");
                case '\\' -> sb.append("\\134");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    static String unescape(String field) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                sb.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** findmnt -r writes unsafe characters as {@code \x20}. */
    private static String unescapeFindmnt(String field) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < field.length(); i++) {
            if (field.startsWith("\\x", i) && i + 4 <= field.length() && field.substring(i + 2, i + 4).matches("[0-9a-fA-F]{2}")) {
                sb.append((char) Integer.parseInt(field.substring(i + 2, i + 4), 16));
                i += 3;
            } else {
                sb.append(field.charAt(i));
            }
        }
        return sb.toString();
    }

    private static String stripTrailingSlash(String p) {
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }
}
