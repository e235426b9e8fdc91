package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code provision migrate}: an Ansible playbook's Jinja2, rewritten, then runs as provision means it. */
class MigrateCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int provision(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aMigratedPlaybookPassesTheChecksAndDoesWhatTheJinjaMeant() throws Exception {
        Path dir = tmp.resolve("srv");
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  vars:
                    names: [a, b]
                  tasks:
                    - name: dirs
                      file:
                        path: "%s/{{ item }}"
                        state: directory
                      loop: "{{ names }}"
                      when: names is defined and names | length > 1
                """.formatted(dir));
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("-i", "localhost,", "--syntax-check", playbook.toString()), err.toString());

        assertEquals(0, provision("migrate", playbook.toString()), err.toString());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("+        path: \"" + dir + "/${item}\""), out.toString());
        assertTrue(Files.readString(playbook).contains("{{ item }}"), "nothing written without --write");

        assertEquals(0, provision("migrate", "--write", playbook.toString()), err.toString());
        assertTrue(Files.readString(playbook).contains("when: names?? && names?size > 1"), Files.readString(playbook));
        assertEquals(0, provision("-i", "localhost,", playbook.toString()), out + "\n" + err);
        assertTrue(Files.isDirectory(dir.resolve("a")) && Files.isDirectory(dir.resolve("b")), "the loop made a and b, not '{{ item }}'");
    }

    @Test
    void whatCannotBeTranslatedIsNamedWithItsLine() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  tasks:
                    - debug: {msg: "{{ lookup('env', 'HOME') }}"}
                """);
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("migrate", playbook.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(playbook + ":3: "), err.toString());
    }

    @Test
    void listFormConditionsAreTranslatedItemByItem() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - debug: {msg: hi}
                      when:
                        - mode is defined   # a comment stays
                        - "'gpu' in roles"
                    - debug: {msg: next}
                """);
        assertEquals(0, provision("migrate", "--write", playbook.toString()), err.toString());
        String written = Files.readString(playbook);
        assertTrue(written.contains("        - mode??   # a comment stays\n"), written);
        assertTrue(written.contains("        - roles?is_sequence?then(roles?seq_contains(\"gpu\")"), written);
        assertTrue(written.contains("    - debug: {msg: next}"), written);
        assertEquals(0, provision("-i", "localhost,", "--syntax-check", playbook.toString()), err.toString());
    }

    @Test
    void aTemplateATaskNamesGetsItsFtlEvenWithoutJinjaAndAMissingOneIsNamed() throws Exception {
        Path role = Files.createDirectories(tmp.resolve("roles/web/tasks"));
        Files.createDirectories(tmp.resolve("roles/web/templates"));
        Files.writeString(tmp.resolve("roles/web/templates/plain.conf.j2"), "no jinja here\n");
        Path tasks = Files.writeString(role.resolve("main.yml"), """
                - template: {src: plain.conf.j2, dest: /tmp/plain.conf}
                - template:
                    src: gone.conf.j2
                    dest: /tmp/gone.conf
                """);
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("migrate", "--write", tasks.toString()));
        assertTrue(Files.readString(tmp.resolve("roles/web/templates/plain.conf.ftl")).equals("no jinja here\n"));
        String written = Files.readString(tasks);
        assertTrue(written.contains("src: plain.conf.ftl") && written.contains("src: gone.conf.j2"), written);
        assertTrue(err.toString().contains(tasks + ":3: src gone.conf.j2 names a template migrate did not find"), err.toString());
        assertTrue(err.toString().contains("(1 left)"), err.toString());
    }

    @Test
    void defaultOmitBecomesOmitNotAnEmptyString() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  tasks:
                    - user: {name: bob, uid: "{{ bob_uid | default(omit) }}"}
                """);
        assertEquals(0, provision("migrate", "--write", playbook.toString()), err.toString());
        assertTrue(Files.readString(playbook).contains("uid: \"${bob_uid!omit}\""), Files.readString(playbook));
    }

    @Test
    void aMappingsGetWithAFallbackBecomesADefault() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  tasks:
                    - debug: {msg: "{{ arch_map.get(ansible_architecture, ansible_architecture) }}"}
                    - debug: {msg: "{{ arch_map.get(ansible_architecture) }}"}
                """);
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("migrate", "--write", playbook.toString()), err.toString());
        String written = Files.readString(playbook);
        assertTrue(written.contains("msg: \"${(arch_map[ansible_architecture])!ansible_architecture}\""), written);
        assertTrue(err.toString().contains(":4:") && err.toString().contains("(1 left)"),
                "get without a fallback (None in Jinja2) has no twin: named\n" + err);
    }

    @Test
    void aConditionWrittenAsABlockScalarIsTranslatedAsOneOrNamed() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - debug: {msg: one}
                      when:
                        - >
                          not (
                            (os == "Ubuntu" and version is version('24.04', '>='))
                          )

                    - debug: {msg: two}
                      when: |
                        lookup('env', 'X') or
                        other
                """);
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("migrate", "--write", playbook.toString()));
        String written = Files.readString(playbook);
        assertTrue(written.contains("        - '!(os == \"Ubuntu\" && version_compare(version, \"24.04\") >= 0)'\n\n    - debug: {msg: two}"),
                written);
        assertTrue(err.toString().contains(playbook + ":12: condition 'lookup('env', 'X') or other'"), err.toString());
        assertTrue(written.contains("      when: |\n        lookup('env', 'X') or\n"), "left as written: " + written);
    }

    @Test
    void ansibleCfgKeepsHostKeyCheckingOffOnlyAsACommentThatSaysWhy() throws Exception {
        Path cfg = Files.writeString(tmp.resolve("ansible.cfg"), "[defaults]\nroles_path = roles\nhost_key_checking = False\n");
        assertEquals(0, provision("migrate", "--write", cfg.toString()), err.toString());
        String written = Files.readString(cfg);
        assertTrue(written.contains("roles_path = roles\n# host_key_checking = False   # provision migrate: host keys are always verified"), written);
        assertEquals(dev.provision.engine.config.AnsibleConfig.read(cfg).rolesPath(), List.of(tmp.resolve("roles")));
    }

    @Test
    void tagsOnImportPlaybookReachEveryImportedTask() throws Exception {
        Files.writeString(tmp.resolve("inner.yml"), "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: {msg: inner}\n");
        Path outer = Files.writeString(tmp.resolve("outer.yml"), """
                - import_playbook: inner.yml
                  tags: [net]
                - hosts: all
                  gather_facts: false
                  strategy: free
                  tasks:
                    - debug: {msg: outer}
                """);
        assertEquals(0, provision("-i", "localhost,", "--tags", "net", outer.toString()), err.toString());
        assertTrue(out.toString().contains("inner") && !out.toString().contains("outer"), out.toString());
    }
}
