package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * provision as a sysadmin gets it: the {@code .deb} that {@code packaging/build-packages} makes (the
 * same script as {@code mvn -Ppackage package}), installed with {@code dpkg -i} into node01 of a test
 * cluster, where no JDK is visible (its {@code /usr/lib/jvm} is hidden). There it prints its version
 * and commit, {@code man} finds its page, bash-completion loads its completion, the bundled demo
 * playbook converges, and node01, as the controller, converges node02 and node03 over SSH with the
 * bundled {@code cluster.yml} (the parts that need no site services: hosts, ssh, sysctl, limits).
 * Then {@code dpkg -r} leaves nothing of the package, only what the user made. The archive
 * ({@code .tar.gz}) is unpacked in a directory of node01 and runs from there. The tests run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ClusterTest(nodes = 3, needs = {"dpkg-deb", "man", "gzip"})
class InstalledPackageIT {
    private static final Path PACKAGES = Provision.REPO.resolve("engine/target/packages");
    private static final Path JAR = Provision.REPO.resolve("engine/target/provision.jar");
    private static TestCluster cluster;
    private static Path deb;
    private static Path tarball;

    /** Builds the packages from the jar of this build, unless they are already newer than it. */
    @BeforeAll
    static void packagesOfThisBuild() throws Exception {
        deb = newest("provision_", ".deb");
        tarball = newest("provision-", "-linux-x86_64.tar.gz");
        if (deb == null || tarball == null || olderThanJar(deb) || olderThanJar(tarball)) {
            TestCluster.Result build = TestCluster.command(List.of(Provision.REPO.resolve("packaging/build-packages").toString(),
                    "--out", PACKAGES.toString()), Map.of(), Duration.ofMinutes(8));
            build.expectSuccess("packaging/build-packages");
            deb = newest("provision_", ".deb");
            tarball = newest("provision-", "-linux-x86_64.tar.gz");
        }
        assertTrue(deb != null && tarball != null, "no packages in " + PACKAGES);
        // node01 is a fresh server without Java: the JDK this build used (in /usr/lib/jvm, which the
        // nodes overlay from this machine) is hidden under an empty read-only tmpfs.
        cluster.inNode(1, "mount -t tmpfs -o ro,size=64k provision-no-jdk /usr/lib/jvm").expectSuccess("hiding /usr/lib/jvm");
    }

    @Test
    @Order(1)
    void nodeHasNoJava() throws Exception {
        TestCluster.Result java = inController("command -v java && java -version; ls -A /usr/lib/jvm | wc -l");
        assertFalse(java.output().contains("version \""), "a Java runtime is still visible on node01:\n" + java.output());
        assertTrue(java.output().strip().endsWith("0"), java.output());
    }

    @Test
    @Order(2)
    void installsWithDpkgAndPrintsItsVersionAndCommit() throws Exception {
        inController("dpkg -i " + deb).expectSuccess("dpkg -i " + deb.getFileName());

        TestCluster.Result version = inController("cd / && provision --version");

        assertEquals(0, version.exitCode(), version.output());
        assertEquals("/usr/bin/provision\n", inController("command -v provision").output());
        String head = Provision.REPO.resolve(".git").toFile().exists()
                ? TestCluster.command(List.of("git", "rev-parse", "--short=12", "HEAD"), Map.of(), Duration.ofSeconds(30)).output().strip()
                : "";
        Matcher m = Pattern.compile("provision (\\S+)\ncommit ([0-9a-f]{12}|unknown)\\b.*\nJava (\\S+)\n").matcher(version.output());
        assertTrue(m.matches(), version.output());
        if (!head.isEmpty() && head.matches("[0-9a-f]{12}")) {
            // the jar under test may be a commit older than HEAD (built before a commit), never another branch's
            String commit = m.group(2);
            assertEquals(0, TestCluster.command(List.of("git", "merge-base", "--is-ancestor", commit, "HEAD"), Map.of(),
                    Duration.ofSeconds(30)).exitCode(), "--version names " + commit + ", not an ancestor of " + head);
        }
        // the class-data archive made at build time is mapped where the package put it
        assertTrue(inController("PROVISION_JAVA_OPTS=-Xlog:cds=info provision --version").output().contains("Mapped dynamic region"),
                "class-data archive not used");
        // the runtime is the package's own, not a JDK of the machine
        assertTrue(inController("ls /usr/lib/provision/runtime/bin/java && /usr/lib/provision/runtime/bin/java --list-modules")
                .output().contains("java.base@"), "bundled runtime");
    }

    @Test
    @Order(3)
    void manFindsItsPageAndItRenders() throws Exception {
        TestCluster.Result where = inController("man -w provision");
        assertEquals(0, where.exitCode(), where.output());
        assertEquals("/usr/share/man/man1/provision.1.gz\n", where.output());
        TestCluster.Result page = inController("MANWIDTH=80 man -P cat provision 2>&1");
        assertEquals(0, page.exitCode(), page.output());
        assertTrue(page.output().contains("--check"), page.output());
        assertTrue(page.output().contains("EXIT STATUS"), page.output());
    }

    @Test
    @Order(4)
    void bashCompletionLoadsAndCompletesOptions() throws Exception {
        String loader = Files.isReadable(Path.of("/usr/share/bash-completion/bash_completion"))
                // bash-completion's own on-demand loader, as an interactive shell would use it
                ? "source /usr/share/bash-completion/bash_completion; _completion_loader provision; "
                : "source /usr/share/bash-completion/completions/provision; ";
        TestCluster.Result completion = inController(loader + "spec=$(complete -p provision) || exit 1; "
                + "fn=$(sed -n 's/.*-F \\([^ ]*\\) .*/\\1/p' <<< \"$spec\"); "
                + "COMP_WORDS=(provision --chec); COMP_CWORD=1; COMP_LINE='provision --chec'; COMP_POINT=${#COMP_LINE}; "
                + "$fn provision --chec provision; printf '%s\\n' \"${COMPREPLY[@]}\"");

        assertEquals(0, completion.exitCode(), completion.output());
        assertTrue(completion.output().lines().anyMatch(l -> l.strip().equals("--check")), completion.output());
    }

    @Test
    @Order(5)
    void bundledDemoPlaybookConvergesThenChangesNothing() throws Exception {
        String demo = "cd /root && provision /usr/share/provision/playbooks/demo.yml -e target=/srv/installed-demo";

        TestCluster.Result check = inController("cd /root && provision --check --diff /usr/share/provision/playbooks/demo.yml"
                + " -e target=/srv/installed-demo");
        TestCluster.Result first = inController(demo);
        TestCluster.Result second = inController(demo);

        assertEquals(0, check.exitCode(), check.output());
        assertTrue(check.output().contains("+++"), "diffs under --check --diff:\n" + check.output());
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(first.output().matches("(?s).*localhost\\s+: ok=\\d+\\s+changed=[1-9].*"), first.output());
        assertEquals(0, second.exitCode(), second.output());
        assertTrue(second.output().matches("(?s).*localhost\\s+: ok=\\d+\\s+changed=0 .*"), second.output());
        // the template came from the bundled templates/ (demo-node.conf.ftl)
        assertEquals(0, inController("test -s /srv/installed-demo/node.conf || ls /srv/installed-demo").exitCode());
    }

    @Test
    @Order(6)
    void asControllerConvergesTwoNodesOverSshWithTheBundledClusterPlaybook() throws Exception {
        String key = Files.readString(cluster.clientKey());
        assertFalse(key.contains("'"), "the client key as a shell word");
        // The user's own files on the controller: an SSH key, an inventory with its group_vars.
        inController("install -d -m 700 /root/.ssh /root/site/group_vars && umask 077 && printf '%s' '" + key
                + "' > /root/.ssh/id_ed25519").expectSuccess("controller key");
        String inventory = """
                all:
                  children:
                    gpu:
                      hosts:
                        node02: {ansible_host: %s}
                        node03: {ansible_host: %s}
                  vars:
                    ansible_user: root
                    ansible_ssh_private_key_file: /root/.ssh/id_ed25519
                """.formatted(cluster.address(2), cluster.address(3));
        // Only what a node's own namespaces can take (see /e2e/bringup/gpu.yml): per-netns TCP values
        // live, the rest in the drop-in only; limits below this machine's hard limits.
        String vars = """
                cluster_group: gpu
                cluster_key_dir: /root/site/cluster-ssh
                sysctl_settings:
                  net.core.rmem_max: 2147483647
                  net.ipv4.tcp_mtu_probing: 1
                  net.ipv4.tcp_slow_start_after_idle: 0
                sysctl_file_only: [net.core.rmem_max]
                limits_items:
                  nofile: 16384
                limits_domains: ["*", "root"]
                """;
        inController("cat > /root/site/inventory.yml <<'EOF'\n" + inventory + "EOF\ncat > /root/site/group_vars/gpu.yml <<'EOF'\n"
                + vars + "EOF").expectSuccess("controller inventory");
        String converge = "cd /root && provision -i /root/site/inventory.yml --tags hosts,ssh,sysctl,limits "
                + "/usr/share/provision/playbooks/cluster.yml";

        TestCluster.Result first = inController(converge);
        TestCluster.Result second = inController(converge);

        assertEquals(0, first.exitCode(), first.output());
        for (String node : List.of("node02", "node03")) {
            assertTrue(first.output().matches("(?s).*\\b" + node + "\\s+: ok=\\d+\\s+changed=[1-9].*"), first.output());
            assertTrue(second.output().matches("(?s).*\\b" + node + "\\s+: ok=\\d+\\s+changed=0 .*"), second.output());
        }
        assertEquals(0, second.exitCode(), second.output());
        for (int k : new int[] {2, 3}) {
            String hosts = cluster.exec(k, "cat", "/etc/hosts");
            assertTrue(hosts.contains(cluster.address(2) + " node02") && hosts.contains(cluster.address(3) + " node03"), hosts);
            assertTrue(cluster.exec(k, "cat", "/root/.ssh/authorized_keys").contains(
                    inController("cat /root/site/cluster-ssh/id_ed25519.pub").output().strip()), "cluster key authorized on node0" + k);
            assertEquals("1", cluster.exec(k, "sysctl", "-n", "net.ipv4.tcp_mtu_probing").strip());
        }
        // provision recorded the nodes' host keys in the controller user's store, as on first contact
        assertEquals(0, inController("grep -q " + cluster.address(2) + " /root/.provision/known_hosts").exitCode());
    }

    @Test
    @Order(7)
    void archiveRunsFromWhereverItIsUnpacked() throws Exception {
        String dir = "/srv/unpacked/" + tarball.getFileName().toString().replace(".tar.gz", "");

        TestCluster.Result run = inController("mkdir -p /srv/unpacked && tar -C /srv/unpacked -xzf " + tarball
                + " && cd / && " + dir + "/bin/provision --version && " + dir + "/bin/provision --check "
                + "/usr/share/provision/playbooks/demo.yml -e target=/srv/unpacked-demo");

        assertEquals(0, run.exitCode(), run.output());
        assertTrue(run.output().startsWith("provision "), run.output());
        assertTrue(run.output().contains("PLAY RECAP"), run.output());
        inController("rm -rf /srv/unpacked").expectSuccess("rm the unpacked archive");
    }

    @Test
    @Order(8)
    void removalLeavesNothingButWhatTheUserMade() throws Exception {
        List<String> files = inController("dpkg -L provision").expectSuccess("dpkg -L").output().lines()
                .filter(p -> p.startsWith("/") && !p.equals("/.")).toList();
        assertTrue(files.contains("/usr/bin/provision"), String.join("\n", files));

        inController("dpkg -r provision").expectSuccess("dpkg -r provision");

        TestCluster.Result status = inController("dpkg-query -W -f='${db:Status-Status}' provision 2>/dev/null || echo not-installed");
        assertEquals("not-installed", status.output().strip());
        // Every path the package installed is gone, but the directories other packages share (one
        // shell for the whole list: a process per path took most of a minute).
        TestCluster.Result left = inController("while IFS= read -r p; do if [ -d \"$p\" ]; then dpkg -S \"$p\" >/dev/null 2>&1 "
                + "|| echo \"$p/\"; elif [ -e \"$p\" ] || [ -L \"$p\" ]; then echo \"$p\"; fi; done <<'EOF'\n"
                + String.join("\n", files) + "\nEOF");
        assertEquals("", left.output(), "paths of the package left after dpkg -r");
        for (String dir : List.of("/usr/lib/provision", "/usr/share/provision", "/usr/share/doc/provision")) {
            assertEquals(1, inController("test -e " + dir).exitCode(), dir + " is still there");
        }
        assertEquals(1, inController("command -v provision").exitCode(), "provision still on PATH");
        // What the user made stays: their keys, inventory, the cluster key pair, the known-hosts store.
        assertEquals(0, inController("test -s /root/site/inventory.yml && test -s /root/site/cluster-ssh/id_ed25519 "
                + "&& test -s /root/.provision/known_hosts && test -s /srv/installed-demo/node.conf").exitCode());
    }

    private static TestCluster.Result inController(String script) throws IOException, InterruptedException {
        // A login shell's PATH, and no JAVA_HOME that would point at this build's JDK.
        return cluster.inNode(1, "unset JAVA_HOME PROVISION_JAVA PROVISION_JAVA_OPTS; export NO_COLOR=1 "
                + "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; " + script);
    }

    private static Path newest(String prefix, String suffix) throws IOException {
        if (!Files.isDirectory(PACKAGES)) {
            return null;
        }
        try (Stream<Path> files = Files.list(PACKAGES)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix) && p.getFileName().toString().endsWith(suffix))
                    .max((a, b) -> mtime(a).compareTo(mtime(b))).orElse(null);
        }
    }

    private static boolean olderThanJar(Path file) {
        return mtime(file).compareTo(mtime(JAR)) < 0;
    }

    private static FileTime mtime(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
