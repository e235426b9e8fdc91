package dev.provision.engine.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.report.TaskResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** become/become_user from task, block, play and inventory reach the host as sudo; the password never shows. */
class BecomeTest {
    private static final String PASSWORD = "pw-Zq81-never-shown";
    private static final String INVENTORY = """
            all:
              hosts:
                node1:
                  ansible_user: deploy
                node2:
                  ansible_user: deploy
                  ansible_become: true
                  ansible_become_user: app
                rootnode:
                  ansible_user: root
            """;

    @TempDir
    Path tmp;

    private static String sudoWithPassword(String user) {
        return "sudo -k -S -p '' -u " + user + " -- /bin/sh -c ";
    }

    @Test
    void taskBlockPlayAndInventoryDecideWhoRunsTheCommand() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node1
                  gather_facts: false
                  become: true
                  tasks:
                    - name: as root
                      command: marker-root
                    - name: as the login user
                      command: marker-login
                      become: false
                    - name: in a block
                      become_user: postgres
                      block:
                        - name: as postgres
                          command: marker-postgres
                - hosts: node2
                  gather_facts: false
                  tasks:
                    - name: inventory decides
                      command: marker-inventory
                """, INVENTORY, ExecutorHarness.options(false), PASSWORD.toCharArray());
        List<String> node1 = harness.factory.commandLines("node1");
        assertEquals(3, node1.size(), node1.toString());
        assertTrue(node1.get(0).startsWith(sudoWithPassword("root")) && node1.get(0).contains("marker-root"), node1.get(0));
        assertEquals("marker-login", node1.get(1));
        assertTrue(node1.get(2).startsWith(sudoWithPassword("postgres")) && node1.get(2).contains("marker-postgres"), node1.get(2));
        List<String> node2 = harness.factory.commandLines("node2");
        assertTrue(node2.get(0).startsWith(sudoWithPassword("app")) && node2.get(0).contains("marker-inventory"), node2.toString());
    }

    @Test
    void passwordGoesOnStdinOnlyAndNeverIntoResultsOrOutput() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node1
                  gather_facts: false
                  become: true
                  tasks:
                    - name: root command
                      shell: echo hello
                      register: r
                    - name: show it
                      debug:
                        msg: "${r.stdout}"
                """, INVENTORY, ExecutorHarness.options(false), PASSWORD.toCharArray());
        List<RecordingConnectionFactory.Call> calls = harness.factory.calls;
        assertFalse(calls.isEmpty());
        RecordingConnectionFactory.Call call = calls.get(0);
        assertTrue(call.stdinText().startsWith(PASSWORD + "\n"), "sudo reads the password from stdin");
        for (RecordingConnectionFactory.Call c : calls) {
            assertFalse(c.commandLine().contains(PASSWORD), c.commandLine());
        }
        for (TaskResult r : harness.results) {
            assertFalse(r.toString().contains(PASSWORD), r.toString());
        }
        assertFalse(harness.humanOutput().contains(PASSWORD), harness.humanOutput());
        assertTrue(harness.humanOutput().contains("ok: [node1] => ok"), harness.humanOutput());
    }

    @Test
    void withoutPasswordSudoMustNotPrompt() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node1
                  gather_facts: false
                  tasks:
                    - command: marker
                      become: true
                """, INVENTORY);
        String line = harness.factory.commandLines("node1").get(0);
        assertTrue(line.startsWith("sudo -n -u root -- /bin/sh -c "), line);
        assertTrue(harness.factory.calls.get(0).stdinText().isEmpty(), "no password, no stdin");
    }

    @Test
    void noSudoWhenTheLoginUserIsAlreadyTheBecomeUser() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: rootnode
                  gather_facts: false
                  become: true
                  tasks:
                    - command: marker
                """, INVENTORY, ExecutorHarness.options(false), PASSWORD.toCharArray());
        assertEquals(List.of("marker"), harness.factory.commandLines("rootnode"));
    }

    @Test
    void aTaskCanTurnOffTheBecomeItsHostAsks() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node2
                  gather_facts: false
                  tasks:
                    - command: marker
                      become: false
                """, INVENTORY);
        assertEquals(List.of("marker"), harness.factory.commandLines("node2"), "no sudo around it");
    }

    @Test
    void delegatedTaskBecomesOnTheDelegate() throws Exception {
        ExecutorHarness harness = new ExecutorHarness(tmp);
        harness.run("""
                - hosts: node1
                  gather_facts: false
                  tasks:
                    - command: marker
                      delegate_to: node2
                """, INVENTORY);
        assertEquals(List.of(), harness.factory.commandLines("node1"), "the task ran on the delegate, not the host");
        String line = harness.factory.commandLines("node2").get(0);
        assertTrue(line.startsWith("sudo -n -u app -- "), "node2's inventory become applies to it: " + line);
    }
}
