package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
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

class FileModuleTest extends ModuleTableTest<FileModule> {

    FileModuleTest() {
        super(new FileModule());
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("existing file with right mode", new FakeHost().file("/etc/x", "a", "0644", "root", "root"),
                        Args.of("path", "/etc/x", "mode", "0644"), converged("/etc/x exists with mode 0644")),
                row("state=file on a missing path", new FakeHost(),
                        Args.of("path", "/etc/x"), fails("file /etc/x does not exist; use state=touch to create it")),
                row("state=file on a directory", new FakeHost().directory("/etc/x"),
                        Args.of("path", "/etc/x", "state", "file"), fails("/etc/x is a directory, not a file")),
                row("mode differs", new FakeHost().file("/etc/x", "a", "0644", "root", "root"),
                        Args.of("path", "/etc/x", "mode", "0600"), planned("attrs /etc/x [0600 - -]")),
                row("owner and group differ, mode right", new FakeHost().file("/etc/x", "a", "0600", "root", "root"),
                        Args.of("dest", "/etc/x", "mode", "600", "owner", "alice", "group", "staff"),
                        planned("attrs /etc/x [- alice staff]")),
                row("integer mode reads as octal digits", new FakeHost().file("/etc/x", "a", "0644", "root", "root"),
                        Args.of("name", "/etc/x", "mode", 644), converged("/etc/x exists with mode 0644")),
                row("attributes follow a symlink", new FakeHost().file("/etc/real", "a", "0600", "root", "root").link("/etc/x", "real"),
                        Args.of("path", "/etc/x", "mode", "0600"), converged("/etc/x exists with mode 0600")),
                row("missing directory", new FakeHost(),
                        Args.of("path", "/srv/data", "state", "directory", "mode", "0750"),
                        // Ansible gives every directory it creates the mode, not only the last.
                        planned("mkdir /srv [0750 - -]", "mkdir /srv/data [0750 - -]")),
                row("missing directory without attributes", new FakeHost(),
                        Args.of("path", "/srv/data", "state", "directory"), planned("mkdir /srv/data [- - -]")),
                row("existing directory", new FakeHost().directory("/srv/data"),
                        Args.of("path", "/srv/data", "state", "directory"), converged("/srv/data is a directory")),
                row("directory with other owner", new FakeHost().directory("/srv/data"),
                        Args.of("path", "/srv/data", "state", "directory", "owner", "slurm"), planned("attrs /srv/data [- slurm -]")),
                row("directory wanted where a file is", new FakeHost().file("/srv/data", ""),
                        Args.of("path", "/srv/data", "state", "directory"), fails("/srv/data already exists as a file, not a directory")),
                row("absent removes a file", new FakeHost().file("/etc/x", "a"),
                        Args.of("path", "/etc/x", "state", "absent"), planned("remove /etc/x")),
                row("absent removes a directory", new FakeHost().directory("/tmp/d").file("/tmp/d/f", "x"),
                        Args.of("path", "/tmp/d", "state", "absent"), planned("remove /tmp/d")),
                row("absent on a missing path", new FakeHost(),
                        Args.of("path", "/etc/x", "state", "absent"), converged("/etc/x is already absent")),
                row("new link", new FakeHost().file("/usr/bin/python3", ""),
                        Args.of("path", "/usr/bin/python", "src", "/usr/bin/python3", "state", "link"),
                        planned("link /usr/bin/python -> /usr/bin/python3")),
                row("src alone means link", new FakeHost().file("/usr/bin/python3", ""),
                        Args.of("path", "/usr/bin/python", "src", "python3"), planned("link /usr/bin/python -> python3")),
                row("link already right", new FakeHost().file("/usr/bin/python3", "").link("/usr/bin/python", "python3"),
                        Args.of("path", "/usr/bin/python", "src", "python3"), converged("/usr/bin/python already links to python3")),
                row("link to another target", new FakeHost().file("/opt/b", "").link("/opt/cur", "/opt/a"),
                        Args.of("path", "/opt/cur", "src", "/opt/b", "state", "link"), planned("link /opt/cur -> /opt/b")),
                row("link over a file without force", new FakeHost().file("/opt/b", "").file("/opt/cur", "x"),
                        Args.of("path", "/opt/cur", "src", "/opt/b", "state", "link"), fails("set force=true to replace it")),
                row("link over a file with force", new FakeHost().file("/opt/b", "").file("/opt/cur", "x"),
                        Args.of("path", "/opt/cur", "src", "/opt/b", "state", "link", "force", "yes"),
                        planned("remove /opt/cur", "link /opt/cur -> /opt/b")),
                row("link over a directory", new FakeHost().file("/opt/b", "").directory("/opt/cur"),
                        Args.of("path", "/opt/cur", "src", "/opt/b", "force", true), fails("refusing to replace it with a link")),
                row("link to a missing target", new FakeHost(),
                        Args.of("path", "/opt/cur", "src", "/opt/none", "state", "link"), fails("src /opt/none does not exist")),
                row("link to a missing target with force", new FakeHost().directory("/opt"),
                        Args.of("path", "/opt/cur", "src", "/opt/none", "state", "link", "force", true), planned("link /opt/cur -> /opt/none")),
                row("link without src", new FakeHost(),
                        Args.of("path", "/opt/cur", "state", "link"), fails("src is required for state=link")),
                row("touch a missing file", new FakeHost().directory("/var/log"),
                        Args.of("path", "/var/log/app.log", "state", "touch", "mode", "0640"),
                        planned("put /var/log/app.log [0640 - -] \"\"")),
                row("touch an existing file plans nothing", new FakeHost().file("/var/log/app.log", "x"),
                        Args.of("path", "/var/log/app.log", "state", "touch"), converged("/var/log/app.log exists")),
                row("touch in a missing directory", new FakeHost(),
                        Args.of("path", "/nope/app.log", "state", "touch"), fails("Destination directory /nope does not exist")),
                row("unknown state", new FakeHost(),
                        Args.of("path", "/x", "state", "fifo"), fails("must be one of: file, directory, absent, link, hard, touch")),
                row("hard link created", new FakeHost().file("/srv/a", "x"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard"), planned("hardlink /srv/b => /srv/a")),
                row("hard link already the same inode", new FakeHost().file("/srv/a", "x").hardLink("/srv/b", "/srv/a"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard"), converged("/srv/b is a hard link to /srv/a")),
                row("hard link with mode sets the shared inode's", new FakeHost().file("/srv/a", "x", "0644", "root", "root"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard", "mode", "0600"),
                        planned("hardlink /srv/b => /srv/a", "attrs /srv/b [0600 - -]")),
                row("hard link into a directory takes src's name", new FakeHost().file("/srv/a", "x").directory("/opt"),
                        Args.of("path", "/opt", "src", "/srv/a", "state", "hard"), planned("hardlink /opt/a => /srv/a")),
                row("hard link over a file needs force", new FakeHost().file("/srv/a", "x").file("/srv/b", "x"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard"), fails("Cannot link, file exists at destination /srv/b")),
                row("hard link over a file with force", new FakeHost().file("/srv/a", "x").file("/srv/b", "y"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard", "force", true), planned("hardlink /srv/b => /srv/a")),
                row("hard link over another hard link needs force",
                        new FakeHost().file("/srv/a", "x").file("/srv/c", "y").hardLink("/srv/b", "/srv/c"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard"), fails("different hard link exists at destination")),
                row("hard link replaces a symlink without force", new FakeHost().file("/srv/a", "x").link("/srv/b", "/srv/a"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard"), planned("hardlink /srv/b => /srv/a")),
                row("hard link over a directory", new FakeHost().file("/srv/a", "x").directory("/srv/b/a"),
                        Args.of("path", "/srv/b", "src", "/srv/a", "state", "hard", "force", true), fails("/srv/b/a is a directory")),
                row("hard link to a missing src", new FakeHost().directory("/srv"),
                        Args.of("path", "/srv/b", "src", "/srv/none", "state", "hard"), fails("src does not exist: /srv/none")),
                row("hard link to a directory", new FakeHost().directory("/srv/d"),
                        Args.of("path", "/srv/b", "src", "/srv/d", "state", "hard"), fails("a hard link cannot point to a directory")),
                row("hard link without src", new FakeHost(),
                        Args.of("path", "/srv/b", "state", "hard"), fails("src is required for creating new hardlinks")),
                row("hard link to a relative src", new FakeHost(),
                        Args.of("path", "/srv/b", "src", "a", "state", "hard"), fails("src must be an absolute path")),
                row("hard link in a missing directory", new FakeHost().file("/srv/a", "x"),
                        Args.of("path", "/nope/b", "src", "/srv/a", "state", "hard"), fails("Destination directory /nope does not exist")),
                row("recurse sets a mode everywhere below", tree(),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0750"),
                        planned("attrs /t [0750 - -]", "attrs /t/a [0750 - -]", "attrs /t/run.sh [0750 - -]",
                                "attrs /t/sub/secret [0750 - -]")),
                row("recurse counts a symbolic mode from each path's own", tree(),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "u=rwX,g=rX,o="),
                        planned("attrs /t [0750 - -]", "attrs /t/a [0640 - -]", "attrs /t/run.sh [0750 - -]",
                                "attrs /t/sub/secret [0640 - -]")),
                row("recurse with nothing to change", tree(),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "u+r"),
                        converged("/t is a directory with mode u+r, and so is everything below it")),
                row("recurse owner reaches a link itself and, followed, its target",
                        new FakeHost().directory("/t").file("/o", "x").link("/t/l", "/o"),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "owner", "app"),
                        planned("attrs /t [- app -]", "attrs /t/l [- app -]", "attrs /o [- app -]")),
                row("recurse mode leaves a link itself alone and, followed, sets its target's",
                        new FakeHost().directory("/t").file("/o", "x").link("/t/l", "/o"),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0600"),
                        planned("attrs /t [0600 - -]", "attrs /o [0600 - -]")),
                row("recurse follow=false leaves a link's target alone",
                        new FakeHost().directory("/t").file("/o", "x").link("/t/l", "/o"),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0600", "follow", false),
                        planned("attrs /t [0600 - -]")),
                row("recurse into a linked directory", new FakeHost().directory("/t").file("/o/b", "x").link("/t/l", "/o"),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0700"),
                        planned("attrs /t [0700 - -]", "attrs /o/b [0700 - -]", "attrs /o [0700 - -]")),
                row("recurse skips a dangling link", new FakeHost().directory("/t").link("/t/l", "missing"),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0700"), planned("attrs /t [0700 - -]")),
                row("recurse on a missing directory creates it", new FakeHost(),
                        Args.of("path", "/t", "state", "directory", "recurse", true, "mode", "0700"), planned("mkdir /t [0700 - -]")),
                row("recurse without state means a directory", tree(),
                        Args.of("path", "/t", "recurse", true, "mode", "0755"),
                        planned("attrs /t/a [0755 - -]", "attrs /t/sub [0755 - -]", "attrs /t/sub/secret [0755 - -]")),
                row("recurse with another state", tree(),
                        Args.of("path", "/t", "state", "file", "recurse", true), fails("recurse option requires state to be 'directory'")),
                row("follow=false on a symlinked directory", new FakeHost().directory("/real").link("/t", "/real"),
                        Args.of("path", "/t", "state", "directory", "follow", false), fails("/t already exists as a link")),
                row("relative path", new FakeHost(),
                        Args.of("path", "etc/x"), fails("path must be an absolute path")),
                row("symbolic mode applied to the current mode", new FakeHost().file("/etc/x", "", "0644", "root", "root"),
                        Args.of("path", "/etc/x", "mode", "u+x,g-r,o=rw"), planned("attrs /etc/x [0706 - -]")),
                row("symbolic mode already satisfied", new FakeHost().file("/etc/x", "", "0755", "root", "root"),
                        Args.of("path", "/etc/x", "mode", "a+rX"), converged("/etc/x exists with mode a+rX")),
                row("symbolic mode of a new directory counts from 0755", new FakeHost(),
                        Args.of("path", "/srv", "state", "directory", "mode", "g+w"), planned("mkdir /srv [0775 - -]")),
                row("malformed symbolic mode", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "mode", "u+q"), fails("mode 'u+q' is neither octal")),
                row("mode out of range", new FakeHost().file("/etc/x", ""),
                        Args.of("path", "/etc/x", "mode", "17777"), fails("larger than 07777")));
    }

    /** A small tree: /t 0755, /t/sub 0750, /t/a and /t/sub/secret 0644 and 0600, /t/run.sh 0755. */
    private static FakeHost tree() {
        return new FakeHost().directory("/t").file("/t/a", "a", "0644", "root", "root")
                .file("/t/run.sh", "#!/bin/sh", "0755", "root", "root").directory("/t/sub", "0750", "root", "root")
                .file("/t/sub/secret", "k", "0600", "root", "root");
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void attributeChangeCarriesADiffOfTheAttributes() throws Exception {
        FakeHost host = new FakeHost().file("/etc/x", "a", "0644", "root", "root");
        Plan plan = module.plan(module.params().validate(Args.of("path", "/etc/x", "mode", "0600", "owner", "root")),
                new FakeContext(host, controller));
        assertEquals("set mode 0600 of /etc/x", plan.changes().get(0).summary());
        assertEquals(List.of(new Diff("/etc/x", "mode: 0644\n", "mode: 0600\n")), plan.changes().get(0).diffs());
    }

    @Test
    void absentShowsWhatIsRemoved() throws Exception {
        FakeHost host = new FakeHost().directory("/srv/old");
        Plan plan = module.plan(module.params().validate(Args.of("path", "/srv/old", "state", "absent")),
                new FakeContext(host, controller));
        assertEquals(List.of(new Diff("/srv/old", "state: directory\n", "state: absent\n")), plan.changes().get(0).diffs());
    }
}
