package dev.provision.engine.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.provision.engine.cli.ProvisionCommand;
import dev.provision.engine.e2e.Launched;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code provision migrate} against the real Ansible: an Ansible role tree with the usual idioms
 * (variable references, a loop over dicts, filters, conditions, a Jinja2 template with for and if)
 * is migrated; the migrated tree passes {@code --syntax-check}; its {@code --check} names the tasks
 * that {@code ansible-playbook --check} of the original names; and the two real runs leave the same
 * files, modes and bytes. Skipped where ansible-playbook is not installed.
 */
class MigrateDifferentialTest {
    private static final Path FIXTURE = Path.of("src/test/resources/migrate/role-tree");
    private static final Pattern TASK = Pattern.compile("(?m)^TASK \\[(.*?)\\]|^changed: \\[localhost\\]");

    @TempDir
    Path tmp;
    private Path original;
    private Path migrated;

    @BeforeEach
    void migrate() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/ansible-playbook")), "ansible-playbook is not installed (Debian: ansible-core)");
        original = copy(FIXTURE, tmp.resolve("original"));
        migrated = copy(FIXTURE, tmp.resolve("migrated"));
        List<String> files = new ArrayList<>(List.of("migrate", "--write"));
        try (Stream<Path> all = Files.walk(migrated)) {
            all.filter(Files::isRegularFile).map(Path::toString).sorted().forEach(files::add);
        }
        assertEquals(0, provision(files.toArray(String[]::new)), "everything in the tree translates");
    }

    /**
     * On the same drifted state (each tool's converged tree, then the same edits by hand): Ansible's
     * own check cannot plan a fresh tree (its lineinfile fails on the file its template has not
     * written yet), provision's can, so the comparison starts from a converged one.
     */
    @Test
    void theMigratedTreePassesTheChecksAndPlansWhatAnsiblesCheckReports() throws Exception {
        assertEquals(0, provision("-i", "localhost,", "--syntax-check", migrated.resolve("site.yml").toString()));
        Path a = tmp.resolve("ansible-check");
        Path b = tmp.resolve("provision-check");
        ansible("-e", "base=" + a);
        output("-i", "localhost,", "-e", "base=" + b, migrated.resolve("site.yml").toString());
        for (Path base : List.of(a, b)) {
            Path demo = base.resolve("demo");
            Files.delete(demo.resolve("motd"));
            Files.writeString(demo.resolve("ports"), "8080\n");
            Files.delete(demo.resolve("bob"));
            Files.writeString(demo.resolve("app.conf"), Files.readString(demo.resolve("app.conf")).replace("workers = 4\n", ""));
        }
        Set<String> ansible = changedTasks(ansible("--check", "-e", "base=" + a));
        Set<String> ours = changedTasks(output("-i", "localhost,", "--check", "-e", "base=" + b, migrated.resolve("site.yml").toString()));
        assertEquals(Set.of("web : per-user directories", "web : greeting", "web : a setting every host gets", "web : ports file"), ansible,
                "the drift as Ansible sees it");
        assertEquals(ansible, ours, "provision --check of the migrated role names the tasks ansible-playbook --check names");
    }

    @Test
    void theMigratedTreeLeavesTheFilesTheOriginalLeaves() throws Exception {
        Path a = tmp.resolve("ansible-run");
        Path b = tmp.resolve("provision-run");
        ansible("-e", "base=" + a);
        output("-i", "localhost,", "-e", "base=" + b, migrated.resolve("site.yml").toString());
        assertEquals(tree(a), tree(b), "same files, modes and bytes");
    }

    private String ansible(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("ansible-playbook", "-i", "localhost,", "-c", "local"));
        command.addAll(List.of(args));
        command.add(original.resolve("site.yml").toString());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        // Ansible's own state in the test's directory, never in ~/.ansible.
        pb.environment().put("HOME", tmp.toString());
        pb.environment().put("ANSIBLE_LOCAL_TEMP", tmp.resolve("ansible-tmp").toString());
        pb.environment().put("ANSIBLE_NOCOLOR", "1");
        Launched.Output out = Launched.run(pb, Duration.ofMinutes(3));
        assertEquals(0, out.exitCode(), out.stdout());
        return out.stdout();
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int provision(String... args) {
        out.reset();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return ProvisionCommand.execute(args, print, print);
    }

    private String output(String... args) {
        assertEquals(0, provision(args), out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static Set<String> changedTasks(String output) {
        Set<String> changed = new TreeSet<>();
        String task = "";
        Matcher m = TASK.matcher(output);
        while (m.find()) {
            if (m.group(1) != null) {
                task = m.group(1);
            } else {
                changed.add(task);
            }
        }
        return changed;
    }

    private static String tree(Path root) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted().toList()) {
                sb.append(root.relativize(p)).append(' ').append(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(p)));
                if (Files.isRegularFile(p)) {
                    sb.append(' ').append(HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                            .digest(Files.readAllBytes(p))));
                }
                sb.append('\n');
            }
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return sb.toString();
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }
}
