package dev.provision.engine.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ansible-playbook flags Ansible users type, with Ansible's meaning, or one clear line why not. */
class AnsibleFlagsTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int provision(String... args) {
        return ProvisionCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    private Path showVars() throws Exception {
        return Files.writeString(tmp.resolve("site.yml"), """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - debug: {msg: "user=${ansible_user!'-'} become=${(ansible_become!false)?c} as=${ansible_become_user!'-'}"}
                """);
    }

    @Test
    void userAndBecomeAreDefaultsThatTheInventoryOverrides() throws Exception {
        Path inventory = Files.writeString(tmp.resolve("hosts.ini"), """
                localhost ansible_connection=local
                other ansible_connection=local ansible_user=bob
                """);
        int code = provision("-i", inventory.toString(), "-u", "alice", "-b", "--become-user", "train", "--check", showVars().toString());
        assertEquals(0, code, output());
        assertTrue(output().contains("ok: [localhost] => user=alice become=true as=train"), output());
        assertTrue(output().contains("ok: [other] => user=bob become=true as=train"), output());
    }

    @Test
    void sshArgumentsProvisionDoesNotActOnAreNamedOnceNeverWithTheirValues() throws Exception {
        Path inventory = Files.writeString(tmp.resolve("hosts.ini"), """
                [nodes]
                a ansible_connection=local
                b ansible_connection=local
                c ansible_connection=local
                d ansible_connection=local
                [nodes:vars]
                ansible_ssh_common_args='-o StrictHostKeyChecking=no -o ProxyCommand="sshpass -p hunter2 ssh gw" -o ServerAliveInterval=60'
                """);
        Path twoPlays = Files.writeString(tmp.resolve("two.yml"), """
                - hosts: all
                  gather_facts: false
                  tasks:
                    - debug: {msg: one}
                - hosts: all
                  gather_facts: false
                  tasks:
                    - debug: {msg: two}
                """);
        assertEquals(0, provision("-i", inventory.toString(), "--check", twoPlays.toString()), output());
        String warning = "[WARNING]: ansible_ssh_common_args: provision does not act on -o StrictHostKeyChecking,"
                + " -o ProxyCommand (a, b, c and 1 more); it uses -o ProxyJump or -J, -o ServerAliveInterval and"
                + " -o ServerAliveCountMax only, and always verifies host keys";
        assertTrue(output().contains(warning), output());
        assertEquals(output().indexOf(warning), output().lastIndexOf(warning), "once per run:\n" + output());
        assertFalse(output().contains("hunter2"), output());
    }

    @Test
    void aUserThatWouldBeAnSshOptionIsRefused() throws Exception {
        assertEquals(ExitCode.INVALID_INPUT.code(), provision("-i", "localhost,", "-u", "-oProxyCommand=x", showVars().toString()));
        assertTrue(output().contains("ansible_user '-oProxyCommand=x' starts with '-'"), output());
    }

    @Test
    void aMistypedOptionGetsTheClosestOne() {
        assertEquals(ExitCode.USAGE.code(), provision("--chek", "site.yml"));
        assertTrue(output().contains("Unknown option: '--chek' (did you mean --check?)"), output());
    }

    @Test
    void askPassAndStepSayWhyNot() throws Exception {
        assertEquals(ExitCode.USAGE.code(), provision("-k", showVars().toString()));
        assertTrue(output().contains("provision logs in with keys only"), output());
        out.reset();
        err.reset();
        assertEquals(ExitCode.USAGE.code(), provision("--step", showVars().toString()));
        assertTrue(output().contains("--step is not supported"), output());
    }

    @Test
    void listTagsListsEachPlaysTags() throws Exception {
        Path playbook = Files.writeString(tmp.resolve("tags.yml"), """
                - hosts: localhost
                  gather_facts: false
                  tasks:
                    - {debug: {msg: a}, tags: [net, base]}
                    - {debug: {msg: b}, tags: storage}
                """);
        assertEquals(0, provision("-i", "localhost,", "--list-tags", playbook.toString()), output());
        assertTrue(output().contains("TASK TAGS: [base, net, storage]"), output());
    }
}
