package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/**
 * INI inventories through {@link Inventory#load}. What Ansible makes of the same files is checked by
 * {@link AnsibleInventoryDifferentialTest}; the mistakes by {@code MalformedPlaybookTest}.
 */
class IniInventoryTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private Inventory load(String name, String text) throws Exception {
        return Inventory.load(List.of(write(name, text).toString()), dir.resolve("playbooks"));
    }

    private static List<String> names(List<Host> hosts) {
        return hosts.stream().map(Host::name).toList();
    }

    private static final String CLUSTER = """
            # the head node is in no group
            head ansible_host=10.0.0.1
            [gpu]
            node[01:03] ansible_port=2222 foo="a b"
            node04:2200 gpus=4
            [gpu:vars]
            cuda=12.4
            driver = 550
            [login]
            login1
            [cluster:children]
            gpu
            login
            [all:vars]
            ntp=pool.ntp.org
            """;

    @Test
    void readsGroupsVarsChildrenAndUngroupedHosts() throws Exception {
        Inventory inventory = load("hosts", CLUSTER);
        assertEquals(List.of("head", "node01", "node02", "node03", "node04", "login1"), names(inventory.hosts()));
        assertEquals(List.of("head"), inventory.groups().get("ungrouped"));
        assertEquals(List.of("node01", "node02", "node03", "node04", "login1"), inventory.groups().get("cluster"));
        assertEquals(6, inventory.groups().get("all").size());
        Host node02 = inventory.host("node02").orElseThrow();
        assertEquals(List.of("all", "cluster", "gpu"), node02.groups());
        assertEquals(2222, node02.vars().get("ansible_port"));
        assertEquals("a b", node02.vars().get("foo"));
        assertEquals(12.4, node02.vars().get("cuda"));
        assertEquals(550, node02.vars().get("driver"));
        assertEquals("pool.ntp.org", node02.vars().get("ntp"));
        assertEquals("10.0.0.1", inventory.host("head").orElseThrow().vars().get("ansible_host"));
        Host node04 = inventory.host("node04").orElseThrow();
        assertEquals(Map.of("ansible_port", 2200, "gpus", 4), Map.of("ansible_port", node04.vars().get("ansible_port"),
                "gpus", node04.vars().get("gpus")));
        assertEquals(List.of("node01", "node02", "node03", "node04"), names(inventory.select("gpu:!login")));
    }

    @Test
    void typesValuesAsPythonLiteralsAndKeepsTheRestAsText() throws Exception {
        Map<String, Object> vars = load("hosts", """
                [t]
                h n=5 f=1.5 b=True s='5' q="'5'" mode=0644 t=true l="[1, 'a']" text="a b" c=1#comment
                [t:vars]
                port=8080 # a Python comment
                name = my tier
                flag=False
                """).host("h").orElseThrow().vars();
        assertEquals(5, vars.get("n"));
        assertEquals(1.5, vars.get("f"));
        assertEquals(true, vars.get("b"));
        assertEquals(5, vars.get("s"), "the shell takes the quotes away, as in Ansible");
        assertEquals("5", vars.get("q"));
        assertEquals("0644", vars.get("mode"));
        assertEquals("true", vars.get("t"));
        assertEquals(List.of(1, "a"), vars.get("l"));
        assertEquals("a b", vars.get("text"));
        assertEquals(1, vars.get("c"));
        assertEquals(8080, vars.get("port"));
        assertEquals("my tier", vars.get("name"));
        assertEquals(false, vars.get("flag"));
    }

    @Test
    void takesHostsOutOfUngroupedOnceAGroupListsThem() throws Exception {
        Inventory inventory = load("hosts", "early\nlonely\n[gpu]\nearly\n[all]\ndirect\n");
        assertEquals(List.of("lonely", "direct"), inventory.groups().get("ungrouped"));
        assertEquals(List.of("early"), inventory.groups().get("gpu"));
    }

    @Test
    void letsAGroupBeNamedBeforeItsSection() throws Exception {
        Inventory inventory = load("hosts", "[late:vars]\nv=1\n[top:children]\nmiddle\n[middle:children]\nbottom\n"
                + "[bottom]\nb1\n[late]\nl1\n");
        assertEquals(List.of("all", "top", "middle", "bottom"), inventory.host("b1").orElseThrow().groups());
        assertEquals(1, inventory.host("l1").orElseThrow().vars().get("v"));
    }

    @Test
    void tellsIniFromYamlByContentNotByName() throws Exception {
        assertEquals(List.of("node01"), names(load("inventory.yml", "[gpu]\nnode01\n").hosts()));
        assertEquals(List.of("node02"), names(load("hosts", "all:\n  hosts:\n    node02:\n").hosts()));
        assertEquals(List.of("node03"), names(load("hosts.json", "{\"all\": {\"hosts\": {\"node03\": {}}}}").hosts()));
    }

    @Test
    void refusesAnInventoryScript() throws Exception {
        Path script = write("inventory.py", "#!/usr/bin/env python3\nprint('{}')\n");
        InvalidInputException error = assertThrows(InvalidInputException.class,
                () -> Inventory.load(List.of(script.toString()), dir));
        assertTrue(error.getMessage().startsWith(script + ":1:1: this file starts with '#!': it is an inventory script"),
                error.getMessage());
    }

    @Test
    void acceptsAnAliasWithAnAddress() throws Exception {
        Inventory inventory = load("hosts", "[gpu]\ngpu@rack1 ansible_host=10.0.0.5\n[local]\nctl+1 ansible_connection=local\n");
        assertEquals(List.of("gpu@rack1", "ctl+1"), names(inventory.hosts()));
    }

    @Test
    void refusesAnAliasWithoutAnAddressAtItsLine() throws Exception {
        InvalidInputException error = assertThrows(InvalidInputException.class, () -> load("hosts", "[gpu]\n  gpu@rack1\n"));
        assertTrue(error.getMessage().startsWith(dir.resolve("hosts") + ":2:3: host 'gpu@rack1' is neither a DNS name"
                + " nor an IP address"), error.getMessage());
    }
}
