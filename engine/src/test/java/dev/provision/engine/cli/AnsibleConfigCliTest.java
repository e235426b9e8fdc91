package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where Ansible finds things: an Ansible project's ansible.cfg beside its playbooks, and --roles-path. */
class AnsibleConfigCliTest {
    @TempDir
    Path tmp;
    private Path playbook;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void projectWithRolesOutsideRoles() throws Exception {
        Path role = Files.createDirectories(tmp.resolve("lib/roles/web/tasks"));
        Files.writeString(role.resolve("main.yml"), "- debug: {msg: from the roles path}\n");
        playbook = Files.writeString(tmp.resolve("site.yml"), """
                - hosts: all
                  gather_facts: false
                  roles: [web]
                """);
    }

    private int provision(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void withoutARolesPathTheRoleIsNotFound() {
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("--syntax-check", playbook.toString()));
        assertTrue(err.toString().contains("role 'web' not found"), err.toString());
    }

    @Test
    void rolesPathInAnsibleCfgBesideThePlaybookFindsTheRole() throws Exception {
        Files.writeString(tmp.resolve("ansible.cfg"), """
                [defaults]
                roles_path = lib/roles:/nonexistent   ; relative to this file
                retry_files_enabled = False
                [ssh_connection]
                pipelining = True
                """);
        assertEquals(0, provision("--syntax-check", playbook.toString()), err.toString());
        assertTrue(err.toString().contains("[WARNING]: " + tmp.resolve("ansible.cfg") + ": provision does not act on retry_files_enabled"),
                err.toString());
        assertEquals(0, provision(playbook.toString()), err + "\n" + out);
        assertTrue(out.toString().contains("from the roles path"), out.toString());
    }

    @Test
    void theRolesPathOptionFindsTheRole() {
        assertEquals(0, provision("--syntax-check", "--roles-path", tmp.resolve("nowhere") + ":" + tmp.resolve("lib/roles"), playbook.toString()),
                err.toString());
    }

    @Test
    void hostKeyCheckingOffIsRefusedWithItsLineAndTheReason() throws Exception {
        Files.writeString(tmp.resolve("ansible.cfg"), "[defaults]\nroles_path = lib/roles\nhost_key_checking = False\n");
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("--syntax-check", playbook.toString()));
        assertTrue(err.toString().startsWith("ERROR: " + tmp.resolve("ansible.cfg") + ":3:1: host_key_checking = False is refused:"
                + " provision always verifies host keys"), err.toString());
    }

    @Test
    void theInventoryOfAnsibleCfgIsTheDefaultOfMinusI() throws Exception {
        Files.writeString(tmp.resolve("hosts.ini"), "[gpu]\nnode01 ansible_host=192.0.2.1\n");
        Files.writeString(tmp.resolve("ansible.cfg"), "[defaults]\ninventory = hosts.ini\nroles_path = lib/roles\n");
        assertEquals(0, provision("--list-hosts", playbook.toString()), err.toString());
        assertTrue(out.toString().contains("node01"), out.toString());
    }
}
