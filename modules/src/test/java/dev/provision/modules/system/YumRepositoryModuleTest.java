package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The expected file contents are what Ansible 2.14.18's own {@code YumRepo} class
 * ({@code /usr/lib/python3/dist-packages/ansible/modules/yum_repository.py}) wrote for the same
 * parameters and the same existing file, run by hand against a temporary reposdir.
 */
class YumRepositoryModuleTest extends ModuleTableTest<YumRepositoryModule> {
    private static final String EPEL_URL = "https://download.fedoraproject.org/pub/epel/$releasever/$basearch/";
    private static final String EPEL_KEY = "https://download.fedoraproject.org/pub/epel/RPM-GPG-KEY-EPEL-9";

    YumRepositoryModuleTest() {
        super(new YumRepositoryModule());
    }

    private static FakeHost host() {
        return new FakeHost().directory("/etc/yum.repos.d");
    }

    private static String q(String content) {
        return "\"" + content.replace("\n", "\\n") + "\"";
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("new repository: its own file, options sorted, booleans 1/0", host(),
                        Args.of("name", "epel", "description", "EPEL YUM repo", "baseurl", EPEL_URL, "gpgcheck", true,
                                "gpgkey", EPEL_KEY, "enabled", "yes"),
                        planned("put /etc/yum.repos.d/epel.repo [0644 - -] " + q("[epel]\nbaseurl = " + EPEL_URL
                                + "\nenabled = 1\ngpgcheck = 1\ngpgkey = " + EPEL_KEY + "\nname = EPEL YUM repo\n\n"))),
                row("two baseurls one a line, exclude joined, strings kept", host(),
                        Args.of("name", "cuda", "description", "CUDA", "baseurl", List.of("http://a/x", "http://b/x"), "gpgcheck", false,
                                "exclude", List.of("kernel*", "nvidia*"), "priority", 10, "skip_if_unavailable", true,
                                "validate_certs", false),
                        planned("put /etc/yum.repos.d/cuda.repo [0644 - -] " + q("[cuda]\nbaseurl = http://a/x\n\thttp://b/x\n"
                                + "exclude = kernel* nvidia*\ngpgcheck = 0\nname = CUDA\npriority = 10\nskip_if_unavailable = 1\n"
                                + "sslverify = 0\n\n"))),
                row("the same options in another order and spelling: converged, file untouched",
                        host().file("/etc/yum.repos.d/epel.repo", "# my comment\n[other]\nname=Other\nbaseurl=http://o/\n\n"
                                + "[epel]\nbaseurl: https://x/\nNAME = EPEL YUM repo\ngpgcheck=1\n"),
                        Args.of("name", "epel", "description", "EPEL YUM repo", "baseurl", "https://x/", "gpgcheck", true),
                        converged("/etc/yum.repos.d/epel.repo has [epel] with these options")),
                row("a changed option: the file rewritten as Ansible writes it",
                        host().file("/etc/yum.repos.d/epel.repo", "# my comment\n[epel]\nname=EPEL\nbaseurl=https://x/\n\n"
                                + "[other]\nname=Other\nbaseurl=http://o/\n  http://p/\n"),
                        Args.of("name", "epel", "description", "EPEL new", "baseurl", "https://x/", "gpgcheck", true),
                        planned("put /etc/yum.repos.d/epel.repo [0644 root root] " + q("[other]\nname = Other\nbaseurl = http://o/\n"
                                + "\thttp://p/\n\n[epel]\nbaseurl = https://x/\ngpgcheck = 1\nname = EPEL new\n\n"))),
                row("absent: the section removed, the others kept",
                        host().file("/etc/yum.repos.d/epel.repo", "[epel]\nname=EPEL\nbaseurl=https://x/\n\n[other]\nname=Other\nbaseurl=http://o/\n"),
                        Args.of("name", "epel", "state", "absent"),
                        planned("put /etc/yum.repos.d/epel.repo [0644 root root] " + q("[other]\nname = Other\nbaseurl = http://o/\n\n"))),
                row("absent: the last section removes the file", host().file("/etc/yum.repos.d/x.repo", "[epel]\nname=EPEL\nbaseurl=https://x/\n"),
                        Args.of("name", "epel", "file", "x", "state", "absent"), planned("remove /etc/yum.repos.d/x.repo")),
                row("absent and not there", host(), Args.of("name", "epel", "state", "absent"),
                        converged("[epel] is not in /etc/yum.repos.d/epel.repo")),
                row("reposdir, file and mode", new FakeHost().directory("/srv/repos"),
                        Args.of("name", "local", "description", "Local", "baseurl", "file:///srv/rpms", "reposdir", "/srv/repos/",
                                "file", "site", "mode", "0600"),
                        planned("put /srv/repos/site.repo [0600 - -] " + q("[local]\nbaseurl = file:///srv/rpms\nname = Local\n\n"))),
                row("right content, other mode: only the mode", host().file("/etc/yum.repos.d/l.repo", "[l]\nbaseurl = http://l/\nname = L\n\n"),
                        Args.of("name", "l", "description", "L", "baseurl", "http://l/", "mode", "0600"),
                        planned("attrs /etc/yum.repos.d/l.repo [0600 - -]")),
                row("a newline in a value cannot start a section", host(),
                        Args.of("name", "epel", "description", "a\n[evil]\nbaseurl=http://evil/", "baseurl", "https://x/"),
                        planned("put /etc/yum.repos.d/epel.repo [0644 - -] " + q("[epel]\nbaseurl = https://x/\nname = a\n\t[evil]\n"
                                + "\tbaseurl=http://evil/\n\n"))),
                row("a section name that is not a repo id", host(), Args.of("name", "x]\n[y", "description", "d", "baseurl", "http://x/"),
                        fails("is not a repository id")),
                row("file with a slash", host(), Args.of("name", "x", "file", "../x", "description", "d", "baseurl", "http://x/"),
                        fails("no '/'")),
                row("no url", host(), Args.of("name", "x", "description", "d"), fails("'baseurl', 'metalink' or 'mirrorlist' is required")),
                row("no description", host(), Args.of("name", "x", "baseurl", "http://x/"), fails("'description' is required")),
                row("no reposdir", new FakeHost(), Args.of("name", "x", "description", "d", "baseurl", "http://x/"),
                        fails("Repo directory '/etc/yum.repos.d' does not exist.")),
                row("params refused", host(), Args.of("name", "x", "params", java.util.Map.of("a", "b")), fails("removed it in 2.5")),
                row("a file Ansible could not read either", host().file("/etc/yum.repos.d/x.repo", "baseurl=x\n"),
                        Args.of("name", "x", "description", "d", "baseurl", "http://x/"), fails("a line before the first [section]")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void aPasswordHidesTheDiff() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("name", "p", "description", "P", "baseurl", "http://p/",
                "password", "hunter2")), new FakeContext(host(), controller));
        assertTrue(plan.changes().getFirst().sensitive());
        assertEquals("create /etc/yum.repos.d/p.repo (mode 0644)", plan.changes().getFirst().summary());
    }

    @Test
    void continuationAndBlankLinesAreReadAsConfigparserReadsThem() {
        assertEquals(java.util.Map.of("a", java.util.Map.of("baseurl", "http://o/\n\nhttp://p/", "name", "x")),
                RepoIni.parse("f", "[a]\n; c\nbaseurl = http://o/\n\n  http://p/\n# c\nname: x\n\n\n"));
    }
}
