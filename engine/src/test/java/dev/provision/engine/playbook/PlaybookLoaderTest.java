package dev.provision.engine.playbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlaybookLoaderTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private Playbook load(String text) throws Exception {
        return PlaybookLoader.load(write("site.yml", text), new FakeCatalog());
    }

    private static Task task(List<TaskNode> nodes, int index) {
        return assertInstanceOf(Task.class, nodes.get(index));
    }

    @Test
    void readsPlayKeywordsAndDefaults() throws Exception {
        Playbook playbook = load("""
                - name: bring up
                  hosts: [gpu, "!node07"]
                  serial: [1, "30%"]
                  max_fail_percentage: 20
                  any_errors_fatal: true
                  become: yes
                  become_user: admin
                  tags: [setup]
                  vars: {answer: 42}
                  tasks: []
                - hosts: all
                """);
        Play first = playbook.plays().get(0);
        assertEquals("bring up", first.name());
        assertEquals("gpu:!node07", first.hosts());
        assertEquals(List.of("1", "30%"), first.serial());
        assertEquals(Optional.of(20), first.maxFailPercentage());
        assertTrue(first.anyErrorsFatal());
        assertEquals(Optional.of(true), first.become());
        assertEquals(Optional.of("admin"), first.becomeUser());
        assertEquals(Set.of("setup"), first.tags());
        assertEquals(Map.of("answer", 42), first.vars());
        assertTrue(first.gatherFacts());
        Play second = playbook.plays().get(1);
        assertEquals(List.of(), second.serial());
        assertEquals(Optional.empty(), second.become());
        assertFalse(second.anyErrorsFatal());
        assertEquals(new SourcePosition(dir.resolve("site.yml").toString(), 11, 3), second.position());
    }

    @Test
    void keepsThePositionOfTasksAndOfEachArgument() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - name: write it
                      copy:
                        dest: /etc/motd
                        content: hello
                """);
        Task task = task(playbook.plays().getFirst().tasks(), 0);
        String file = dir.resolve("site.yml").toString();
        assertEquals(new SourcePosition(file, 3, 7), task.position());
        assertEquals(new SourcePosition(file, 5, 9), task.argPositions().get("dest"));
        assertEquals(new SourcePosition(file, 6, 9), task.argPositions().get("content"));
        assertEquals("copy", task.module());
        assertEquals(dir.toAbsolutePath().normalize(), task.baseDirectory());
    }

    @Test
    void resolvesScalarsAsYaml11ButKeepsFileModesAsWritten() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  vars:
                    on: yes
                    off: "no"
                    count: 3
                    big: 12345678901
                    ratio: 1.5
                    nothing: ~
                    mode: 0644
                    hex: 0x1F
                    nested: {list: [1, two]}
                """);
        Map<String, Object> vars = playbook.plays().getFirst().vars();
        assertEquals(Boolean.TRUE, vars.get("on"));
        assertEquals("no", vars.get("off"));
        assertEquals(3, vars.get("count"));
        assertEquals(12345678901L, vars.get("big"));
        assertEquals(1.5, vars.get("ratio"));
        assertTrue(vars.containsKey("nothing"));
        assertNull(vars.get("nothing"));
        assertEquals("0644", vars.get("mode"));
        assertEquals(31, vars.get("hex"));
        assertEquals(Map.of("list", List.of(1, "two")), vars.get("nested"));
    }

    @Test
    void appliesMergeKeys() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  vars:
                    base: &base {user: root, port: 22}
                    node: {<<: *base, port: 2222}
                """);
        assertEquals(Map.of("user", "root", "port", 2222), playbook.plays().getFirst().vars().get("node"));
    }

    @Test
    void mapsPrefixedModuleNamesToTheirCanonicalName() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - ansible.builtin.debug: {msg: a}
                    - ansible.legacy.debug: {msg: b}
                """);
        assertEquals("debug", task(playbook.plays().getFirst().tasks(), 0).module());
        assertEquals("debug", task(playbook.plays().getFirst().tasks(), 1).module());
    }

    @Test
    void readsAnsiblesKeyValueArgumentsAsTheMapping() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - copy: dest=/etc/motd content="hello world" mode='0644'
                    - file: path=/srv/a state=directory
                """);
        Task copy = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals(Map.of("dest", "/etc/motd", "content", "hello world", "mode", "0644"), copy.args());
        Task file = task(playbook.plays().getFirst().tasks(), 1);
        assertEquals(Map.of("path", "/srv/a", "state", "directory"), file.args());
    }

    @Test
    void aKeyValueArgumentThatTheModuleLacksIsRefusedAtItsLine() throws Exception {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - copy: dest=/etc/motd bogus=1
                """));
        assertTrue(e.getMessage().endsWith(":3:13: module 'copy' has no parameter 'bogus' (content, dest, mode, src)"), e.getMessage());
    }

    @Test
    void mapsCollectionModulesThatProvisionHasUnderTheirOwnName() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - community.general.copy: {dest: /x, content: a}
                    - ansible.posix.file: {path: /y}
                """);
        assertEquals("copy", task(playbook.plays().getFirst().tasks(), 0).module());
        assertEquals("file", task(playbook.plays().getFirst().tasks(), 1).module());
    }

    @Test
    void keepsAFreeFormStringAndMergesArgs() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - command: nvidia-smi -L
                      args:
                        creates: /tmp/done
                """);
        Task task = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals(Map.of(Task.FREE_FORM, "nvidia-smi -L", "creates", "/tmp/done"), task.args());
        assertEquals(3, task.argPositions().get(Task.FREE_FORM).line());
        assertEquals(5, task.argPositions().get("creates").line());
    }

    @Test
    void letsInlineArgumentsWinOverArgs() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - copy: {dest: /inline, content: x}
                      args: {dest: /from-args, mode: "0600"}
                """);
        Task task = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals("/inline", task.args().get("dest"));
        assertEquals("0600", task.args().get("mode"));
    }

    @Test
    void acceptsParameterAliasesAndAnyKeysWhereTheSpecAllows() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - file: {dest: /tmp/x, state: touch}
                    - set_fact: {anything_goes: 1}
                    - debug:
                """);
        assertEquals("/tmp/x", task(playbook.plays().getFirst().tasks(), 0).args().get("dest"));
        assertEquals(Map.of("anything_goes", 1), task(playbook.plays().getFirst().tasks(), 1).args());
        assertEquals(Map.of(), task(playbook.plays().getFirst().tasks(), 2).args());
    }

    @Test
    void readsConditionsFromStringsBooleansAndLists() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - debug: {msg: a}
                      when: gpu_count > 0
                    - debug: {msg: b}
                      when: yes
                    - debug: {msg: c}
                      when: [a == 1, false]
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals(List.of("gpu_count > 0"), task(tasks, 0).when().stream().map(Expression::text).toList());
        assertEquals(List.of("true"), task(tasks, 1).when().stream().map(Expression::text).toList());
        assertEquals(List.of("a == 1", "false"), task(tasks, 2).when().stream().map(Expression::text).toList());
        assertEquals(8, task(tasks, 2).when().get(0).position().line());
    }

    @Test
    void readsLoopsWithTheirControl() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - debug: {msg: "${pkg}"}
                      loop: [a, b]
                      loop_control: {loop_var: pkg, label: "${pkg}"}
                    - debug: {msg: x}
                      loop: "${groups.gpu}"
                    - debug: {msg: x}
                      with_items: [[1, 2], 3]
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        Loop first = task(tasks, 0).loop().orElseThrow();
        assertEquals(List.of("a", "b"), first.items());
        assertEquals("pkg", first.loopVar());
        assertEquals("${pkg}", first.label());
        assertEquals("${groups.gpu}", task(tasks, 1).loop().orElseThrow().items());
        assertEquals("item", task(tasks, 1).loop().orElseThrow().loopVar());
        assertEquals(List.of(1, 2, 3), task(tasks, 2).loop().orElseThrow().items());
    }

    @Test
    void readsAnsiblesLookupLoopsWithWhatEachMakesOfItsValue() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - debug: {msg: "${item.key}"}
                      with_dict: {a: 1}
                    - copy: {src: "${item}", dest: /srv/}
                      with_fileglob: "*.sh"
                    - copy: {src: "${item}", dest: /etc/x}
                      with_first_found:
                        - files: [a.yml, b.yml]
                          paths: "vars,../vars"
                          skip: true
                        - default.yml
                    - debug: {msg: x}
                      with_list: [[1, 2], 3]
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals(Loop.Lookup.DICT, task(tasks, 0).loop().orElseThrow().lookup());
        assertEquals(Map.of("a", 1), task(tasks, 0).loop().orElseThrow().items());
        assertEquals(Loop.Lookup.FILEGLOB, task(tasks, 1).loop().orElseThrow().lookup());
        assertEquals(List.of("*.sh"), task(tasks, 1).loop().orElseThrow().items(), "one pattern written as a string");
        Loop firstFound = task(tasks, 2).loop().orElseThrow();
        assertEquals(Loop.Lookup.FIRST_FOUND, firstFound.lookup());
        assertEquals(List.of(Map.of("files", List.of("a.yml", "b.yml"), "paths", List.of("vars", "../vars"), "skip", true),
                "default.yml"), firstFound.items());
        assertEquals(List.of(List.of(1, 2), 3), task(tasks, 3).loop().orElseThrow().items(), "with_list does not flatten");
    }

    @Test
    void localActionIsTheModuleDelegatedToTheController() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - local_action: copy content=hi dest=/tmp/x
                    - local_action:
                        module: ansible.builtin.file
                        path: /tmp/y
                        state: directory
                    - action: file path=/tmp/z state=absent
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals("copy", task(tasks, 0).module());
        assertEquals(Map.of("content", "hi", "dest", "/tmp/x"), task(tasks, 0).args());
        assertEquals(Optional.of("localhost"), task(tasks, 0).delegateTo());
        assertEquals("file", task(tasks, 1).module());
        assertEquals(Map.of("path", "/tmp/y", "state", "directory"), task(tasks, 1).args());
        assertEquals(Optional.of("localhost"), task(tasks, 1).delegateTo());
        assertEquals("file", task(tasks, 2).module());
        assertEquals(Optional.empty(), task(tasks, 2).delegateTo(), "action: runs where the task runs");
    }

    @Test
    void defaultsRetriesOnlyWhenUntilIsGiven() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - command: /bin/check
                      register: out
                      until: [out.rc == 0, out.stdout != ""]
                    - command: /bin/check
                      until: out.rc == 0
                      retries: 10
                      delay: 1
                    - debug: {msg: x}
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals(3, task(tasks, 0).retries());
        assertEquals(5, task(tasks, 0).delaySeconds());
        assertEquals("(out.rc == 0) && (out.stdout != \"\")", task(tasks, 0).until().orElseThrow().text());
        assertEquals(Optional.of("out"), task(tasks, 0).register());
        assertEquals(10, task(tasks, 1).retries());
        assertEquals(1, task(tasks, 1).delaySeconds());
        assertEquals(0, task(tasks, 2).retries());
    }

    @Test
    void readsTheRemainingTaskKeywords() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - name: all of them
                      debug: {msg: x}
                      notify: restart chrony
                      changed_when: false
                      failed_when: out.rc > 1
                      ignore_errors: true
                      run_once: true
                      delegate_to: localhost
                      no_log: true
                      become: false
                      become_user: nobody
                      tags: "a, b"
                      vars: {v: 1}
                    - debug: {msg: y}
                      notify: [one, two]
                """);
        Task t = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals(List.of("restart chrony"), t.notifies());
        assertEquals("false", t.changedWhen().orElseThrow().text());
        assertEquals("out.rc > 1", t.failedWhen().orElseThrow().text());
        assertTrue(t.ignoreErrors() && t.runOnce() && t.noLog());
        assertEquals(Optional.of("localhost"), t.delegateTo());
        assertEquals(Optional.of(false), t.become());
        assertEquals(Optional.of("nobody"), t.becomeUser());
        assertEquals(Set.of("a", "b"), t.tags());
        assertEquals(Map.of("v", 1), t.vars());
        assertEquals(List.of("one", "two"), task(playbook.plays().getFirst().tasks(), 1).notifies());
    }

    @Test
    void pushesBlockKeywordsDownOntoNestedTasks() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - name: outer
                      when: outer_ok
                      tags: [outer]
                      vars: {shared: outer, only_outer: 1}
                      become: true
                      ignore_errors: true
                      block:
                        - name: inner block
                          when: inner_ok
                          vars: {shared: inner}
                          block:
                            - debug: {msg: deep}
                              when: own
                              become: false
                              tags: deep
                      rescue:
                        - debug: {msg: rescued}
                      always:
                        - debug: {msg: always}
                """);
        Block outer = assertInstanceOf(Block.class, playbook.plays().getFirst().tasks().getFirst());
        assertEquals("outer", outer.name());
        Block inner = assertInstanceOf(Block.class, outer.block().getFirst());
        Task deep = task(inner.block(), 0);
        assertEquals(List.of("outer_ok", "inner_ok", "own"), deep.when().stream().map(Expression::text).toList());
        assertEquals(Set.of("outer", "deep"), deep.tags());
        assertEquals(Map.of("shared", "inner", "only_outer", 1), deep.vars());
        assertEquals(Optional.of(false), deep.become());
        assertTrue(deep.ignoreErrors());
        Task rescued = task(outer.rescue(), 0);
        assertEquals(List.of("outer_ok"), rescued.when().stream().map(Expression::text).toList());
        assertEquals(Optional.of(true), rescued.become());
        assertEquals(1, outer.always().size());
    }

    @Test
    void resolvesImportsAndIncludesStaticallyWithTheirKeywords() throws Exception {
        write("tasks/gpu.yml", """
                - debug: {msg: gpu}
                - include_tasks: nested/more.yml
                """);
        write("tasks/nested/more.yml", """
                - debug: {msg: more}
                """);
        write("common.yml", "- debug: {msg: common}\n");
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - import_tasks: tasks/gpu.yml
                      when: has_gpu
                      tags: gpu
                      vars: {x: 1}
                    - ansible.builtin.include_tasks:
                        file: common.yml
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals(3, tasks.size());
        Task gpu = task(tasks, 0);
        Task more = task(tasks, 1);
        assertEquals(List.of("has_gpu"), more.when().stream().map(Expression::text).toList());
        assertEquals(Set.of("gpu"), more.tags());
        assertEquals(Map.of("x", 1), more.vars());
        assertEquals(dir.resolve("tasks/gpu.yml").toString(), gpu.position().file());
        assertEquals(dir.resolve("tasks/nested/more.yml").toString(), more.position().file());
        assertEquals(Map.of("msg", "common"), task(tasks, 2).args());
    }

    @Test
    void aComputedIncludeReadsEveryFileItCanNameButNeverItself() throws Exception {
        write("roles/chrony/tasks/main.yml", "- include_tasks: \"${os?lower_case}.yml\"\n");
        write("roles/chrony/tasks/debian.yml", "- debug: {msg: debian}\n");
        write("roles/chrony/tasks/redhat.yml", "- debug: {msg: redhat}\n");
        write("roles/chrony/tasks/notes.txt", "not a candidate\n");
        Playbook playbook = load("""
                - hosts: all
                  roles: [chrony]
                """);
        List<TaskNode> tasks = playbook.plays().getFirst().tasks();
        assertEquals(3, tasks.size());
        assertEquals(List.of("((os?lower_case)?string + r\".yml\") == r\"debian.yml\""),
                task(tasks, 0).when().stream().map(Expression::text).toList());
        assertEquals(Map.of("msg", "redhat"), task(tasks, 1).args());
        assertEquals("fail", task(tasks, 2).module());
        InvalidInputException none = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - include_tasks: "${os}.yaml"
                """));
        assertTrue(none.getMessage().contains("no task file matches '${os}.yaml'"), none.getMessage());
        InvalidInputException imported = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - import_tasks: "${os}.yml"
                """));
        assertTrue(imported.getMessage().contains("use 'include_tasks' for a name computed per host"), imported.getMessage());
    }

    @Test
    void importPlaybookVarsGoToEveryImportedPlayOverItsOwn() throws Exception {
        write("registry.yml", """
                - hosts: "${hostlist!'all'}"
                  vars: {port: 5000, hostlist: mine}
                  tasks:
                    - debug: {msg: x}
                """);
        Playbook playbook = load("""
                - import_playbook: registry.yml hostlist=gpu
                - import_playbook: registry.yml
                  vars: {port: 6000}
                - import_playbook: registry.yml
                """);
        List<Play> plays = playbook.plays();
        assertEquals(Map.of("port", 5000, "hostlist", "gpu"), plays.get(0).vars(), "the older k=v form");
        assertEquals(Map.of("port", 6000, "hostlist", "mine"), plays.get(1).vars());
        assertEquals(Map.of("port", 5000, "hostlist", "mine"), plays.get(2).vars());
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("- import_playbook: registry.yml x=1 y\n"));
        assertTrue(e.getMessage().contains("only name=value words may follow"), e.getMessage());
    }

    @Test
    void parametersAnsibleIgnoresAreWarningsNamingWhatToDo() throws Exception {
        Playbook playbook = PlaybookLoader.load(write("site.yml", """
                - hosts: all
                  tasks:
                    - shell: ip link
                      args: {warn: false}
                    - command: {cmd: ls, executable: /bin/bash}
                """), dev.provision.engine.exec.ModuleRegistry.load());
        assertEquals(2, playbook.warnings().size(), playbook.warnings().toString());
        assertTrue(playbook.warnings().get(0).contains("'warn'") && playbook.warnings().get(0).contains("removed in Ansible 2.14"),
                playbook.warnings().toString());
        assertTrue(playbook.warnings().get(1).contains("'executable'"), playbook.warnings().toString());
        assertTrue(!task(playbook.plays().getFirst().tasks(), 0).args().containsKey("warn"),
                "the ignored parameter does not reach the module");
    }

    @Test
    void anIncludeRoleOfAMissingRoleWarnsWhileImportRoleFails() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - include_role: {name: geerlingguy.ntp}
                      when: use_ntp
                """);
        Task placeholder = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals("fail", placeholder.module());
        assertEquals(List.of("use_ntp"), placeholder.when().stream().map(Expression::text).toList());
        assertEquals(1, playbook.warnings().size());
        assertTrue(playbook.warnings().getFirst().startsWith(dir.resolve("site.yml") + ":3:"), playbook.warnings().toString());
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - import_role: {name: geerlingguy.ntp}
                """));
        assertTrue(e.getMessage().contains("role 'geerlingguy.ntp' not found"), e.getMessage());
    }

    @Test
    void expandsRolesBeforeThePlayTasks() throws Exception {
        write("roles/chrony/tasks/main.yml", """
                - name: configure
                  copy: {dest: /etc/chrony.conf, content: "${servers}"}
                  notify: restart chrony
                - import_tasks: extra.yml
                """);
        write("roles/chrony/tasks/extra.yml", "- debug: {msg: extra}\n");
        write("roles/chrony/handlers/main.yml", """
                - name: restart chrony
                  command: systemctl restart chronyd
                  listen: [time changed]
                """);
        write("roles/chrony/defaults/main.yml", "servers: pool.ntp.org\nport: 123\n");
        write("roles/chrony/vars/main.yml", "service: chronyd\n");
        Playbook playbook = load("""
                - hosts: all
                  pre_tasks:
                    - debug: {msg: pre}
                  roles:
                    - role: chrony
                      servers: ntp.local
                      vars: {extra: 1}
                      when: use_chrony
                      tags: time
                  tasks:
                    - debug: {msg: play}
                  post_tasks:
                    - debug: {msg: post}
                  handlers:
                    - name: play handler
                      debug: {msg: h}
                """);
        Play play = playbook.plays().getFirst();
        assertEquals(1, play.preTasks().size());
        assertEquals(1, play.postTasks().size());
        assertEquals(3, play.tasks().size());
        Task configure = task(play.tasks(), 0);
        RoleContext role = configure.role().orElseThrow();
        assertEquals("chrony", role.name());
        assertEquals(dir.resolve("roles/chrony").toAbsolutePath().normalize(), role.directory());
        assertEquals(Map.of("servers", "pool.ntp.org", "port", 123), role.defaults());
        assertEquals(Map.of("service", "chronyd", "extra", 1, "servers", "ntp.local"), role.vars());
        assertEquals(role.directory(), configure.baseDirectory());
        assertEquals("chrony : configure", configure.displayName());
        assertEquals(List.of("use_chrony"), configure.when().stream().map(Expression::text).toList());
        assertEquals(Set.of("time"), configure.tags());
        assertEquals(Map.of(), configure.vars());
        assertEquals("extra", task(play.tasks(), 1).args().get("msg"));
        Task playTask = task(play.tasks(), 2);
        assertEquals(Optional.empty(), playTask.role());
        assertEquals(List.of("restart chrony", "play handler"), play.handlers().stream().map(Task::name).toList());
        assertEquals(List.of("time changed"), play.handlers().getFirst().listen());
    }

    @Test
    void acceptsARoleWithoutTasks() throws Exception {
        Files.createDirectories(dir.resolve("roles/empty/defaults"));
        Playbook playbook = load("""
                - hosts: all
                  roles: [empty]
                """);
        assertEquals(List.of(), playbook.plays().getFirst().tasks());
    }

    @Test
    void runsRoleDependenciesFirstOncePerPlayWithTheEntrysKeywords() throws Exception {
        write("roles/facts/tasks/main.yml", "- debug: {msg: facts}\n");
        write("roles/rsyslog/tasks/main.yml", "- debug: {msg: rsyslog}\n");
        write("roles/nhc/meta/main.yml", "dependencies:\n  - role: facts\n");
        write("roles/nhc/tasks/main.yml", "- debug: {msg: nhc}\n");
        write("roles/slurm/meta/main.yml", "dependencies:\n  - facts\n  - role: rsyslog\n    tags: [logs]\n");
        write("roles/slurm/tasks/main.yml", "- debug: {msg: slurm}\n");
        Playbook playbook = load("""
                - hosts: all
                  roles:
                    - role: nhc
                      when: gpus > 0
                    - slurm
                - hosts: all
                  roles: [nhc]
                """);
        List<TaskNode> first = playbook.plays().getFirst().tasks();
        assertEquals(List.of("facts", "nhc", "rsyslog", "slurm"),
                first.stream().map(t -> String.valueOf(((Task) t).args().get("msg"))).toList(), "facts once in the play");
        assertEquals("gpus > 0", ((Task) first.get(0)).when().getFirst().text(), "the entry's condition reaches its dependency");
        assertTrue(((Task) first.get(2)).tags().contains("logs"));
        assertEquals(2, playbook.plays().get(1).tasks().size(), "each play counts afresh");
    }

    @Test
    void aRoleDependencyCycleIsNamed() throws Exception {
        write("roles/a/meta/main.yml", "allow_duplicates: true\ndependencies: [b]\n");
        write("roles/b/meta/main.yml", "allow_duplicates: true\ndependencies: [a]\n");
        write("roles/a/meta/../tasks/main.yml", "- debug: {msg: a}\n");
        write("roles/b/tasks/main.yml", "- debug: {msg: b}\n");
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  roles: [a, a]
                """));
        assertTrue(error.getMessage().contains("role dependency cycle"), error.getMessage());
    }

    @Test
    void mergesVarsFilesInOrder() throws Exception {
        write("vars/one.yml", "a: 1\nb: 1\n");
        write("vars/two.yml", "b: 2\n");
        Playbook playbook = load("""
                - hosts: all
                  vars_files: [vars/one.yml, vars/two.yml]
                """);
        assertEquals(Map.of("a", 1, "b", 2), playbook.plays().getFirst().varsFiles());
    }

    @Test
    void pushesPlayTagsDownOntoTasksAndHandlers() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  tags: cluster
                  tasks:
                    - debug: {msg: x}
                      tags: one
                  handlers:
                    - name: h
                      debug: {msg: h}
                """);
        assertEquals(Set.of("cluster", "one"), task(playbook.plays().getFirst().tasks(), 0).tags());
        assertEquals(Set.of("cluster"), playbook.plays().getFirst().handlers().getFirst().tags());
    }

    @Test
    void importsPlaybooksRelativeToTheImportingFile() throws Exception {
        write("more/other.yml", """
                - hosts: gpu
                  tasks:
                    - debug: {msg: other}
                """);
        Playbook playbook = load("""
                - hosts: all
                - import_playbook: more/other.yml
                """);
        assertEquals(List.of("all", "gpu"), playbook.plays().stream().map(Play::hosts).toList());
        assertEquals(dir.resolve("more").toAbsolutePath().normalize(),
                task(playbook.plays().get(1).tasks(), 0).baseDirectory());
    }

    @Test
    void conditionsAndTagsOnImportPlaybookReachEveryImportedTaskOuterFirst() throws Exception {
        write("more/inner.yml", """
                - hosts: gpu
                  tasks:
                    - debug: {msg: inner}
                      when: gpus > 0
                """);
        write("more/outer.yml", """
                - import_playbook: inner.yml
                  when: slurm_enabled
                """);
        Playbook playbook = load("""
                - import_playbook: more/outer.yml
                  when: deploy | default(true)
                  tags: [slurm]
                """);
        Task t = task(playbook.plays().getFirst().tasks(), 0);
        assertEquals(List.of("deploy | default(true)", "slurm_enabled", "gpus > 0"), t.when().stream().map(Expression::text).toList());
        assertEquals(Set.of("slurm"), t.tags());
    }

    @Test
    void rejectsBlocksInHandlers() {
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  handlers:
                    - block:
                        - debug: {msg: x}
                """));
        assertEquals("blocks are not supported in handlers; write the handlers one by one", error.problem());
        assertEquals(3, error.position().line());
    }

    @Test
    void reportsAMissingPlaybookFile() {
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> PlaybookLoader.load(dir.resolve("nope.yml"), new FakeCatalog()));
        assertEquals(dir.resolve("nope.yml") + ": playbook file not found", error.getMessage());
    }

    @Test
    void rejectsAnUnknownParameterInArgs() {
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - command: ls
                      args: {chdir: /tmp}
                """));
        assertEquals("unknown parameter 'chdir' for module 'command'; it takes cmd, creates", error.problem());
        assertEquals(new SourcePosition(dir.resolve("site.yml").toString(), 4, 14), error.position());
    }

    @Test
    void importRoleReadsTheRoleInPlaceWithItsFilesAndItsHandlersJoinThePlay() throws Exception {
        write("roles/web/tasks/main.yml", "- debug: {msg: main}\n");
        write("roles/web/tasks/setup.yml", "- name: set up\n  debug: {msg: setup}\n  notify: reload web\n");
        write("roles/web/handlers/main.yml", "- name: reload web\n  debug: {msg: reload}\n");
        write("roles/web/vars/tuned.yml", "port: 8443\n");
        write("roles/web/defaults/main.yml", "port: 80\nworkers: 4\n");
        Playbook playbook = load("""
                - hosts: all
                  tasks:
                    - debug: {msg: before}
                    - ansible.builtin.import_role:
                        name: web
                        tasks_from: setup
                        vars_from: tuned
                      vars: {extra: 1}
                      when: enabled
                      become: true
                    - debug: {msg: after}
                  handlers:
                    - name: own
                      debug: {msg: own}
                """);
        Play play = playbook.plays().get(0);
        assertEquals(3, play.tasks().size());
        Task setup = task(play.tasks(), 1);
        assertEquals("web : set up", setup.displayName());
        assertEquals(List.of("enabled"), setup.when().stream().map(Expression::text).toList());
        assertEquals(Optional.of(true), setup.become());
        RoleContext role = setup.role().orElseThrow();
        assertEquals(Map.of("port", 8443, "extra", 1), role.vars());
        assertEquals(Map.of("port", 80, "workers", 4), role.defaults());
        assertEquals(List.of("reload web", "own"), play.handlers().stream().map(Task::name).toList());
    }

    @Test
    void includeRoleFromARoleFindsItsSiblingAndACycleIsNamed() throws Exception {
        write("roles/base/tasks/main.yml", "- debug: {msg: base}\n");
        write("roles/app/tasks/main.yml", "- include_role: {name: base}\n- debug: {msg: app}\n");
        Playbook playbook = load("""
                - hosts: all
                  roles: [app]
                """);
        assertEquals(List.of("base : debug", "app : debug"),
                playbook.plays().get(0).tasks().stream().map(n -> ((Task) n).displayName()).toList());

        write("roles/loop/tasks/main.yml", "- import_role: {name: loop}\n");
        InvalidInputException cycle = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - import_role: {name: loop}
                """));
        assertTrue(cycle.getMessage().contains("role cycle"), cycle.getMessage());
        assertTrue(cycle.getMessage().contains("roles/loop/tasks/main.yml:1:"), cycle.getMessage());
    }

    @Test
    void roleImportsThatCannotWorkAreRefusedWithWhatToDo() throws Exception {
        write("roles/web/tasks/main.yml", "- debug: {msg: main}\n");
        Map<String, String> cases = Map.of(
                "- import_role: {name: web, tasks_from: nope}", "has no tasks file 'nope'",
                "- import_role: {name: \"${which}\"}", "templated 'name'",
                "- import_role: {name: web}\n      loop: [1, 2]", "a loop over a role is not supported",
                "- import_role: {name: web, public: true}", "'import_role.public' is not supported",
                "- import_role: {name: web, task_from: x}", "did you mean 'tasks_from'",
                "- import_role: web", "takes a mapping",
                "- import_role: {tasks_from: main}", "needs the role's name",
                "- import_role: {name: ../outside}", "is not allowed");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("""
                    - hosts: all
                      tasks:
                    """ + "    " + c.getKey() + "\n"), c.getKey());
            assertTrue(e.getMessage().contains(c.getValue()), c.getKey() + " -> " + e.getMessage());
            assertTrue(e.getMessage().matches("(?s).*site\\.yml:\\d+:\\d+: .*"), e.getMessage());
        }
        InvalidInputException inHandler = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  handlers:
                    - import_role: {name: web}
                """));
        assertTrue(inHandler.getMessage().contains("roles cannot be imported in handlers"), inHandler.getMessage());
    }

    @Test
    void environmentLayersArePushedDownOuterFirstAndNamesAreChecked() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  environment: {http_proxy: "http://proxy:3128"}
                  tasks:
                    - block:
                        - command: apt-get update
                          environment: {LANG: C}
                      environment: "${proxy_env}"
                """);
        Block block = (Block) playbook.plays().get(0).tasks().get(0);
        Task t = task(block.block(), 0);
        assertEquals(List.of(Map.of("http_proxy", "http://proxy:3128"), "${proxy_env}", Map.of("LANG", "C")),
                t.keywords().get(Keyword.ENVIRONMENT));
        for (String bad : List.of("{\"-i\": x}", "{\"A=B\": x}", "{A: [1, 2]}", "just-a-string", "[A]")) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> load("""
                    - hosts: all
                      tasks:
                        - command: x
                          environment:\s""" + bad + "\n"), bad);
            assertTrue(e.getMessage().contains("environment"), bad + " -> " + e.getMessage());
        }
    }

    @Test
    void becomeMethodSudoIsAnsiblesDefaultAndAnyOtherIsRefusedWhereItIsWritten() throws Exception {
        Playbook playbook = load("""
                - hosts: all
                  become_method: sudo
                  tasks:
                    - command: x
                      become: true
                      become_method: sudo
                """);
        assertEquals(Optional.of(true), task(playbook.plays().get(0).tasks(), 0).become());
        InvalidInputException su = assertThrows(InvalidInputException.class, () -> load("""
                - hosts: all
                  tasks:
                    - command: x
                      become_method: su
                """));
        assertTrue(su.getMessage().contains("site.yml:4:22: become_method 'su' is not supported"), su.getMessage());
    }
}
