package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InventoryTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private Inventory load(String inventoryText) throws Exception {
        Path file = write("inventory/hosts.yml", inventoryText);
        return Inventory.load(List.of(file.toString()), dir.resolve("playbooks"));
    }

    private static List<String> names(List<Host> hosts) {
        return hosts.stream().map(Host::name).toList();
    }

    private static final String CLUSTER = """
            all:
              vars: {level: all, ntp: pool}
              hosts:
                head: {ansible_host: 10.0.0.1}
              children:
                gpu:
                  vars: {level: gpu}
                  children:
                    rack1:
                      vars: {level: rack1}
                      hosts:
                        node[01:02]:
                    rack2:
                      hosts:
                        node03: {level: host}
                storage:
                  hosts:
                    nas1:
                    node01:
            """;

    @Test
    void readsGroupsChildrenAndHostsInOrder() throws Exception {
        Inventory inventory = load(CLUSTER);
        assertEquals(List.of("head", "node01", "node02", "node03", "nas1"), names(inventory.hosts()));
        assertEquals(List.of("node01", "node02", "node03"), inventory.groups().get("gpu"));
        assertEquals(List.of("node01", "nas1"), inventory.groups().get("storage"));
        assertEquals(List.of("head"), inventory.groups().get("ungrouped"));
        assertEquals(5, inventory.groups().get("all").size());
        Host node01 = inventory.host("node01").orElseThrow();
        assertEquals(List.of("all", "gpu", "storage", "rack1"), node01.groups());
        assertEquals(List.of("gpu", "rack1", "storage"), node01.vars().get("group_names"));
        assertEquals("node01", node01.vars().get("inventory_hostname"));
        assertEquals("10.0.0.1", inventory.host("head").orElseThrow().vars().get("ansible_host"));
    }

    @Test
    void mergesVarsFromAllThroughParentAndChildGroupsToTheHost() throws Exception {
        Inventory inventory = load(CLUSTER);
        assertEquals("rack1", inventory.host("node02").orElseThrow().vars().get("level"));
        assertEquals("host", inventory.host("node03").orElseThrow().vars().get("level"));
        assertEquals("all", inventory.host("nas1").orElseThrow().vars().get("level"));
        assertEquals("pool", inventory.host("node03").orElseThrow().vars().get("ntp"));
    }

    @Test
    void letsGroupVarsBesideThePlaybookWinOverThoseBesideTheInventory() throws Exception {
        write("inventory/group_vars/all.yml", "ntp: inventory-dir\nfrom_inventory_dir: 1\n");
        write("inventory/group_vars/gpu/a.yml", "driver: 550\n");
        write("inventory/group_vars/gpu/b.yaml", "cuda: 12\n");
        write("inventory/host_vars/node03.yml", "level: host-file\n");
        write("playbooks/group_vars/all", "ntp: playbook-dir\n");
        write("playbooks/host_vars/node01.example.com.yml", "fqdn: true\n");
        Inventory inventory = load(CLUSTER + "    more:\n      hosts:\n        node01.example.com:\n");
        Map<String, Object> node03 = inventory.host("node03").orElseThrow().vars();
        assertEquals("playbook-dir", node03.get("ntp"));
        assertEquals(1, node03.get("from_inventory_dir"));
        assertEquals(550, node03.get("driver"));
        assertEquals(12, node03.get("cuda"));
        assertEquals("host-file", node03.get("level"));
        Map<String, Object> fqdn = inventory.host("node01.example.com").orElseThrow().vars();
        assertEquals(true, fqdn.get("fqdn"));
        assertEquals("node01", fqdn.get("inventory_hostname_short"));
    }

    @Test
    void letsChildGroupVarsFilesWinOverParentInventoryVars() throws Exception {
        write("inventory/group_vars/rack2.yml", "level: rack2-file\n");
        Inventory inventory = load(CLUSTER.replace("node03: {level: host}", "node03:"));
        assertEquals("rack2-file", inventory.host("node03").orElseThrow().vars().get("level"));
    }

    @Test
    void expandsHostRanges() throws Exception {
        Inventory inventory = load("""
                all:
                  hosts:
                    node[08:10]:
                    gpu[1:3:2]:
                    rack[a:b]-n[1:2]:
                """);
        assertEquals(List.of("node08", "node09", "node10", "gpu1", "gpu3", "racka-n1", "racka-n2", "rackb-n1", "rackb-n2"),
                names(inventory.hosts()));
    }

    @Test
    void makesLocalhostLocal() throws Exception {
        Inventory inventory = load("""
                all:
                  hosts:
                    localhost:
                    other: {ansible_connection: ssh}
                """);
        assertEquals("local", inventory.host("localhost").orElseThrow().vars().get("ansible_connection"));
        assertEquals("ssh", inventory.host("other").orElseThrow().vars().get("ansible_connection"));
    }

    @Test
    void hasOnlyLocalhostWithoutSources() throws Exception {
        Inventory inventory = Inventory.load(List.of(), dir);
        assertEquals(List.of("localhost"), names(inventory.hosts()));
        assertEquals("local", inventory.hosts().getFirst().vars().get("ansible_connection"));
        assertEquals(List.of("localhost"), names(inventory.select("all")));
    }

    @Test
    void offersAnImplicitLocalhostOutsideAll() throws Exception {
        write("inventory/group_vars/all.yml", "ntp: pool\n");
        Inventory inventory = load("all:\n  hosts:\n    node1:\n");
        Host localhost = inventory.host("localhost").orElseThrow();
        assertEquals("local", localhost.vars().get("ansible_connection"));
        assertEquals("pool", localhost.vars().get("ntp"));
        assertEquals(List.of("localhost"), names(inventory.select("localhost")));
        assertEquals(List.of("node1"), names(inventory.select("all")));
        assertFalse(inventory.hosts().contains(localhost));
    }

    @Test
    void readsCommaListsAsUngroupedHosts() throws Exception {
        Inventory inventory = Inventory.load(List.of("node1,node2:2222", "single,"), dir);
        assertEquals(List.of("node1", "node2", "single"), names(inventory.hosts()));
        assertEquals(List.of("node1", "node2", "single"), inventory.groups().get("ungrouped"));
        assertEquals(2222, inventory.host("node2").orElseThrow().vars().get("ansible_port"));
    }

    @Test
    void readsEveryInventoryFileOfADirectorySourceAndSkipsWhatAnsibleSkips() throws Exception {
        write("inv/a.yml", "gpu:\n  hosts:\n    node1:\n");
        write("inv/b", "[cpu]\nnode2\n");
        write("inv/racks/c", "[rack1:children]\ngpu\n");
        write("inv/notes.txt", "not an inventory");
        write("inv/old.ini", "[old]\nnode9\n");
        write("inv/.hidden", "[hidden]\nnode8\n");
        write("inv/group_vars/gpu.yml", "driver: 550\n");
        Inventory inventory = Inventory.load(List.of(dir.resolve("inv").toString()), dir);
        assertEquals(List.of("node1", "node2"), names(inventory.hosts()));
        assertEquals(550, inventory.host("node1").orElseThrow().vars().get("driver"));
        assertEquals(List.of("node1"), inventory.groups().get("rack1"));
        assertEquals(List.of(dir.resolve("inv/notes.txt") + " (Ansible ignores '.txt' files in an inventory directory)",
                dir.resolve("inv/old.ini") + " (Ansible ignores '.ini' files in an inventory directory; give it with its own"
                        + " -i to read it)"), inventory.skippedFiles());
    }

    /** A layout seen in the field: the cluster key pair kept under the inventory directory (cluster_key_dir). */
    @Test
    void filesOfADirectorySourceThatAreNotInventoriesAreSkippedWithoutHostsOrContent() throws Exception {
        write("inv/hosts.yml", "gpu:\n  hosts:\n    node1:\n");
        write("inv/cluster-ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
                + "-----END OPENSSH PRIVATE KEY-----\n");
        write("inv/cluster-ssh/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISECRETISH provision-cluster\n");
        write("inv/README", "# How this inventory is laid out\nThe GPU nodes: see hosts.yml.\n");
        write("inv/hosts.j2", "[gpu]\n{% for n in nodes %}\n{{ n }}\n{% endfor %}\n");
        write("inv/tls/ca.crt", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n");
        write("inv/tls/node1.key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n");
        Inventory inventory = Inventory.load(List.of(dir.resolve("inv").toString()), dir);
        assertEquals(List.of("node1"), names(inventory.hosts()), "no host made of a key, a template or a README");
        assertEquals(List.of(
                dir.resolve("inv/README") + " (not YAML or INI: it does not parse at line 2)",
                dir.resolve("inv/cluster-ssh") + "/ (no inventory in it: id_ed25519: a private key, id_ed25519.pub: a public key)",
                dir.resolve("inv/hosts.j2") + " (not YAML or INI: it does not parse at line 2)",
                dir.resolve("inv/tls") + "/ (no inventory in it: ca.crt: a PEM file (a certificate or a key),"
                        + " node1.key: a private key)"), inventory.skippedFiles());
    }

    @Test
    void aSubdirectoryWithAnInventoryFileNamesItsOtherFilesOneByOne() throws Exception {
        write("inv/hosts.yml", "gpu:\n  hosts:\n    node1:\n");
        write("inv/rack2/hosts", "[rack2]\nnode2\n");
        write("inv/rack2/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI rack2\n");
        Inventory inventory = Inventory.load(List.of(dir.resolve("inv").toString()), dir);
        assertEquals(List.of("node1", "node2"), names(inventory.hosts()));
        assertEquals(List.of(dir.resolve("inv/rack2/id_ed25519.pub") + " (a public key)"), inventory.skippedFiles());
    }

    /** Its name says it is an inventory: its mistake is the user's to fix, not a file to skip. */
    @Test
    void aMalformedInventoryFileOfADirectoryStaysAnErrorAtItsPosition() throws Exception {
        write("inv/cluster-ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
                + "-----END OPENSSH PRIVATE KEY-----\n");
        write("inv/gpu.yml", "gpu:\n  hosts:\n    node1:\n   node2: {}\n");
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of(dir.resolve("inv").toString()), dir));
        assertEquals(dir.resolve("inv/gpu.yml").toString(), error.position().file());
        assertEquals(4, error.position().line(), error.getMessage());
        assertTrue(error.getMessage().contains("invalid YAML"), error.getMessage());
        assertFalse(error.getMessage().contains("b3Blbn"), error.getMessage());
    }

    @Test
    void refusesADirectorySourceThatNamesNoHost() throws Exception {
        write("inv/hosts.ini", "[gpu]\nnode1\n");
        write("inv/group_vars/all.yml", "ntp: pool\n");
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of(dir.resolve("inv").toString()), dir));
        assertEquals(dir.resolve("inv") + ": inventory directory names no host (it holds no inventory file; skipped "
                + dir.resolve("inv/hosts.ini") + " (Ansible ignores '.ini' files in an inventory directory; give it with"
                + " its own -i to read it))", error.getMessage());
        write("inv/empty.yml", "# nothing yet\n");
        assertTrue(assertThrows(InvalidInputException.class, () -> Inventory.load(List.of(dir.resolve("inv").toString()), dir))
                .getMessage().contains("names no host (read 1 file(s); skipped "));
    }

    @Test
    void refusesUnsafeNamesInACommaList() {
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of("-oProxyCommand=x,node2"), dir));
        assertTrue(error.getMessage().startsWith("<command line>: host name '-oProxyCommand=x' starts with '-'"),
                error.getMessage());
        assertTrue(assertThrows(InvalidInputException.class, () -> Inventory.load(List.of("h;touch x,"), dir))
                .getMessage().startsWith("<command line>: host name 'h;touch x' holds ';'"));
    }

    @Test
    void readsAPortAfterAYamlHostName() throws Exception {
        Inventory inventory = load("all:\n  hosts:\n    node1:2222:\n    node2:2222:\n      ansible_port: 22\n");
        assertEquals(List.of("node1", "node2"), names(inventory.hosts()));
        assertEquals(2222, inventory.host("node1").orElseThrow().vars().get("ansible_port"));
        assertEquals(22, inventory.host("node2").orElseThrow().vars().get("ansible_port"));
    }

    @Test
    void refusesAnUnsafeAnsibleUserInAGroupVarsFile() throws Exception {
        Path bad = write("inventory/group_vars/gpu.yml", "ansible_user: \"root -oProxyCommand=x\"\n");
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load(CLUSTER));
        assertEquals(bad + ":1:15: ansible_user 'root -oProxyCommand=x' holds whitespace; it must be a login name"
                + " (letters, digits, '.', '_', '-', '@', '+')", error.getMessage());
    }

    @Test
    void ordersSiblingGroupsByPriorityThenName() throws Exception {
        Inventory inventory = load("""
                all:
                  children:
                    zeta:
                      hosts: {h1: }
                      vars: {side: zeta}
                    alpha:
                      hosts: {h1: }
                      vars: {side: alpha, ansible_group_priority: 5}
                """);
        Host h1 = inventory.host("h1").orElseThrow();
        assertEquals("alpha", h1.vars().get("side"));
        assertFalse(h1.vars().containsKey("ansible_group_priority"));
        assertEquals(List.of("all", "zeta", "alpha"), h1.groups());
    }

    @Test
    void selectsHostsWithAnsiblePatterns() throws Exception {
        Inventory inventory = load(CLUSTER);
        assertEquals(List.of("head", "node01", "node02", "node03", "nas1"), names(inventory.select("*")));
        assertEquals(List.of("node01", "node02", "node03", "nas1"), names(inventory.select("gpu:storage")));
        assertEquals(List.of("node01", "node02", "node03", "nas1"), names(inventory.select("storage,gpu")));
        assertEquals(List.of("node01"), names(inventory.select("gpu:&storage")));
        assertEquals(List.of("node02", "node03"), names(inventory.select("gpu:!storage")));
        assertEquals(List.of("head", "nas1"), names(inventory.select("!gpu")));
        assertEquals(List.of("node01", "node02", "node03"), names(inventory.select("node0*")));
        assertEquals(List.of("node01", "node02", "node03"), names(inventory.select("rack?")));
        assertEquals(List.of("node02", "node03"), names(inventory.select("~node0[23]")));
        assertEquals(List.of("node01", "node02", "node03", "nas1"), names(inventory.select("~node0[2:3]:storage")),
                "':' inside brackets does not split");
        assertEquals(List.of("head"), names(inventory.select("head:nobody")));
        assertEquals(List.of(), names(inventory.select("nobody")));
    }

    @Test
    void rejectsAnEmptyPatternAndABadRegex() throws Exception {
        Inventory inventory = load(CLUSTER);
        assertThrows(InvalidInputException.class, () -> inventory.select(" : "));
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> inventory.select("~node[0"));
        assertTrue(error.problem().startsWith("bad regular expression in host pattern '~node[0'"), error.problem());
    }

    /** Ansible picks a group's hosts by position with a subscript; provision refuses one rather than match nothing. */
    @Test
    void refusesASubscriptOrABracketOutsideARegex() throws Exception {
        Inventory inventory = load(CLUSTER);
        for (String pattern : List.of("node[10:01]", "gpu[0]", "all:!gpu[1:]", "node[x]", "node[")) {
            InvalidInputException error = assertThrows(InvalidInputException.class, () -> inventory.select(pattern));
            assertTrue(error.problem().startsWith("host pattern '"), error.problem());
            assertEquals(error.problem(), assertThrows(InvalidInputException.class, () -> Inventory.checkPattern(pattern))
                    .problem(), "the same without an inventory");
        }
        assertTrue(assertThrows(InvalidInputException.class, () -> inventory.select("node[10:01]")).problem()
                .contains("a subscript ('[10:01]': a group's hosts by their position) is not supported"));
    }

    @Test
    void reportsAMissingSource() {
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of(dir.resolve("nope.yml").toString()), dir));
        assertTrue(error.getMessage().startsWith("<command line>: inventory '" + dir.resolve("nope.yml") + "' not found"),
                error.getMessage());
    }

    @Test
    void reportsAMalformedGroupVarsFileAtItsPosition() throws Exception {
        Path bad = write("inventory/group_vars/gpu.yml", "- not\n- a mapping\n");
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load(CLUSTER));
        assertEquals(bad + ":1:1: a vars file must be a mapping (key: value lines), not a list", error.getMessage());
    }
}
