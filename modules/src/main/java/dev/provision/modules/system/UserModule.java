package dev.provision.modules.system;

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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code user}: whether an account exists, and its uid, groups, comment, home, shell and password.
 *
 * <p>Parameters (Ansible's names and defaults):
 * <ul>
 *   <li>{@code name} (alias {@code user}), required: a name as shadow-utils accepts it.
 *   <li>{@code uid}; {@code non_unique} (default false) allows a uid another user has ({@code -o}),
 *       else a uid in use by another user is refused before anything runs.
 *   <li>{@code group}: the primary group, by name or gid; it must exist. Without it, a new user gets
 *       the group useradd makes for it, or, when a group of the user's name exists already,
 *       useradd's default group ({@code -N}, as Ansible does).
 *   <li>{@code groups}: the supplementary groups, a list or a comma-separated string; each must
 *       exist. With {@code append: false} (default) they are exactly these ({@code groups: []}
 *       removes all); with {@code append: true} missing ones are added and others kept. The primary
 *       group always counts as a membership.
 *   <li>{@code comment}, {@code home}, {@code shell}: the passwd fields; {@code home} and
 *       {@code shell} are absolute paths. {@code move_home} (default false) moves the old home's
 *       content when {@code home} changes ({@code usermod -m}).
 *   <li>{@code create_home} (alias {@code createhome}, default true): a new user's home is made
 *       ({@code useradd -m}, with a missing parent directory made first; without {@code home} it is
 *       useradd's {@code HOME=} base from {@code /etc/default/useradd}, {@code /home} by default, and
 *       the name); an existing user whose home is missing gets an empty one (mode 0755, the
 *       user's), as Ansible does, except {@code /nonexistent}, which Debian's system accounts name
 *       so that it never exists. A home that useradd or {@code usermod -m} makes is followed by a
 *       {@code MakeDirectory} of it, a no-op on the host that lets a dry run's forecast know it.
 *   <li>{@code system} (default false): a new user gets a uid from the system range ({@code -r}).
 *   <li>{@code password}: an already hashed password (crypt(3): {@code $6$...}, {@code $y$...}; or
 *       {@code !}/{@code *} to lock), set with {@code chpasswd -e} from standard input, never in an
 *       argument vector (which other users of the host can read). The value is secret: never in a
 *       summary, a diff, a message or the registered result; its change is sensitive. A value that
 *       is not a hash is refused. {@code update_password}: {@code always} (default: a differing hash
 *       is replaced; comparing needs root, as shadow is root's) or {@code on_create}.
 *   <li>{@code state}: {@code present} (default) or {@code absent} ({@code userdel}; {@code remove}
 *       also removes the home and mail spool, {@code -r}; {@code force}, {@code -f}).
 *   <li>{@code generate_ssh_key}: refused when true (see {@link #plan}).
 * </ul>
 *
 * <p>Reads the host with {@code getent passwd NAME}, {@code getent group G} for each named group,
 * {@code id -Gn NAME} when {@code groups} is given, {@code getent shadow NAME} when a password is,
 * and {@code getent passwd UID} before giving a uid. Plans one {@code useradd} or {@code usermod}
 * (all changed fields in one argument vector, the diff listing each: {@code shell: /bin/sh ->
 * /bin/bash}, {@code groups: + docker}), or {@code userdel}.
 */
public final class UserModule implements TaskModule {
    static final String NOT_LOGGING_PASSWORD = "NOT_LOGGING_PASSWORD";
    /** crypt(3) hashes ($id$...), traditional DES (13 characters), optionally locked with leading '!'/'*'; or just '!'/'*'. */
    private static final Pattern HASH = Pattern.compile("[!*]*(\\$[A-Za-z0-9]{1,8}\\$[!-~&&[^:]]+|[./0-9A-Za-z]{13})?");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.STRING, "user")
            .optional("uid", Type.INT)
            .withDefault("non_unique", Type.BOOL, false)
            .optional("group", Type.STRING)
            .optional("groups", Type.LIST)
            .withDefault("append", Type.BOOL, false)
            .optional("comment", Type.STRING)
            .optional("home", Type.STRING)
            .optional("shell", Type.STRING)
            .secret("password", Type.STRING, false)
            .choice("update_password", "always", "always", "on_create")
            .withDefault("create_home", Type.BOOL, true, "createhome")
            .withDefault("move_home", Type.BOOL, false)
            .withDefault("system", Type.BOOL, false)
            .choice("state", "present", "present", "absent")
            .withDefault("remove", Type.BOOL, false)
            .withDefault("force", Type.BOOL, false)
            .withDefault("generate_ssh_key", Type.BOOL, false)
            .build();

    public UserModule() {
    }

    @Override
    public String name() {
        return "user";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** The task's parameters, checked. */
    private record Wanted(String name, OptionalLong uid, boolean nonUnique, Optional<String> group, Optional<List<String>> groups,
                          boolean append, Optional<String> comment, Optional<String> home, Optional<String> shell,
                          Optional<String> password, boolean updateAlways, boolean createHome, boolean moveHome, boolean system) {
    }

    /**
     * @throws ModuleException for {@code generate_ssh_key: true}: a key pair made on each node is a
     *     secret the controller never sees and a change no dry run can show; make the key once on the
     *     controller and install it with {@code copy} and {@code authorized_key}
     */
    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String name = Accounts.requireName("name", params.string("name"));
        if (params.bool("generate_ssh_key")) {
            throw new ModuleException("generate_ssh_key is not supported: a key pair made on each node is a secret the controller"
                    + " never sees and a change a dry run cannot show; make the key once on the controller and install it with copy"
                    + " (private key, mode 0600) and authorized_key, as playbooks/cluster.yml does for the cluster key");
        }
        HostView host = context.host();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("name", name);
        result.put("state", params.string("state"));
        Optional<Accounts.Passwd> current = Accounts.passwd(host, name);
        if (params.string("state").equals("absent")) {
            return absent(params, name, current).withResult(result);
        }
        Wanted wanted = wanted(params, name);
        wanted.password().ifPresent(p -> result.put("password", NOT_LOGGING_PASSWORD));
        wanted.groups().ifPresent(g -> result.put("groups", String.join(",", g)));
        Optional<Accounts.Group> primary = Optional.empty();
        if (wanted.group().isPresent()) {
            primary = Optional.of(Accounts.group(host, wanted.group().get())
                    .orElseThrow(() -> new ModuleException("group " + wanted.group().get() + " does not exist")));
        }
        List<String> supplementary = new ArrayList<>();
        if (wanted.groups().isPresent()) {
            for (String g : wanted.groups().get()) {
                Accounts.Group found = Accounts.group(host, g).orElseThrow(() -> new ModuleException("group " + g + " does not exist"));
                if (!supplementary.contains(found.name())) {
                    supplementary.add(found.name());
                }
            }
        }
        if (current.isEmpty()) {
            result.put("system", wanted.system());
            result.put("create_home", wanted.createHome());
            return create(host, wanted, primary, supplementary, result);
        }
        result.put("append", wanted.append());
        result.put("move_home", wanted.moveHome());
        return modify(host, wanted, current.get(), primary, supplementary, result);
    }

    private static Wanted wanted(Params params, String name) throws ModuleException {
        OptionalLong uid = params.optInteger("uid").isPresent()
                ? OptionalLong.of(Accounts.requireId("uid", params.integer("uid"))) : OptionalLong.empty();
        Optional<String> group = params.optString("group");
        if (group.isPresent()) {
            Accounts.requireGroupReference("group", group.get());
        }
        Optional<List<String>> groups = Optional.empty();
        if (params.has("groups")) {
            List<String> list = new ArrayList<>();
            for (Object g : params.list("groups")) {
                String s = String.valueOf(g).strip();
                if (!s.isEmpty()) {
                    list.add(Accounts.requireGroupReference("groups", s));
                }
            }
            groups = Optional.of(List.copyOf(list));
        }
        Optional<String> comment = params.optString("comment");
        if (comment.isPresent()) {
            Accounts.requireField("comment", comment.get());
        }
        Optional<String> home = params.optString("home");
        if (home.isPresent()) {
            requirePath("home", home.get());
        }
        Optional<String> shell = params.optString("shell");
        if (shell.isPresent()) {
            requirePath("shell", shell.get());
        }
        Optional<String> password = params.optString("password");
        if (password.isPresent()) {
            requireHash(password.get());
        }
        return new Wanted(name, uid, params.bool("non_unique"), group, groups, params.bool("append"), comment, home, shell, password,
                params.string("update_password").equals("always"), params.bool("create_home"), params.bool("move_home"),
                params.bool("system"));
    }

    private static void requirePath(String what, String path) throws ModuleException {
        Accounts.requireField(what, path);
        if (!path.startsWith("/")) {
            throw new ModuleException(what + " must be an absolute path, got '" + path + "'");
        }
    }

    /** Never quotes the value: it is secret, and a mistyped one may be a real password. */
    private static void requireHash(String password) throws ModuleException {
        if (password.isEmpty()) {
            throw new ModuleException("password is empty, which would let anyone log in as this user without one;"
                    + " give a crypt(3) hash, or '!' to lock the password");
        }
        if (!HASH.matcher(password).matches()) {
            throw new ModuleException("password must be a crypt(3) hash such as $6$... or $y$... (mkpasswd -m sha-512), or '!' to lock;"
                    + " the value given is not one (':', blanks and control characters never are), and provision never hashes a"
                    + " plain password");
        }
    }

    private static Plan absent(Params params, String name, Optional<Accounts.Passwd> current) {
        if (current.isEmpty()) {
            return Plan.converged("user " + name + " does not exist");
        }
        List<String> argv = new ArrayList<>(List.of("userdel"));
        if (params.bool("force")) {
            argv.add("-f");
        }
        if (params.bool("remove")) {
            argv.add("-r");
        }
        argv.add(name);
        String summary = "remove user " + name + (params.bool("remove") && !current.get().home().isEmpty()
                ? " and its home " + current.get().home() : "");
        Change remove = new Change(summary, List.of(new Diff("user " + name, describe(current.get(), Optional.empty()), "")),
                List.of(new Command.Exec(argv, new byte[0])));
        return Plan.of(remove)
                .withProbeAfterwards(Accounts.passwdProbe(name), Accounts.notFound())
                .withProbeAfterwards(Accounts.groupsProbe(name), new ProbeResult(1, "", "id: '" + name + "': no such user\n"))
                .withProbeAfterwards(Accounts.shadowProbe(name), Accounts.notFound());
    }

    private static Plan create(HostView host, Wanted w, Optional<Accounts.Group> primary, List<String> supplementary,
                               Map<String, Object> result) throws ModuleException {
        String name = w.name();
        if (w.uid().isPresent()) {
            requireUidFree(host, name, w.uid().getAsLong(), w.nonUnique());
        }
        List<Change> changes = new ArrayList<>();
        List<String> argv = new ArrayList<>(List.of("useradd"));
        w.uid().ifPresent(u -> argv.addAll(List.of("-u", Long.toString(u))));
        if (w.uid().isPresent() && w.nonUnique()) {
            argv.add("-o");
        }
        Optional<String> primaryName = primary.map(Accounts.Group::name);
        boolean ownGroup = false;
        if (primary.isPresent()) {
            argv.addAll(List.of("-g", primary.get().name()));
        } else if (Accounts.group(host, name).isPresent()) {
            // useradd would try to make a group of that name and fail: use its default group (Ansible's -N)
            argv.add("-N");
        } else {
            primaryName = Optional.of(name);
            ownGroup = true;
        }
        List<String> others = without(supplementary, primaryName);
        if (!others.isEmpty()) {
            argv.addAll(List.of("-G", String.join(",", others)));
        }
        w.comment().ifPresent(c -> argv.addAll(List.of("-c", c)));
        w.home().ifPresent(h -> argv.addAll(List.of("-d", h)));
        w.shell().ifPresent(s -> argv.addAll(List.of("-s", s)));
        argv.add(w.createHome() ? "-m" : "-M");
        if (w.system()) {
            argv.add("-r");
        }
        argv.add(name);
        String home = w.home().orElse(homeBase(host) + "/" + name);
        if (w.createHome() && w.home().isPresent()) {
            String parent = parent(w.home().get());
            if (host.stat(parent).isEmpty()) {
                // useradd -m makes the home but not its parents
                changes.add(Change.of("create directory " + parent + " for the home of " + name,
                        new Command.MakeDirectory(parent, Attributes.NONE)));
            }
        }
        List<Command> commands = new ArrayList<>(List.of(new Command.Exec(argv, new byte[0])));
        if (w.createHome()) {
            commands.add(homeOf(name, home));
        }
        // the shell and the ids useradd chooses are not known before it runs
        Accounts.Passwd made = new Accounts.Passwd(name, w.uid(), primary.map(Accounts.Group::gid).orElse(OptionalLong.empty()),
                w.comment().orElse(""), home, w.shell().orElse(""));
        String summary = "create " + (w.system() ? "system " : "") + "user " + name;
        changes.add(new Change(summary, List.of(new Diff("user " + name, "", describe(made, Optional.of(others)))), commands));
        w.uid().ifPresent(u -> result.put("uid", u));
        made.gid().ifPresent(g -> result.put("group", g));
        w.comment().ifPresent(c -> result.put("comment", c));
        result.put("home", home);
        w.shell().ifPresent(s -> result.put("shell", s));
        Optional<String> password = w.password();
        if (password.isPresent()) {
            changes.add(password(name, password.get(), true));
        }
        Plan plan = new Plan(changes, "", Map.of(), result)
                .withProbeAfterwards(Accounts.passwdProbe(name), new ProbeResult(0, made.line(), ""));
        if (primaryName.isPresent()) {
            List<String> ids = new ArrayList<>(List.of(primaryName.get()));
            ids.addAll(others);
            plan = plan.withProbeAfterwards(Accounts.groupsProbe(name), new ProbeResult(0, String.join(" ", ids) + "\n", ""));
        }
        if (ownGroup) {
            plan = plan.withProbeAfterwards(Accounts.groupProbe(name),
                    new ProbeResult(0, new Accounts.Group(name, OptionalLong.empty(), List.of()).line(), ""));
        }
        if (password.isPresent()) {
            plan = plan.withProbeAfterwards(Accounts.shadowProbe(name), new ProbeResult(0, name + ":" + password.get() + ":::::::\n", ""));
        }
        return plan;
    }

    private static Plan modify(HostView host, Wanted w, Accounts.Passwd now, Optional<Accounts.Group> primary,
                               List<String> supplementary, Map<String, Object> result) throws ModuleException {
        String name = w.name();
        List<String> flags = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        StringBuilder before = new StringBuilder();
        StringBuilder after = new StringBuilder();
        OptionalLong uid = now.uid();
        if (w.uid().isPresent() && !now.uid().equals(w.uid())) {
            requireUidFree(host, name, w.uid().getAsLong(), w.nonUnique());
            flags.addAll(List.of("-u", Long.toString(w.uid().getAsLong())));
            if (w.nonUnique()) {
                flags.add("-o");
            }
            uid = w.uid();
            field("uid", text(now.uid()), text(w.uid()), parts, before, after);
        }
        List<String> ids = w.groups().isPresent() ? Accounts.groupNames(host, name) : List.of();
        Optional<String> primaryName = ids.isEmpty() ? Optional.empty() : Optional.of(ids.getFirst());
        OptionalLong gid = now.gid();
        if (primary.isPresent() && (primary.get().gid().isEmpty() || !primary.get().gid().equals(now.gid()))) {
            String old = primaryName.isPresent() ? primaryName.get() : groupName(host, now.gid());
            flags.addAll(List.of("-g", primary.get().name()));
            gid = primary.get().gid();
            field("group", old, primary.get().name(), parts, before, after);
        }
        Optional<String> newPrimary = primary.map(Accounts.Group::name).or(() -> primaryName);
        if (w.groups().isPresent()) {
            Set<String> has = new LinkedHashSet<>(ids.isEmpty() ? List.of() : ids.subList(1, ids.size()));
            primaryName.ifPresent(has::remove);
            newPrimary.ifPresent(has::remove);
            List<String> want = without(supplementary, newPrimary);
            List<String> added = want.stream().filter(g -> !has.contains(g)).toList();
            List<String> removed = w.append() ? List.of() : has.stream().filter(g -> !want.contains(g)).toList();
            if (!added.isEmpty() || !removed.isEmpty()) {
                if (w.append()) {
                    flags.add("-a");
                }
                flags.addAll(List.of("-G", String.join(",", want)));
                List<String> changed = new ArrayList<>();
                added.forEach(g -> changed.add("+ " + g));
                removed.forEach(g -> changed.add("- " + g));
                parts.add("groups: " + String.join(", ", changed));
                Set<String> resulting = new LinkedHashSet<>(w.append() ? has : Set.of());
                resulting.addAll(want);
                before.append("groups: ").append(String.join(", ", has)).append('\n');
                after.append("groups: ").append(String.join(", ", resulting)).append('\n');
            }
        }
        if (w.comment().isPresent() && !w.comment().get().equals(now.comment())) {
            flags.addAll(List.of("-c", w.comment().get()));
            field("comment", now.comment(), w.comment().get(), parts, before, after);
        }
        boolean homeMoved = false;
        if (w.home().isPresent() && !w.home().get().equals(now.home())) {
            flags.addAll(List.of("-d", w.home().get()));
            if (w.moveHome()) {
                flags.add("-m");
                homeMoved = !now.home().isEmpty() && host.stat(now.home()).isPresent();
            }
            field("home", now.home(), w.home().get() + (homeMoved ? " (moved)" : ""), parts, before, after);
        }
        if (w.shell().isPresent() && !w.shell().get().equals(now.shell())) {
            flags.addAll(List.of("-s", w.shell().get()));
            field("shell", now.shell(), w.shell().get(), parts, before, after);
        }
        List<Change> changes = new ArrayList<>();
        if (!flags.isEmpty()) {
            List<String> argv = new ArrayList<>(List.of("usermod"));
            argv.addAll(flags);
            argv.add(name);
            List<Command> commands = new ArrayList<>(List.of(new Command.Exec(argv, new byte[0])));
            if (homeMoved) {
                commands.add(homeOf(name, w.home().get()));
            }
            changes.add(new Change("change user " + name + ": " + String.join(", ", parts),
                    List.of(new Diff("user " + name, before.toString(), after.toString())), commands));
        }
        String home = w.home().orElse(now.home());
        if (w.createHome() && !homeMoved && !home.isEmpty() && !home.equals("/nonexistent") && host.stat(home).isEmpty()) {
            String group = newPrimary.isPresent() ? newPrimary.get() : groupName(host, gid);
            changes.add(new Change("create home directory " + home + " of " + name,
                    List.of(new Diff(home, "", "directory, mode 0755, owner " + name + ", group " + group + "\n")),
                    List.of(new Command.MakeDirectory(home, new Attributes(Optional.of("0755"), Optional.of(name), Optional.of(group))))));
        }
        if (w.password().isPresent() && w.updateAlways()) {
            Optional<String> hash = Accounts.shadowHash(host, name);
            if (hash.isEmpty() && host.pendingAnswer(Accounts.passwdProbe(name)).isEmpty()) {
                throw new ModuleException("cannot read the shadow entry of " + name + " to compare its password with the one given:"
                        + " shadow is root's (become: true), or the account has none");
            }
            if (!stripLock(hash.orElse("")).equals(stripLock(w.password().get()))) {
                changes.add(password(name, w.password().get(), false));
            }
        }
        uid.ifPresent(u -> result.put("uid", u));
        gid.ifPresent(g -> result.put("group", g));
        result.put("comment", w.comment().orElse(now.comment()));
        result.put("home", home);
        result.put("shell", w.shell().orElse(now.shell()));
        if (changes.isEmpty()) {
            return new Plan(List.of(), "user " + name + " exists (" + describe(now, ids, w) + ")", Map.of(), result);
        }
        Accounts.Passwd then = new Accounts.Passwd(name, uid, gid, w.comment().orElse(now.comment()), home, w.shell().orElse(now.shell()));
        return new Plan(changes, "", Map.of(), result)
                .withProbeAfterwards(Accounts.passwdProbe(name), new ProbeResult(0, then.line(), ""));
    }

    /**
     * The home that {@code useradd -m} or {@code usermod -d -m} has just made, stated as a file-system
     * command after it: on the host a no-op ({@code mkdir -p} of an existing directory, the
     * {@code chown} useradd did; Ansible's chown when the home was there already), and in a dry run
     * what tells the forecast that the home exists and whose it is, so that a later task (a file in
     * it, a {@code stat}) plans as the run will. No mode: useradd's {@code HOME_MODE} stays.
     */
    private static Command homeOf(String name, String home) {
        return new Command.MakeDirectory(home, new Attributes(Optional.empty(), Optional.of(name), Optional.empty()));
    }

    /** useradd's base for homes: {@code HOME=} in {@code /etc/default/useradd}, {@code /home} when unset. */
    private static String homeBase(HostView host) throws ModuleException {
        Optional<byte[]> defaults = host.readFile("/etc/default/useradd");
        if (defaults.isPresent()) {
            for (String line : new String(defaults.get(), StandardCharsets.UTF_8).lines().toList()) {
                String l = line.strip();
                if (l.startsWith("HOME=")) {
                    String value = l.substring("HOME=".length()).strip().replaceAll("^[\"']|[\"']$", "");
                    if (value.startsWith("/")) {
                        return value.replaceAll("/+$", "");
                    }
                }
            }
        }
        return "/home";
    }

    /** The password change: its own change, sensitive, the hash on chpasswd's standard input only. */
    private static Change password(String name, String hash, boolean created) {
        byte[] line = (name + ":" + hash + "\n").getBytes(StandardCharsets.UTF_8);
        return new Change("set the password of " + name, List.of(new Diff("user " + name + " password",
                created ? "" : "password: (hidden)\n", "password: (hidden, changed)\n")),
                List.of(new Command.Exec(List.of("chpasswd", "-e"), line))).asSensitive();
    }

    private static void requireUidFree(HostView host, String name, long uid, boolean nonUnique) throws ModuleException {
        if (nonUnique) {
            return;
        }
        Optional<Accounts.Passwd> holder = Accounts.passwd(host, Long.toString(uid));
        if (holder.isPresent() && !holder.get().name().equals(name)) {
            throw new ModuleException("uid " + uid + " belongs to user " + holder.get().name()
                    + "; choose another uid, or set non_unique: true to share it");
        }
    }

    private static String groupName(HostView host, OptionalLong gid) throws ModuleException {
        if (gid.isEmpty()) {
            return "(allocated)";
        }
        return Accounts.group(host, Long.toString(gid.getAsLong())).map(Accounts.Group::name).orElse(Long.toString(gid.getAsLong()));
    }

    private static void field(String key, String from, String to, List<String> parts, StringBuilder before, StringBuilder after) {
        parts.add(key + ": " + shown(from) + " -> " + shown(to));
        before.append(key).append(": ").append(from).append('\n');
        after.append(key).append(": ").append(to).append('\n');
    }

    private static String shown(String value) {
        return value.isEmpty() ? "''" : value;
    }

    private static String stripLock(String hash) {
        int i = 0;
        while (i < hash.length() && hash.charAt(i) == '!') {
            i++;
        }
        return hash.substring(i);
    }

    private static List<String> without(List<String> groups, Optional<String> primary) {
        return groups.stream().filter(g -> primary.isEmpty() || !g.equals(primary.get())).toList();
    }

    private static String parent(String path) {
        String trimmed = path.replaceAll("/+$", "");
        int slash = trimmed.lastIndexOf('/');
        return slash <= 0 ? "/" : trimmed.substring(0, slash);
    }

    /** An id; one useradd or groupadd allocates is not known before it runs. */
    private static String text(OptionalLong id) {
        return id.isPresent() ? Long.toString(id.getAsLong()) : "(allocated)";
    }

    /** The passwd fields as a diff shows them; {@code groups} when known. */
    private static String describe(Accounts.Passwd p, Optional<List<String>> groups) {
        StringBuilder sb = new StringBuilder();
        p.uid().ifPresent(u -> sb.append("uid: ").append(u).append('\n'));
        p.gid().ifPresent(g -> sb.append("gid: ").append(g).append('\n'));
        groups.filter(g -> !g.isEmpty()).ifPresent(g -> sb.append("groups: ").append(String.join(", ", g)).append('\n'));
        if (!p.comment().isEmpty()) {
            sb.append("comment: ").append(p.comment()).append('\n');
        }
        if (!p.home().isEmpty()) {
            sb.append("home: ").append(p.home()).append('\n');
        }
        if (!p.shell().isEmpty()) {
            sb.append("shell: ").append(p.shell()).append('\n');
        }
        return sb.isEmpty() ? "exists\n" : sb.toString();
    }

    /** The converged reason's details: what the task asked about, as it is. */
    private static String describe(Accounts.Passwd p, List<String> ids, Wanted w) {
        List<String> parts = new ArrayList<>();
        parts.add("uid " + text(p.uid()));
        if (!ids.isEmpty()) {
            parts.add("group " + ids.getFirst());
            if (w.groups().isPresent()) {
                List<String> others = ids.subList(1, ids.size()).stream().filter(g -> !g.equals(ids.getFirst())).toList();
                parts.add(others.isEmpty() ? "no other groups" : "groups " + String.join(", ", others));
            }
        } else {
            parts.add("gid " + text(p.gid()));
        }
        if (!p.home().isEmpty()) {
            parts.add("home " + p.home());
        }
        if (!p.shell().isEmpty()) {
            parts.add("shell " + p.shell());
        }
        if (w.password().isPresent()) {
            parts.add(w.updateAlways() ? "password as given" : "password left as it is (update_password: on_create)");
        }
        return String.join(", ", parts);
    }
}
