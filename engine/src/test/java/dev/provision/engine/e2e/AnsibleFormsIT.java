package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ansible's loop lookups ({@code with_first_found}, {@code with_fileglob}, {@code with_dict}),
 * {@code local_action} and {@code setup} reading a local fact, through the real launcher against this
 * machine ({@code e2e/ansible-forms/}): what each does, then a second run that changes nothing.
 */
class AnsibleFormsIT {
    static final String PLAYBOOK = Provision.REPO.resolve("engine/src/test/resources/e2e/ansible-forms/site.yml").toString();

    @TempDir
    Path dir;

    @Test
    void lookupsLocalActionAndLocalFactsDoWhatAnsibleDoes() throws Exception {
        Provision.Result first = Provision.run(PLAYBOOK, "-e", "dir=" + dir);
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(Files.isRegularFile(dir.resolve("a.sh")) && Files.isRegularFile(dir.resolve("b.sh")), first.output());
        assertFalse(Files.exists(dir.resolve("c.txt")), "c.txt does not match *.sh");
        assertEquals("max_jobs=16\nscheduler=slurm\n", Files.readString(dir.resolve("settings.conf")));
        // this machine is Debian: debian.yml comes before default.yml; the local fact was read by setup
        assertEquals("8 GPUs; vars from debian.yml\n", Files.readString(dir.resolve("note.txt")));
        assertTrue(first.output().contains("skipping: [localhost]"), "a first_found with nothing found and skip set runs nothing:\n"
                + first.output());
        assertTrue(first.output().contains("gathered 1 fact (local)"), first.output());
        assertEquals("8 GPUs; vars from debian.yml\n", Files.readString(dir.resolve("fetched/localhost" + dir.resolve("note.txt"))),
                "fetch keeps the host's path under DEST/HOST");
        assertEquals("8 GPUs; vars from debian.yml\n", Files.readString(dir.resolve("fetched-note.txt")), "flat");

        Provision.Result second = Provision.run(PLAYBOOK, "-e", "dir=" + dir);
        assertEquals(0, second.exitCode(), second.output());
        assertEquals(0, second.recap("localhost", "changed"), second.output());
        Provision.Result check = Provision.run("--check", PLAYBOOK, "-e", "dir=" + dir);
        assertEquals(0, check.recap("localhost", "changed"), check.output());
    }

    @Test
    void firstFoundWithNothingFoundFailsTheTaskNamingWhereItLooked() throws Exception {
        Path playbook = dir.resolve("none.yml");
        Files.writeString(playbook, """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - include_vars: "${item}"
                      with_first_found: [gone.yml]
                """);
        Provision.Result r = Provision.run(playbook.toString());
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(r.output().contains("with_first_found found none of its files"), r.output());
        assertTrue(r.output().contains(dir.resolve("vars/gone.yml").toString()), r.output());
    }

    @Test
    void delegateFactsGiveTheVariablesToTheDelegateTheImplicitLocalhostIncluded() throws Exception {
        Path inventory = dir.resolve("hosts");
        Files.writeString(inventory, "alpha ansible_connection=local\nbeta ansible_connection=local\n");
        Path playbook = dir.resolve("delegate.yml");
        Files.writeString(playbook, """
                - hosts: alpha
                  gather_facts: false
                  tasks:
                    - set_fact:
                        token: from-alpha
                      delegate_to: beta
                      delegate_facts: true
                    - set_fact:
                        secret_word: swordfish
                      delegate_to: localhost
                      delegate_facts: true
                      run_once: true
                    - assert:
                        that: "!(token??)"
                - hosts: beta
                  gather_facts: false
                  tasks:
                    - assert:
                        that:
                          - token == "from-alpha"
                          - hostvars["localhost"].secret_word == "swordfish"
                """);
        Provision.Result r = Provision.run("-i", inventory.toString(), playbook.toString());
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(3, r.recap("alpha", "ok"), r.output());
        assertEquals(1, r.recap("beta", "ok"), r.output());
        assertEquals(java.util.Set.of("alpha", "beta"), r.recapHosts(), "localhost got variables, it did not play");
    }

    @Test
    void metaFlushesHandlersWhereItStandsAndEndsTheHostForThisPlayOnly() throws Exception {
        Path inventory = dir.resolve("hosts");
        Files.writeString(inventory, "alpha ansible_connection=local\nbeta ansible_connection=local\n");
        Path playbook = dir.resolve("meta.yml");
        Files.writeString(playbook, """
                - hosts: all
                  gather_facts: false
                  handlers:
                    - name: note
                      copy: {content: handled, dest: "${dir}/${inventory_hostname}-handled"}
                  tasks:
                    - copy: {content: x, dest: "${dir}/${inventory_hostname}-x"}
                      notify: note
                    - meta: flush_handlers
                    - stat: {path: "${dir}/${inventory_hostname}-handled"}
                      register: handled
                    - assert: {that: handled.stat.exists}
                    - meta: end_host
                      when: inventory_hostname == "beta"
                    - copy: {content: after, dest: "${dir}/${inventory_hostname}-after"}
                - hosts: beta
                  gather_facts: false
                  tasks:
                    - copy: {content: next, dest: "${dir}/beta-next-play"}
                """);
        Provision.Result r = Provision.run("-i", inventory.toString(), playbook.toString(), "-e", "dir=" + dir);
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(Files.exists(dir.resolve("alpha-after")), r.output());
        assertFalse(Files.exists(dir.resolve("beta-after")), "beta ended the play before this task:\n" + r.output());
        assertTrue(Files.exists(dir.resolve("beta-next-play")), "end_host lasts one play:\n" + r.output());
        assertEquals(0, r.recap("beta", "failed") + r.recap("beta", "unreachable"), r.output());
    }
}
