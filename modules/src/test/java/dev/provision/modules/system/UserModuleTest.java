package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.Table;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UserModuleTest {
    static final String HASH = "$6$rounds=5000$saltsalt$Zx9dMl0xY0t8qJx1Gm0cKk6kP2tqFQkqgWl3b6dJ9mF2yZb5w0aXoRr7C3lq1b8vHn0s4e6t2u9w1y3z5A7B9.";
    static final String OTHER_HASH = "$y$j9T$abcdefghijklmnop$0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg";
    private final UserModule module = new UserModule();
    @TempDir
    Path controller;

    /**
     * The account database of a Debian host as shadow-utils keeps it, answering the module's probes
     * and changed by the commands a plan carries ({@link #run}), so that a test can plan, apply and
     * plan again.
     */
    static final class Db {
        record User(String name, long uid, long gid, String comment, String home, String shell, String hash) {
            String passwd() {
                return name + ":x:" + uid + ":" + gid + ":" + comment + ":" + home + ":" + shell + "\n";
            }
        }

        record Group(String name, long gid, Set<String> members) {
            String line() {
                return name + ":x:" + gid + ":" + String.join(",", members) + "\n";
            }
        }

        /** Names and ids the tests use: the probes of those not in the database answer "not found". */
        static final List<String> KEYS = List.of("alice", "bob", "carol", "docker", "adm", "sudo", "video", "users", "nope",
                "100", "27", "44", "999", "1000", "1001", "1002", "1500", "1777", "2000", "4242");
        final Map<String, User> users = new LinkedHashMap<>();
        final Map<String, Group> groups = new LinkedHashMap<>();
        final FakeHost host = new FakeHost().directory("/home");

        Db() {
            group("users", 100);
            group("adm", 4);
            group("sudo", 27);
            group("video", 44);
            group("docker", 999);
        }

        Db group(String name, long gid, String... members) {
            groups.put(name, new Group(name, gid, new LinkedHashSet<>(List.of(members))));
            return sync();
        }

        /** alice (uid 1000, her own group) with a home, shell /bin/sh, in adm and sudo; password HASH. */
        static Db alice() {
            Db a = new Db().group("alice", 1000);
            a.user(new User("alice", 1000, 1000, "Alice", "/home/alice", "/bin/sh", HASH), "adm", "sudo");
            a.host.directory("/home/alice", "0755", "alice", "alice");
            return a;
        }

        Db user(User user, String... supplementary) {
            users.put(user.name(), user);
            for (String g : supplementary) {
                groups.get(g).members().add(user.name());
            }
            return sync();
        }

        Db then(java.util.function.Consumer<Db> change) {
            change.accept(this);
            return this;
        }

        Db sync() {
            for (String key : KEYS) {
                host.probe(2, "", "", "getent", "passwd", key);
                host.probe(2, "", "", "getent", "group", key);
                host.probe(2, "", "", "getent", "shadow", key);
                host.probe(1, "", "id: '" + key + "': no such user\n", "id", "-Gn", key);
            }
            for (User u : users.values()) {
                host.probe(0, u.passwd(), "", "getent", "passwd", u.name());
                host.probe(0, u.passwd(), "", "getent", "passwd", Long.toString(u.uid()));
                host.probe(0, u.name() + ":" + u.hash() + ":19000:0:99999:7:::\n", "", "getent", "shadow", u.name());
                List<String> ids = new ArrayList<>();
                groups.values().stream().filter(g -> g.gid() == u.gid()).findFirst().ifPresent(g -> ids.add(g.name()));
                groups.values().stream().filter(g -> g.members().contains(u.name()) && !ids.contains(g.name())).forEach(g -> ids.add(g.name()));
                host.probe(0, String.join(" ", ids) + "\n", "", "id", "-Gn", u.name());
            }
            for (Group g : groups.values()) {
                host.probe(0, g.line(), "", "getent", "group", g.name());
                host.probe(0, g.line(), "", "getent", "group", Long.toString(g.gid()));
            }
            return this;
        }

        /** Makes every Exec of the plan act on this database when the fake host applies it. */
        void effects(Plan plan) {
            for (Change c : plan.changes()) {
                for (Command command : c.commands()) {
                    if (command instanceof Command.Exec e) {
                        host.onExec(e.argv(), h -> run(e));
                    }
                }
            }
        }

        private void run(Command.Exec e) {
            List<String> argv = e.argv();
            String name = argv.getLast();
            Map<String, String> o = new LinkedHashMap<>();
            for (int i = 1; i < argv.size() - 1; i++) {
                String a = argv.get(i);
                boolean takesValue = Set.of("-u", "-g", "-G", "-c", "-d", "-s").contains(a);
                o.put(a, takesValue ? argv.get(++i) : "");
            }
            switch (argv.getFirst()) {
                case "useradd" -> {
                    long uid = o.containsKey("-u") ? Long.parseLong(o.get("-u")) : o.containsKey("-r") ? 998 : 1001;
                    long gid;
                    if (o.containsKey("-g")) {
                        gid = groups.get(o.get("-g")).gid();
                    } else if (o.containsKey("-N")) {
                        gid = 100;
                    } else {
                        gid = uid;
                        groups.put(name, new Group(name, uid, new LinkedHashSet<>()));
                    }
                    String home = o.getOrDefault("-d", "/home/" + name);
                    users.put(name, new User(name, uid, gid, o.getOrDefault("-c", ""), home, o.getOrDefault("-s", "/bin/sh"), "!"));
                    if (o.containsKey("-G")) {
                        Arrays.stream(o.get("-G").split(",")).forEach(g -> groups.get(g).members().add(name));
                    }
                    if (o.containsKey("-m")) {
                        host.directory(home, "0755", name, name);
                    }
                }
                case "usermod" -> {
                    User u = users.get(name);
                    long uid = o.containsKey("-u") ? Long.parseLong(o.get("-u")) : u.uid();
                    long gid = o.containsKey("-g") ? groups.get(o.get("-g")).gid() : u.gid();
                    if (o.containsKey("-G")) {
                        List<String> wanted = o.get("-G").isEmpty() ? List.of() : List.of(o.get("-G").split(","));
                        for (Group g : groups.values()) {
                            if (wanted.contains(g.name())) {
                                g.members().add(name);
                            } else if (!o.containsKey("-a")) {
                                g.members().remove(name);
                            }
                        }
                    }
                    String home = o.getOrDefault("-d", u.home());
                    if (o.containsKey("-m")) {
                        host.directory(home, "0755", name, name);
                    }
                    users.put(name, new User(name, uid, gid, o.getOrDefault("-c", u.comment()), home, o.getOrDefault("-s", u.shell()), u.hash()));
                }
                case "userdel" -> {
                    users.remove(name);
                    groups.values().forEach(g -> g.members().remove(name));
                }
                case "chpasswd" -> {
                    String[] line = new String(e.stdin(), StandardCharsets.UTF_8).strip().split(":", 2);
                    User u = users.get(line[0]);
                    users.put(u.name(), new User(u.name(), u.uid(), u.gid(), u.comment(), u.home(), u.shell(), line[1]));
                }
                default -> throw new AssertionError("the fake knows no " + argv);
            }
            sync();
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                // present: a new user
                row("create: the defaults", new Db(), Args.of("name", "bob"), planned("exec [useradd, -m, bob]", "mkdir /home/bob [- bob -]")),
                row("create: every field", new Db(), Args.of("name", "bob", "uid", 1500, "group", "docker", "groups", List.of("adm", "video"),
                                "comment", "Bob, Room 4", "home", "/home/bob", "shell", "/bin/bash"),
                        planned("exec [useradd, -u, 1500, -g, docker, -G, adm,video, -c, Bob, Room 4, -d, /home/bob, -s, /bin/bash, -m, bob]",
                                "mkdir /home/bob [- bob -]")),
                row("create: groups as a comma string, a gid for the group", new Db(), Args.of("name", "bob", "group", "999", "groups", "adm, video"),
                        planned("exec [useradd, -g, docker, -G, adm,video, -m, bob]", "mkdir /home/bob [- bob -]")),
                row("create: a system user without a home", new Db(), Args.of("name", "bob", "system", true, "create_home", false,
                                "shell", "/usr/sbin/nologin"), planned("exec [useradd, -s, /usr/sbin/nologin, -M, -r, bob]")),
                row("create: createhome, Ansible's older alias", new Db(), Args.of("user", "bob", "createhome", "no"),
                        planned("exec [useradd, -M, bob]")),
                row("create: a group of the user's name exists: useradd's default group (-N)", new Db().group("bob", 2000),
                        Args.of("name", "bob"), planned("exec [useradd, -N, -m, bob]", "mkdir /home/bob [- bob -]")),
                row("create: a home under a missing directory", new Db(), Args.of("name", "bob", "home", "/data/home/bob"),
                        planned("mkdir /data/home [- - -]", "exec [useradd, -d, /data/home/bob, -m, bob]", "mkdir /data/home/bob [- bob -]")),
                row("create: with a password, on chpasswd's input", new Db(), Args.of("name", "bob", "password", HASH),
                        planned("exec [useradd, -m, bob]", "mkdir /home/bob [- bob -]", "exec [chpasswd, -e] stdin=\"bob:" + HASH + "\\n\"")),
                row("create: a shared uid with non_unique", Db.alice(), Args.of("name", "bob", "uid", 1000, "non_unique", true),
                        planned("exec [useradd, -u, 1000, -o, -m, bob]", "mkdir /home/bob [- bob -]")),
                // present: an existing user
                row("unchanged: exists", Db.alice(), Args.of("name", "alice"),
                        converged("user alice exists (uid 1000, gid 1000, home /home/alice, shell /bin/sh)")),
                row("unchanged: every field as it is", Db.alice(), Args.of("name", "alice", "uid", 1000, "group", "alice",
                                "groups", List.of("sudo", "adm"), "comment", "Alice", "home", "/home/alice", "shell", "/bin/sh", "password", HASH),
                        converged("user alice exists (uid 1000, group alice, groups adm, sudo, home /home/alice, shell /bin/sh, password as given)")),
                row("unchanged: append with groups she has", Db.alice(), Args.of("name", "alice", "groups", "adm", "append", true),
                        converged("user alice exists (uid 1000, group alice, groups adm, sudo, home /home/alice, shell /bin/sh)")),
                row("unchanged: the primary group listed in groups", Db.alice(), Args.of("name", "alice", "groups", List.of("alice", "adm", "sudo")),
                        converged("user alice exists (uid 1000, group alice, groups adm, sudo, home /home/alice, shell /bin/sh)")),
                row("unchanged: a locked copy of the same hash", Db.alice(), Args.of("name", "alice", "password", "!" + HASH),
                        converged("user alice exists (uid 1000, gid 1000, home /home/alice, shell /bin/sh, password as given)")),
                row("unchanged: update_password on_create leaves another hash", Db.alice(),
                        Args.of("name", "alice", "password", OTHER_HASH, "update_password", "on_create"),
                        converged("user alice exists (uid 1000, gid 1000, home /home/alice, shell /bin/sh, password left as it is"
                                + " (update_password: on_create))")),
                row("changed: the shell", Db.alice(), Args.of("name", "alice", "shell", "/bin/bash"),
                        planned("exec [usermod, -s, /bin/bash, alice]")),
                row("changed: groups appended", Db.alice(), Args.of("name", "alice", "groups", List.of("docker"), "append", true),
                        planned("exec [usermod, -a, -G, docker, alice]")),
                row("changed: groups replaced", Db.alice(), Args.of("name", "alice", "groups", List.of("docker", "sudo")),
                        planned("exec [usermod, -G, docker,sudo, alice]")),
                row("changed: all groups removed with []", Db.alice(), Args.of("name", "alice", "groups", List.of()),
                        planned("exec [usermod, -G, , alice]")),
                row("changed: uid, primary group, comment, home moved", Db.alice(), Args.of("name", "alice", "uid", 1500, "group", "users",
                                "comment", "Alice A.", "home", "/home/alice2", "move_home", true),
                        planned("exec [usermod, -u, 1500, -g, users, -c, Alice A., -d, /home/alice2, -m, alice]", "mkdir /home/alice2 [- alice -]")),
                row("changed: another password", Db.alice(), Args.of("name", "alice", "password", OTHER_HASH),
                        planned("exec [chpasswd, -e] stdin=\"alice:" + OTHER_HASH + "\\n\"")),
                row("changed: a missing home is made, as Ansible does", missingHome(), Args.of("name", "alice"),
                        planned("mkdir /home/alice [0755 alice alice]")),
                row("unchanged: a missing home with create_home false", missingHome(), Args.of("name", "alice", "create_home", false),
                        converged("user alice exists (uid 1000, gid 1000, home /home/alice, shell /bin/sh)")),
                row("unchanged: /nonexistent is never made", nobody(), Args.of("name", "bob"),
                        converged("user bob exists (uid 4242, gid 100, home /nonexistent, shell /usr/sbin/nologin)")),
                // absent
                row("absent: removes", Db.alice(), Args.of("name", "alice", "state", "absent"), planned("exec [userdel, alice]")),
                row("absent: remove and force", Db.alice(), Args.of("name", "alice", "state", "absent", "remove", true, "force", true),
                        planned("exec [userdel, -f, -r, alice]")),
                row("absent: already", new Db(), Args.of("name", "bob", "state", "absent"), converged("user bob does not exist")),
                // invalid input
                row("a group that does not exist", new Db(), Args.of("name", "bob", "group", "nope"), fails("group nope does not exist")),
                row("one of groups does not exist", Db.alice(), Args.of("name", "alice", "groups", List.of("adm", "nope")),
                        fails("group nope does not exist")),
                row("a uid another user holds", Db.alice(), Args.of("name", "bob", "uid", 1000),
                        fails("uid 1000 belongs to user alice; choose another uid, or set non_unique: true to share it")),
                row("a uid out of range", new Db(), Args.of("name", "bob", "uid", 4294967295L), fails("uid must be between 0 and 4294967294")),
                row("a relative shell", new Db(), Args.of("name", "bob", "shell", "bash"), fails("shell must be an absolute path, got 'bash'")),
                row("a relative home", new Db(), Args.of("name", "bob", "home", "home/bob"), fails("home must be an absolute path")),
                row("a plain password is refused", new Db(), Args.of("name", "bob", "password", "hunter2 secret"),
                        fails("password must be a crypt(3) hash")),
                row("an empty password is refused", new Db(), Args.of("name", "bob", "password", ""), fails("password is empty")),
                row("generate_ssh_key is refused with the reason", new Db(), Args.of("name", "bob", "generate_ssh_key", true),
                        fails("generate_ssh_key is not supported: a key pair made on each node is a secret the controller never sees")),
                row("an unknown parameter", new Db(), Args.of("name", "bob", "shel", "/bin/sh"),
                        fails("unsupported parameter 'shel' (did you mean 'shell'?)")),
                row("a bad update_password", new Db(), Args.of("name", "bob", "update_password", "never"),
                        fails("must be one of: always, on_create")),
                row("the shadow entry cannot be read (no root)", Db.alice().then(a -> a.host.probe(2, "", "", "getent", "shadow", "alice")),
                        Args.of("name", "alice", "password", HASH), fails("cannot read the shadow entry of alice")),
                // injection attempts
                row("injection: a name that is an option", new Db(), Args.of("name", "-ou0"), fails("name '-ou0' is not a valid name")),
                row("injection: a name with shell syntax", new Db(), Args.of("name", "bob$(reboot)"), fails("is not a valid name")),
                row("injection: a group that is an option", new Db(), Args.of("name", "bob", "group", "-o"), fails("group '-o' is not a valid name")),
                row("injection: one of groups smuggles an option", new Db(), Args.of("name", "bob", "groups", List.of("adm", "-u0")),
                        fails("groups '-u0' is not a valid name")),
                row("injection: a comment that adds a passwd field", new Db(), Args.of("name", "bob", "comment", "x:0:0:root"),
                        fails("comment 'x:0:0:root' cannot hold ':'")),
                row("injection: a comment that adds a passwd line", new Db(), Args.of("name", "bob", "comment", "Bob\nevil::0:0::/:/bin/sh"),
                        fails("comment 'Bob\\nevil::0:0::/:/bin/sh' cannot hold control characters")),
                row("injection: a home with a new line", new Db(), Args.of("name", "bob", "home", "/home/bob\n"), fails("cannot hold control")),
                row("injection: a password that adds a chpasswd line", Db.alice(), Args.of("name", "alice", "password", HASH + "\nroot:" + HASH),
                        fails("password must be a crypt(3) hash")),
                row("injection: a password with a colon", Db.alice(), Args.of("name", "alice", "password", "$6$a$b:0"),
                        fails("password must be a crypt(3) hash")));
    }

    static Db missingHome() {
        Db a = new Db().group("alice", 1000);
        return a.user(new Db.User("alice", 1000, 1000, "Alice", "/home/alice", "/bin/sh", HASH));
    }

    static Db nobody() {
        return new Db().user(new Db.User("bob", 4242, 100, "", "/nonexistent", "/usr/sbin/nologin", "*"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, Db accounts, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(accounts.host, controller), args, expect);
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    /** Apply, plan again: nothing left to do (Ansible's second run, changed=false). */
    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("plannedCases")
    void plansNothingOnceThePlanIsApplied(String name, Db accounts, Map<String, Object> args, Expect expect) throws Exception {
        FakeContext context = new FakeContext(accounts.host, controller);
        Plan plan = module.plan(module.params().validate(args), context);
        accounts.effects(plan);
        accounts.host.apply(plan);
        Plan again = module.plan(module.params().validate(args), context);
        assertTrue(again.isEmpty(), () -> "still planned: " + Expect.describe(again));
    }

    @Test
    void theForecastSaysWhatChanges() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "alice", "shell", "/bin/bash", "groups", List.of("docker"),
                "append", true)), new FakeContext(Db.alice().host, controller));
        Change change = plan.changes().getFirst();
        assertEquals("change user alice: groups: + docker, shell: /bin/sh -> /bin/bash", change.summary());
        assertEquals(new Diff("user alice", "groups: adm, sudo\nshell: /bin/sh\n", "groups: adm, sudo, docker\nshell: /bin/bash\n"),
                change.diffs().getFirst());
        Plan replaced = module.plan(module.params().validate(Args.of("name", "alice", "groups", List.of("docker", "adm"))),
                new FakeContext(Db.alice().host, controller));
        assertEquals("change user alice: groups: + docker, - sudo", replaced.changes().getFirst().summary());
    }

    /** The hash is on chpasswd's standard input only: never in a summary, a diff, an argument or the result. */
    @Test
    void thePasswordIsNeverShown() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "alice", "password", OTHER_HASH, "shell", "/bin/bash")),
                new FakeContext(Db.alice().host, controller));
        assertEquals(2, plan.changes().size());
        Change usermod = plan.changes().get(0);
        Change password = plan.changes().get(1);
        assertFalse(usermod.sensitive());
        assertTrue(password.sensitive(), "the password change hides its diff and its commands in saved plans");
        assertEquals("set the password of alice", password.summary());
        for (Change c : plan.changes()) {
            assertFalse(c.summary().contains(OTHER_HASH));
            c.diffs().forEach(d -> assertFalse((d.before() + d.after() + d.label()).contains(OTHER_HASH)));
            c.commands().forEach(cmd -> assertFalse(cmd instanceof Command.Exec e && String.join(" ", e.argv()).contains(OTHER_HASH)));
        }
        assertEquals(UserModule.NOT_LOGGING_PASSWORD, plan.result().get("password"));
        assertFalse(plan.result().toString().contains(OTHER_HASH));
        assertTrue(module.params().params().get("password").secret(), "provision doc says: secret, never shown");
    }

    @Test
    void aRefusedPasswordIsNotRepeatedInTheMessage() {
        String typo = "correct horse battery staple";
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> module.plan(module.params().validate(Args.of("name", "bob", "password", typo)), new FakeContext(new Db().host, controller)));
        assertFalse(e.getMessage().contains(typo), e.getMessage());
    }

    @Test
    void aNewUserIsWhatLaterProbesOfTheDryRunSee() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "bob", "uid", 1500, "group", "docker", "groups", "video",
                "shell", "/bin/bash")), new FakeContext(new Db().host, controller));
        assertEquals(new ProbeResult(0, "bob:x:1500:999::/home/bob:/bin/bash\n", ""),
                plan.afterwards().get(List.of("getent", "passwd", "bob")));
        assertEquals(new ProbeResult(0, "docker video\n", ""), plan.afterwards().get(List.of("id", "-Gn", "bob")));
        Plan own = module.plan(module.params().validate(Args.of("name", "bob")), new FakeContext(new Db().host, controller));
        assertEquals(0, own.afterwards().get(List.of("getent", "group", "bob")).exitCode(), "useradd makes bob's own group");
    }

    /** The forecast of `user: name=bob` (uid allocated), then `user: name=bob uid=1777 home=/srv/bob move_home=true`. */
    @Test
    void aUserAnEarlierTaskOfTheDryRunCreatesKeepsTheHomeUseraddMade() throws Exception {
        Db db = new Db();
        db.host.pendingProbe(List.of("getent", "passwd", "bob"), new ProbeResult(0, "bob:x::::/home/bob:\n", ""));
        db.host.pendingProbe(List.of("id", "-Gn", "bob"), new ProbeResult(0, "bob\n", ""));
        db.host.directory("/home/bob", "0755", "bob", "root"); // the forecast of that task's MakeDirectory
        Plan plan = module.plan(module.params().validate(Args.of("name", "bob", "uid", 1777, "home", "/srv/bob", "move_home", true,
                "groups", "video", "append", true)), new FakeContext(db.host, controller));
        assertEquals(List.of("exec [usermod, -u, 1777, -a, -G, video, -d, /srv/bob, -m, bob]", "mkdir /srv/bob [- bob -]"),
                Expect.describe(plan), "the home useradd -m makes is moved, not made again");
        assertEquals("change user bob: uid: (allocated) -> 1777, groups: + video, home: /home/bob -> /srv/bob (moved)",
                plan.changes().getFirst().summary());
        Plan same = module.plan(module.params().validate(Args.of("name", "bob")), new FakeContext(db.host, controller));
        assertTrue(same.isEmpty(), () -> "planned: " + Expect.describe(same));
    }

    @Test
    void aGroupAnEarlierTaskOfTheDryRunCreatesCounts() throws Exception {
        Db accounts = new Db();
        // as the dry run's forecast answers once `group: name=gpu` was planned (gid not known yet)
        accounts.host.probe(0, "gpu:x::\n", "", "getent", "group", "gpu");
        Plan plan = module.plan(module.params().validate(Args.of("name", "bob", "groups", "gpu")), new FakeContext(accounts.host, controller));
        assertEquals(List.of("exec [useradd, -G, gpu, -m, bob]", "mkdir /home/bob [- bob -]"), Expect.describe(plan));
    }

    @Test
    void aNewHomeFollowsUseraddsHomeBase() throws Exception {
        Db db = new Db();
        db.host.file("/etc/default/useradd", "# useradd defaults\nSHELL=/bin/sh\nHOME=\"/srv/homes/\"\n").directory("/srv/homes");
        Plan plan = module.plan(module.params().validate(Args.of("name", "bob")), new FakeContext(db.host, controller));
        assertEquals(List.of("exec [useradd, -m, bob]", "mkdir /srv/homes/bob [- bob -]"), Expect.describe(plan));
        assertEquals("/srv/homes/bob", plan.result().get("home"));
    }

    @Test
    void theResultCarriesAnsiblesKeys() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "alice", "groups", "adm,sudo")),
                new FakeContext(Db.alice().host, controller));
        assertEquals(Map.of("name", "alice", "state", "present", "uid", 1000L, "group", 1000L, "comment", "Alice", "home", "/home/alice",
                "shell", "/bin/sh", "groups", "adm,sudo", "append", false, "move_home", false), plan.result());
    }

    @Test
    void parsesRealGetentAndIdOutput() {
        // getent passwd root / nobody and id -Gn on Debian 12
        assertEquals(new Accounts.Passwd("root", java.util.OptionalLong.of(0), java.util.OptionalLong.of(0),
                "root", "/root", "/bin/bash"), Accounts.parsePasswd("root:x:0:0:root:/root:/bin/bash"));
        assertEquals("/nonexistent", Accounts.parsePasswd(
                "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin").home());
        assertEquals(List.of("alice", "adm", "sudo"), Accounts.parseGroupNames("alice adm sudo\n"));
    }
}
