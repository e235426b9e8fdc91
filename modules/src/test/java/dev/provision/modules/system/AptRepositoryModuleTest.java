package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;

class AptRepositoryModuleTest extends ModuleTableTest<AptRepositoryModule> {
    private static final String CHROME = "deb http://dl.google.com/linux/chrome/deb/ stable main";
    private static final String DOCKER = "deb [arch=amd64] https://download.docker.com/linux/ubuntu focal stable";
    private static final String DEBIAN = "deb http://deb.debian.org/debian bookworm main\n";
    private static final String UPDATE = "exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, update]";

    AptRepositoryModuleTest() {
        super(new AptRepositoryModule());
    }

    /** A Debian host: sources.list with the main archive, an empty sources.list.d. */
    private static FakeHost debian() {
        return new FakeHost().file("/etc/apt/sources.list", DEBIAN).directory("/etc/apt/sources.list.d");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("new source: its own file, named as Ansible names it, then apt-get update", debian(), Args.of("repo", DOCKER),
                        planned("put /etc/apt/sources.list.d/download_docker_com_linux_ubuntu.list [0644 - -] \"" + DOCKER + "\\n\"",
                                UPDATE)),
                row("filename and mode given, no cache update", debian(),
                        Args.of("repo", CHROME, "filename", "google-chrome", "mode", "0600", "update_cache", false),
                        planned("put /etc/apt/sources.list.d/google-chrome.list [0600 - -] \"" + CHROME + "\\n\"")),
                row("already in sources.list: left there", new FakeHost().file("/etc/apt/sources.list", DEBIAN + CHROME + "\n")
                                .directory("/etc/apt/sources.list.d"), Args.of("repo", CHROME),
                        converged("'" + CHROME + "' is in /etc/apt/sources.list")),
                row("already in another .list file, other blanks: left there", debian()
                                .file("/etc/apt/sources.list.d/google.list", "deb  http://dl.google.com/linux/chrome/deb/\tstable main # chrome\n"),
                        Args.of("repo", CHROME), converged("'" + CHROME + "' is in /etc/apt/sources.list.d/google.list")),
                row("a .sources (deb822) or hidden file does not count", debian()
                                .file("/etc/apt/sources.list.d/.google.list", CHROME + "\n")
                                .file("/etc/apt/sources.list.d/google.sources", CHROME + "\n"), Args.of("repo", CHROME, "update_cache", false),
                        planned("put /etc/apt/sources.list.d/dl_google_com_linux_chrome_deb.list [0644 - -] \"" + CHROME + "\\n\"")),
                row("commented out: enabled in place, the file written as Ansible writes it", debian()
                                .file("/etc/apt/sources.list.d/google.list", "#comment\n#" + CHROME + "\n", "0640", "root", "adm"),
                        Args.of("repo", CHROME, "update_cache", false),
                        planned("put /etc/apt/sources.list.d/google.list [0640 root adm] \"# comment\\n" + CHROME + "\\n\"")),
                row("added to an existing file of that name, its mode set", debian()
                                .file("/etc/apt/sources.list.d/docker.list", "deb-src [arch=amd64] https://download.docker.com/linux/ubuntu focal stable\n"),
                        Args.of("repo", DOCKER, "filename", "docker", "mode", "600", "update_cache", false),
                        planned("put /etc/apt/sources.list.d/docker.list [0600 root root] \"deb-src [arch=amd64] "
                                + "https://download.docker.com/linux/ubuntu focal stable\\n" + DOCKER + "\\n\"")),
                row("no sources.list.d yet: created", new FakeHost().file("/etc/apt/sources.list", DEBIAN), Args.of("repo", CHROME),
                        planned("mkdir /etc/apt/sources.list.d [- - -]",
                                "put /etc/apt/sources.list.d/dl_google_com_linux_chrome_deb.list [0644 - -] \"" + CHROME + "\\n\"", UPDATE)),
                row("absent: the only line of a file removes the file", debian()
                                .file("/etc/apt/sources.list.d/dl_google_com_linux_chrome_deb.list", CHROME + "\n"),
                        Args.of("repo", CHROME, "state", "absent"),
                        planned("remove /etc/apt/sources.list.d/dl_google_com_linux_chrome_deb.list", UPDATE)),
                row("absent: removed from sources.list, the rest kept", debian()
                                .file("/etc/apt/sources.list", DEBIAN + CHROME + "\n", "0644", "root", "root"),
                        Args.of("repo", CHROME, "state", "absent", "update_cache", false),
                        planned("put /etc/apt/sources.list [0644 root root] \"" + DEBIAN.replace("\n", "\\n") + "\"")),
                row("absent: a commented-out copy stays", debian()
                                .file("/etc/apt/sources.list.d/google.list", "# " + CHROME + "\n"),
                        Args.of("repo", CHROME, "state", "absent"), converged("'" + CHROME + "' is in no apt source list")),
                row("a value is never a command: it is written literally", debian(),
                        Args.of("repo", "deb http://x.example/$(reboot) `id` main", "filename", "x; rm -rf", "update_cache", false),
                        planned("put /etc/apt/sources.list.d/x; rm -rf.list [0644 - -] \"deb http://x.example/$(reboot) `id` main\\n\"")),
                row("ppa: refused with what to write instead", debian(), Args.of("repo", "ppa:deadsnakes/ppa"),
                        fails("PPAs are not supported")),
                row("not a source line", debian(), Args.of("repo", "# deb http://x y main"), fails("Invalid repository string")),
                row("filename with a slash", debian(), Args.of("repo", CHROME, "filename", "../sources"), fails("no '/'")),
                row("a symbolic mode", debian(), Args.of("repo", CHROME, "mode", "u+rw"), fails("not an octal mode")),
                row("an unknown state", debian(), Args.of("repo", CHROME, "state", "enabled"), fails("state")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    /**
     * Ansible 2.14.18's own rule: each expected name was printed by
     * {@code SourcesList._suggest_filename} of {@code /usr/lib/python3/dist-packages/ansible/modules/apt_repository.py}
     * (ansible-core 2.14.18, Debian's package), called by hand on the source {@code _parse} made of the line.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            deb http://dl.google.com/linux/chrome/deb/ stable main | dl_google_com_linux_chrome_deb
            deb [arch=amd64] https://download.docker.com/linux/ubuntu focal stable | download_docker_com_linux_ubuntu
            deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.gpg] https://download.docker.com/linux/ubuntu jammy stable | download_docker_com_linux_ubuntu
            deb http://archive.canonical.com/ubuntu hardy partner | archive_canonical_com_ubuntu
            deb-src http://archive.canonical.com/ubuntu hardy partner | archive_canonical_com_ubuntu
            deb https://user:secret@repo.example.com/debian bookworm main | repo_example_com_debian
            deb http://deb.debian.org/debian bookworm-backports main contrib | deb_debian_org_debian
            deb [signed-by=/usr/share/keyrings/nvidia.gpg] https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ / | developer_download_nvidia_com_compute_cuda_repos_ubuntu2204_x86_64
            deb file:/srv/repo ./ | file_srv_repo
            deb http://10.0.0.5:8080/apt stable main | 10_0_0_5_8080_apt
            deb   http://ppa.launchpad.net/foo/bar/ubuntu   focal main | ppa_launchpad_net_foo_bar_ubuntu
            deb http://repo.example.com/debian_x bookworm main | repo_example_com_debian_x
            """)
    void derivesTheFileNameAsAnsible(String line, String expected) {
        assertEquals(expected, AptSources.suggestedName(AptSources.repo(line).orElseThrow()));
    }

    @Test
    void theDiffIsTheFileBeforeAndAfter() throws Exception {
        FakeHost host = debian().file("/etc/apt/sources.list.d/google.list", "#" + CHROME + "\n");
        Plan plan = module.plan(module.params().validate(Args.of("repo", CHROME)), new FakeContext(host, controller));
        assertEquals("enable '" + CHROME + "' in /etc/apt/sources.list.d/google.list", plan.changes().getFirst().summary());
        assertEquals(new Diff("/etc/apt/sources.list.d/google.list", "#" + CHROME + "\n", CHROME + "\n"),
                plan.changes().getFirst().diffs().getFirst());
        assertEquals("refresh apt package lists (sources changed)", plan.changes().get(1).summary());
    }

    @Test
    void linesAreReadAndWrittenBackAsAnsibleDoes() {
        assertEquals("# a # b\n\n" + CHROME + " # chrome\n# \n",
                AptSources.render(AptSources.parseFile("#a#b\n   \n  deb  http://dl.google.com/linux/chrome/deb/ stable main#chrome\n#")));
    }

    @Test
    void retriesBecomeAptsOwn() {
        Expect.check(module, new FakeContext(debian(), controller), Args.of("repo", CHROME, "update_cache_retries", 3),
                planned("put /etc/apt/sources.list.d/dl_google_com_linux_chrome_deb.list [0644 - -] \"" + CHROME + "\\n\"",
                        "exec [env, DEBIAN_FRONTEND=noninteractive, apt-get, -o, Acquire::Retries=3, update]"));
    }
}
