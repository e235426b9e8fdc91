package dev.provision.engine.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.e2e.ClusterTest;
import dev.provision.engine.e2e.Launched;
import dev.provision.engine.e2e.Provision;
import dev.provision.engine.e2e.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster that Ansible set up, taken over by provision: the real {@code ansible-playbook} writes a
 * managed block into {@code /etc/hosts} and a line into {@code sshd_config} of a node over SSH; then
 * provision edits the same files with the same module parameters. Ansible's block and line are
 * updated in place (no second block, no second line), and Ansible, run again with provision's
 * values, finds nothing to change. {@code validate} with {@code sshd -t} refuses a broken
 * {@code sshd_config}: the task fails with sshd's message and the node's file is byte for byte what
 * it was, with no temp file left beside it.
 */
@ClusterTest(nodes = 2, needs = "ansible-playbook")
class AnsibleWrittenFilesIT {
    private static final int NODE = 1;
    private static final Pattern ANSIBLE_RECAP = Pattern.compile("(?m)^node01\\s+: ok=(\\d+)\\s+changed=(\\d+)\\s+unreachable=(\\d+)\\s+failed=(\\d+)");

    @TempDir
    static Path tmp;
    private static TestCluster cluster;

    /** The same two edits, as Ansible and as provision take them: a hosts block and an sshd setting. */
    private static String edits(String headAddress, String maxStartups) {
        return """
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - name: cluster hosts
                      blockinfile:
                        path: /etc/hosts
                        block: |
                          %s head
                          10.213.0.12 node02
                    - name: sshd accepts a login burst
                      lineinfile:
                        path: /etc/ssh/sshd_config
                        regexp: '^#?MaxStartups'
                        line: 'MaxStartups %s'
                """.formatted(headAddress, maxStartups);
    }

    @Test
    void provisionUpdatesAnsiblesBlockAndLineInPlaceAndAnsibleAgreesAfterwards() throws Exception {
        AnsibleRun first = ansible(edits("10.213.0.1", "10:30:100"));
        assertEquals(2, first.changed(), first.output());
        String hostsByAnsible = cluster.exec(NODE, "cat", "/etc/hosts");
        assertEquals(1, count(hostsByAnsible, "# BEGIN ANSIBLE MANAGED BLOCK"), hostsByAnsible);

        Path playbook = Files.writeString(tmp.resolve("takeover.yml"), edits("10.213.0.2", "50:30:200"));
        Provision.Result run = Provision.run("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString(), playbook.toString());
        assertEquals(0, run.exitCode(), run.output());
        assertEquals(2, run.recap("node01", "changed"), run.output());

        String hosts = cluster.exec(NODE, "cat", "/etc/hosts");
        assertEquals(1, count(hosts, "# BEGIN ANSIBLE MANAGED BLOCK"), hosts);
        assertEquals(1, count(hosts, "# END ANSIBLE MANAGED BLOCK"), hosts);
        assertTrue(hosts.contains("# BEGIN ANSIBLE MANAGED BLOCK\n10.213.0.2 head\n10.213.0.12 node02\n# END ANSIBLE MANAGED BLOCK"),
                hosts);
        assertEquals(0, count(hosts, "10.213.0.1 head"), "the stale block is gone:\n" + hosts);
        assertEquals(hostsByAnsible.replace("10.213.0.1 head", "10.213.0.2 head"), hosts,
                "everything outside the block is as Ansible left it");

        String sshd = cluster.exec(NODE, "cat", "/etc/ssh/sshd_config");
        assertEquals(List.of("MaxStartups 50:30:200"), sshd.lines().filter(l -> l.startsWith("MaxStartups")).toList(), sshd);

        Provision.Result again = Provision.run("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString(), playbook.toString());
        assertEquals(0, again.recap("node01", "changed"), again.output());
        AnsibleRun back = ansible(edits("10.213.0.2", "50:30:200"));
        assertEquals(0, back.changed(), "Ansible finds provision's edits are its own:\n" + back.output());
    }

    @Test
    void validateRefusesABrokenSshdConfigAndLeavesTheNodesFileAsItWas() throws Exception {
        String before = cluster.exec(NODE, "sha256sum", "/etc/ssh/sshd_config");
        Path playbook = Files.writeString(tmp.resolve("broken.yml"), """
                - hosts: node01
                  gather_facts: false
                  tasks:
                    - name: a typo that would lock everyone out at the next restart
                      lineinfile:
                        path: /etc/ssh/sshd_config
                        regexp: '^#?PermitRootLogin'
                        line: 'PermitRootLogin prohibit-pasword'
                        validate: /usr/sbin/sshd -t -f %s
                """);
        Provision.Result run = Provision.run("-i", cluster.inventory().toString(),
                "--known-hosts", tmp.resolve("known_hosts").toString(), playbook.toString());

        assertEquals(2, run.exitCode(), "a failed task is exit 2:\n" + run.output());
        assertEquals(1, run.recap("node01", "failed"), run.output());
        assertTrue(run.output().contains("unsupported option \"prohibit-pasword\""),
                "the validator's own message is shown:\n" + run.output());
        assertTrue(run.output().contains("/etc/ssh/sshd_config left as it was"), run.output());
        assertEquals(before, cluster.exec(NODE, "sha256sum", "/etc/ssh/sshd_config"), "the file is unchanged");
        assertEquals("", cluster.exec(NODE, "sh", "-c", "ls -A /etc/ssh | grep -v -x -E 'sshd_config|ssh_config|moduli|"
                + "ssh_host_.*|sshd_config.d|ssh_config.d' || true"), "no temp file is left in /etc/ssh");
        assertEquals("", cluster.exec(NODE, "/usr/sbin/sshd", "-t"), "sshd still accepts its config");
    }

    private record AnsibleRun(String output, int changed) {
    }

    /** {@code ansible-playbook} over SSH against node01, host key checked against the node's real key. */
    private static AnsibleRun ansible(String playbook) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("ansible"));
        Path book = Files.writeString(dir.resolve("play.yml"), playbook);
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"),
                cluster.address(NODE) + " " + cluster.hostKey(NODE, "ed25519") + "\n");
        Path inventory = Files.writeString(dir.resolve("inventory.ini"), "node01 ansible_host=" + cluster.address(NODE)
                + " ansible_user=root ansible_ssh_private_key_file=" + cluster.clientKey()
                + " ansible_python_interpreter=/usr/bin/python3\n");
        ProcessBuilder pb = new ProcessBuilder("ansible-playbook", "-i", inventory.toString(), book.toString())
                .directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("ANSIBLE_CONFIG", dir.resolve("no-ansible.cfg").toString());
        env.put("ANSIBLE_HOME", dir.resolve("home").toString());
        env.put("ANSIBLE_LOCAL_TEMP", dir.resolve("local-tmp").toString());
        env.put("ANSIBLE_NOCOLOR", "1");
        env.put("ANSIBLE_HOST_KEY_CHECKING", "True");
        env.put("ANSIBLE_SSH_ARGS", "-o ControlMaster=no -o UserKnownHostsFile=" + knownHosts + " -o StrictHostKeyChecking=yes");
        Launched.Output out = Launched.run(pb, Duration.ofMinutes(5));
        System.out.println("$ ansible-playbook " + book + "\n" + out.stdout());
        Matcher m = ANSIBLE_RECAP.matcher(out.stdout());
        if (out.exitCode() != 0 || !m.find()) {
            throw new AssertionError("ansible-playbook exited " + out.exitCode() + ":\n" + out.stdout());
        }
        assertEquals("0 unreachable, 0 failed", m.group(3) + " unreachable, " + m.group(4) + " failed", out.stdout());
        return new AnsibleRun(out.stdout(), Integer.parseInt(m.group(2)));
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
