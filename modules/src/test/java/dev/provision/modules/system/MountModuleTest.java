package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class MountModuleTest extends ModuleTableTest<MountModule> {
    private static final String ROOT = "UUID=abc / ext4 errors=remount-ro 0 1\n";
    private static final String NFS_LINE = "10.213.0.1:/srv/data /data nfs vers=4.2,hard 0 0\n";

    MountModuleTest() {
        super(new MountModule());
    }

    private static String[] findmnt(String path) {
        return new String[] {"findmnt", "-n", "-r", "-o", "SOURCE,FSTYPE,OPTIONS", "--mountpoint", path};
    }

    private static void mountedAs(FakeHost host, String path, String source, String fstype) {
        host.probe(0, source + " " + fstype + " rw,relatime\n", "", findmnt(path));
    }

    private static void notMounted(FakeHost host, String path) {
        host.probe(1, "", "", findmnt(path));
    }

    /** A host where mount and umount change what findmnt says; {@code source} is what mount would mount. */
    static FakeHost host(String fstab, String path, String mountedSource, String mountedType, String source, String fstype) {
        FakeHost host = new FakeHost().file("/etc/fstab", fstab);
        if (mountedSource == null) {
            notMounted(host, path);
        } else {
            mountedAs(host, path, mountedSource, mountedType);
            host.directory(path);
        }
        host.onExec(List.of("mount", path), h -> mountedAs(h, path, source, fstype));
        host.onExec(List.of("umount", path), h -> notMounted(h, path));
        return host;
    }

    private static Map<String, Object> nfs(String state) {
        return Args.of("path", "/data", "src", "10.213.0.1:/srv/data", "fstype", "nfs", "opts", "vers=4.2,hard", "state", state);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("mounted: fresh", host(ROOT, "/data", null, null, "10.213.0.1:/srv/data", "nfs4"), nfs("mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT + NFS_LINE) + "\"", "mkdir /data [- - -]", "exec [mount, /data]")),
                row("mounted: converged", host(ROOT + NFS_LINE, "/data", "10.213.0.1:/srv/data", "nfs4", "10.213.0.1:/srv/data", "nfs4"), nfs("mounted"),
                        converged("/etc/fstab has the line for /data; /data is mounted from 10.213.0.1:/srv/data")),
                row("mounted: the line written with tabs is kept", host(ROOT + "10.213.0.1:/srv/data\t/data\tnfs\tvers=4.2,hard\t0\t0\n", "/data",
                                "10.213.0.1:/srv/data", "nfs", "10.213.0.1:/srv/data", "nfs"), nfs("mounted"),
                        converged("/etc/fstab has the line for /data; /data is mounted from 10.213.0.1:/srv/data")),
                row("mounted: unmounted by drift", host(ROOT + NFS_LINE, "/data", null, null, "10.213.0.1:/srv/data", "nfs4").directory("/data"),
                        nfs("mounted"), planned("exec [mount, /data]")),
                row("mounted: options changed remounts", host(ROOT + "10.213.0.1:/srv/data /data nfs defaults 0 0\n", "/data",
                                "10.213.0.1:/srv/data", "nfs4", "10.213.0.1:/srv/data", "nfs4"), nfs("mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT + NFS_LINE) + "\"", "exec [mount, -o, remount, /data]")),
                row("mounted: another source is unmounted first", host(ROOT + "old:/x /data nfs defaults 0 0\n", "/data", "old:/x", "nfs",
                                "10.213.0.1:/srv/data", "nfs4"), nfs("mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT + NFS_LINE) + "\"", "exec [umount, /data]", "exec [mount, /data]")),
                row("mounted: duplicates for the path are removed", host(ROOT + NFS_LINE + "other:/y /data nfs defaults 0 0\n", "/data",
                                "10.213.0.1:/srv/data", "nfs4", "10.213.0.1:/srv/data", "nfs4"), nfs("mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT + NFS_LINE) + "\"", "exec [mount, -o, remount, /data]")),
                row("mounted: bind", host(ROOT, "/scratch", null, null, "/dev/sda1[/srv/scratch]", "ext4"),
                        Args.of("path", "/scratch", "src", "/srv/scratch", "fstype", "bind", "state", "mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT) + "/srv/scratch /scratch none bind 0 0\\n\"",
                                "mkdir /scratch [- - -]", "exec [mount, /scratch]")),
                row("mounted: sshfs with a space in the path", host(ROOT, "/mnt/shared data", null, null, "root@10.213.0.1:/srv/x", "fuse.sshfs"),
                        Args.of("path", "/mnt/shared data", "src", "root@10.213.0.1:/srv/x", "fstype", "fuse.sshfs",
                                "opts", "allow_other,_netdev", "state", "mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT) + "root@10.213.0.1:/srv/x /mnt/shared\\040data fuse.sshfs allow_other,_netdev 0 0\\n\"",
                                "mkdir /mnt/shared data [- - -]", "exec [mount, /mnt/shared data]")),
                row("mounted: juicefs source is not compared", host(ROOT + "redis://10.213.0.1/1 /jfs fuse.juicefs _netdev 0 0\n", "/jfs",
                                "JuiceFS:vol", "fuse.juicefs", "JuiceFS:vol", "fuse.juicefs"),
                        Args.of("path", "/jfs", "src", "redis://10.213.0.1/1", "fstype", "fuse.juicefs", "opts", "_netdev", "state", "mounted"),
                        converged("/etc/fstab has the line for /jfs; /jfs is mounted from JuiceFS:vol")),
                row("present: fstab only", host(ROOT, "/data", null, null, "x", "nfs"), nfs("present"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT + NFS_LINE) + "\"")),
                row("tmpfs with size", host(ROOT, "/dev/shm2", null, null, "tmpfs", "tmpfs"),
                        Args.of("path", "/dev/shm2", "src", "tmpfs", "fstype", "tmpfs", "opts", "size=8g,mode=1777", "state", "mounted"),
                        planned("put /etc/fstab [0644 root root] \"" + esc(ROOT) + "tmpfs /dev/shm2 tmpfs size=8g,mode=1777 0 0\\n\"",
                                "mkdir /dev/shm2 [- - -]", "exec [mount, /dev/shm2]")),
                row("unmounted", host(ROOT + NFS_LINE, "/data", "10.213.0.1:/srv/data", "nfs4", "x", "nfs"), nfs("unmounted"),
                        planned("exec [umount, /data]")),
                row("unmounted already", host(ROOT + NFS_LINE, "/data", null, null, "x", "nfs"), nfs("unmounted"), converged("/data is not mounted")),
                row("absent: unmount and remove the line", host(ROOT + NFS_LINE, "/data", "10.213.0.1:/srv/data", "nfs4", "x", "nfs"),
                        Args.of("path", "/data", "state", "absent"),
                        planned("exec [umount, /data]", "put /etc/fstab [0644 root root] \"" + esc(ROOT) + "\"")),
                row("absent already", host(ROOT, "/data", null, null, "x", "nfs"), Args.of("path", "/data/", "state", "absent"),
                        converged("/data is not mounted; /etc/fstab has no line for /data")),
                row("src required", host(ROOT, "/data", null, null, "x", "nfs"), Args.of("path", "/data", "fstype", "nfs", "state", "mounted"),
                        fails("src is required with state=mounted")),
                row("state required", host(ROOT, "/data", null, null, "x", "nfs"), Args.of("path", "/data"), fails("missing required parameter 'state'")),
                row("an fstype that is shell", host(ROOT, "/data", null, null, "x", "nfs"),
                        Args.of("path", "/data", "src", "tmpfs", "fstype", "tmpfs; touch x", "state", "present"),
                        fails("fstype 'tmpfs; touch x' is not a file system type")),
                row("a src with a blank", host(ROOT, "/data", null, null, "x", "nfs"),
                        Args.of("path", "/data", "src", "host:/a b", "fstype", "nfs", "state", "present"),
                        fails("src and opts are fstab fields and cannot hold blanks")),
                row("relative path", host(ROOT, "data", null, null, "x", "nfs"), Args.of("path", "data", "state", "unmounted"),
                        fails("must be absolute paths")),
                row("findmnt fails", new FakeHost().file("/etc/fstab", ROOT).probe(2, "", "findmnt: boom", findmnt("/data")),
                        nfs("mounted"), fails("findmnt failed for /data (exit 2): findmnt: boom")));
    }

    private static String esc(String s) {
        return s.replace("\n", "\\n");
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void remountedIsAnActionThatAlwaysPlans() throws Exception {
        FakeHost host = host(ROOT + NFS_LINE, "/data", "10.213.0.1:/srv/data", "nfs4", "10.213.0.1:/srv/data", "nfs4");
        FakeContext context = new FakeContext(host, controller);
        Plan plan = module.plan(module.params().validate(nfs("remounted")), context);
        assertEquals(List.of("exec [mount, -o, remount, /data]"), Expect.describe(plan));
        host.apply(plan);
        assertFalse(module.plan(module.params().validate(nfs("remounted")), context).isEmpty());
    }

    @Test
    void fstabIsWrittenBeforeTheMountThatReadsIt() throws Exception {
        Plan plan = module.plan(module.params().validate(nfs("mounted")),
                new FakeContext(host(ROOT, "/data", null, null, "x", "nfs"), controller));
        assertEquals("add /data to /etc/fstab", plan.changes().getFirst().summary());
        assertEquals("mount /data", plan.changes().getLast().summary());
    }

    @Test
    void fstabFieldsEscapeBlanksAndBackslashes() {
        assertEquals("/mnt/a\\040b\\011c\\134d", MountModule.escape("/mnt/a b\tc\\d"));
        assertEquals("/mnt/a b\tc\\d", MountModule.unescape("/mnt/a\\040b\\011c\\134d"));
    }
}
