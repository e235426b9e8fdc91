package dev.provision.engine.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provision.engine.cli.ProvisionCommand;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Loads each inventory under {@code src/test/resources/ansible-inventory/} with provision and with
 * the real {@code ansible-inventory --list} (Debian's ansible-core), and compares what both make of
 * it: the hosts, every group's hosts (children included) and every host's variables after group
 * vars, {@code group_vars/} and {@code host_vars/} are merged. A case is a directory holding one
 * inventory file (with its {@code group_vars/}, {@code host_vars/}); a case named {@code dir-*} is
 * given as a directory source; one more directory, with a key pair, a README and a backup beside its
 * inventories, is written by its test. Skipped where {@code ansible-inventory} is not installed.
 */
class AnsibleInventoryDifferentialTest {
    private static final Path CASES = cases("/ansible-inventory");
    /** Variables provision adds that {@code ansible-inventory --list} does not print. */
    private static final Set<String> MAGIC = Set.of("inventory_hostname", "inventory_hostname_short", "group_names");

    @TempDir
    static Path home;

    @BeforeEach
    void needsAnsible() {
        Assumptions.assumeTrue(onPath("ansible-inventory"), "ansible-inventory is not installed"
                + " (apt-get install ansible-core); skipping the comparison with Ansible");
    }

    static Stream<String> cases() throws IOException {
        try (Stream<Path> dirs = Files.list(CASES)) {
            return dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void loadsAsAnsibleDoes(String name) throws Exception {
        Path source = source(CASES.resolve(name));
        Map<String, Object> ansible = ansibleInventory(source, true);
        Inventory ours = Inventory.load(List.of(source.toString()), home.resolve("no-playbook"));

        assertEquals(ansibleGroups(ansible), ourGroups(ours), "groups and their hosts");
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> hostvars = (Map<String, Map<String, Object>>)
                ((Map<String, Object>) ansible.get("_meta")).get("hostvars");
        for (Host host : ours.hosts()) {
            Map<String, Object> expected = normalize(hostvars.getOrDefault(host.name(), Map.of()));
            Map<String, Object> actual = new LinkedHashMap<>(host.vars());
            MAGIC.forEach(actual::remove);
            assertEquals(expected, normalize(actual), "vars of " + host.name());
        }
    }

    /**
     * A directory kept as users keep one: an INI inventory, a YAML one, a README, the cluster's key
     * pair and a backup. Ansible warns about the keys (and prints a line of the public one) and reads
     * the rest; provision must find the same hosts and groups, say in one warning line what it
     * skipped, and print nothing of the keys.
     */
    @Test
    void aDirectoryWithKeysNotesAndBackupsBesideItsInventoriesLoadsAsAnsibleLoadsIt() throws Exception {
        Path dir = Files.createDirectories(home.resolve("kept"));
        Files.writeString(dir.resolve("hosts"), "[gpu]\nnode01 ansible_host=10.0.0.1\nnode02 ansible_host=10.0.0.2\n"
                + "[cpu]\nlocalhost ansible_connection=local\n");
        Files.writeString(dir.resolve("storage.yml"), "storage:\n  hosts:\n    nas01:\n      ansible_host: 10.0.1.1\n"
                + "cluster:\n  children:\n    gpu:\n    storage:\n");
        Files.writeString(dir.resolve("README.md"), "# The lab\nnode01 and node02 are the GPU nodes.\n");
        Files.writeString(dir.resolve("hosts.bak"), "[old]\nnode99 ansible_host=10.9.9.9\n");
        Path keys = Files.createDirectories(dir.resolve("cluster-ssh"));
        Files.writeString(keys.resolve("id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n" + PRIVATE_KEY_BODY + "\n"
                + "-----END OPENSSH PRIVATE KEY-----\n");
        Files.writeString(keys.resolve("id_ed25519.pub"), "ssh-ed25519 " + PUBLIC_KEY_BODY + " provision-cluster\n");

        Map<String, Object> ansible = ansibleInventory(dir, false);
        Inventory ours = Inventory.load(List.of(dir.toString()), home.resolve("no-playbook"));
        assertEquals(ansibleGroups(ansible), ourGroups(ours), "groups and their hosts");

        Path playbook = Files.writeString(home.resolve("kept.yml"), "- hosts: all\n  gather_facts: false\n  tasks: []\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ProvisionCommand.execute(new String[] {"--list-hosts", "-i", dir.toString(), playbook.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, printed);
        List<String> warnings = err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("WARNING")).toList();
        assertEquals(1, warnings.size(), printed);
        assertEquals("[WARNING]: inventory: skipped what is not an inventory: " + dir.resolve("README.md") + " (Ansible ignores"
                + " '.md' files in an inventory directory), " + keys + "/ (no inventory in it: id_ed25519: a private key,"
                + " id_ed25519.pub: a public key), " + dir.resolve("hosts.bak") + " (Ansible ignores '.bak' files in an"
                + " inventory directory)", warnings.getFirst());
        for (String secret : List.of(PRIVATE_KEY_BODY.substring(0, 12), PUBLIC_KEY_BODY.substring(12), "provision-cluster")) {
            assertFalse(printed.contains(secret), () -> "key content '" + secret + "' in the output:\n" + printed);
        }
        for (String host : List.of("node01", "node02", "nas01", "localhost")) {
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("      " + host + "\n"), printed);
        }
    }

    private static final String PRIVATE_KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";
    private static final String PUBLIC_KEY_BODY = "AAAAC3NzaC1lZDI1NTE5AAAAIKEYMARKERnotarealkey0123456789abcdefgh";

    private static Path source(Path dir) throws IOException {
        if (dir.getFileName().toString().startsWith("dir-")) {
            return dir;
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> inventories = files.filter(Files::isRegularFile).toList();
            assertEquals(1, inventories.size(), "one inventory file in " + dir);
            return inventories.getFirst();
        }
    }

    /**
     * {@code ansible-inventory -i SOURCE --list}, with its home and config kept in a temp dir.
     *
     * @param strict whether a file Ansible cannot parse fails the comparison (else it only warns)
     */
    private static Map<String, Object> ansibleInventory(Path source, boolean strict) throws Exception {
        Path config = home.resolve("ansible.cfg");
        if (!Files.exists(config)) {
            Files.writeString(config, "");
        }
        ProcessBuilder pb = new ProcessBuilder("ansible-inventory", "-i", source.toString(), "--list");
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("ANSIBLE_"));
        env.put("HOME", home.toString()); // nothing written into the real ~/.ansible
        env.put("ANSIBLE_HOME", home.resolve(".ansible").toString());
        env.put("ANSIBLE_LOCAL_TEMP", home.resolve("tmp").toString());
        env.put("ANSIBLE_CONFIG", config.toString());
        env.put("ANSIBLE_INVENTORY_UNPARSED_FAILED", "True");
        env.put("ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", String.valueOf(strict));
        env.put("ANSIBLE_NOCOLOR", "1");
        Path err = home.resolve("stderr");
        pb.redirectError(err.toFile());
        Process process = pb.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "ansible-inventory timed out");
        String stderr = Files.readString(err);
        assertEquals(0, process.exitValue(), () -> "ansible-inventory failed on " + source + ": " + stderr);
        assertTrue(!strict || !stderr.contains("Failed to parse") && !stderr.contains("Unable to parse"),
                () -> "ansible-inventory could not parse " + source + ": " + stderr);
        @SuppressWarnings("unchecked")
        Map<String, Object> list = new ObjectMapper().readValue(new String(out, StandardCharsets.UTF_8), Map.class);
        return list;
    }

    /** Group → its hosts, children's included; groups without hosts left out (Ansible omits them). */
    @SuppressWarnings("unchecked")
    private static Map<String, Set<String>> ansibleGroups(Map<String, Object> list) {
        Map<String, Set<String>> members = new TreeMap<>();
        for (String group : list.keySet()) {
            if (!group.equals("_meta")) {
                Set<String> hosts = new TreeSet<>();
                collect(list, group, hosts);
                if (!hosts.isEmpty()) {
                    members.put(group, hosts);
                }
            }
        }
        return members;
    }

    @SuppressWarnings("unchecked")
    private static void collect(Map<String, Object> list, String group, Set<String> into) {
        Map<String, Object> entry = (Map<String, Object>) list.getOrDefault(group, Map.of());
        into.addAll((List<String>) entry.getOrDefault("hosts", List.of()));
        for (String child : (List<String>) entry.getOrDefault("children", List.of())) {
            collect(list, child, into);
        }
    }

    private static Map<String, Set<String>> ourGroups(Inventory inventory) {
        Map<String, Set<String>> members = new TreeMap<>();
        inventory.groups().forEach((group, hosts) -> {
            if (!hosts.isEmpty()) {
                members.put(group, new TreeSet<>(hosts));
            }
        });
        return members;
    }

    /** Numbers compared by value (Jackson and provision choose different boxes), maps by key. */
    @SuppressWarnings("unchecked")
    private static <T> T normalize(T value) {
        Object normal = switch (value) {
            case Map<?, ?> map -> {
                Map<String, Object> sorted = new TreeMap<>();
                map.forEach((k, v) -> sorted.put(String.valueOf(k), normalize(v)));
                yield sorted;
            }
            case List<?> list -> {
                List<Object> items = new ArrayList<>();
                list.forEach(item -> items.add(normalize(item)));
                yield items;
            }
            case Integer i -> BigInteger.valueOf(i);
            case Long l -> BigInteger.valueOf(l);
            case BigDecimal d -> d.doubleValue();
            case null, default -> value;
        };
        return (T) normal;
    }

    private static Path cases(String resource) {
        try {
            return Path.of(AnsibleInventoryDifferentialTest.class.getResource(resource).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
