package dev.provision.modules.files;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StatModuleTest {
    // What the probe printed on Debian 12 (coreutils 9.1, file 5.44, e2fsprogs 1.47) for a file
    // with "hello\n", mode 0640, a relative symlink to it, and their directory.
    static final String FILE = "81a0 0 0 6 2203728 65024 1 8 4096 0 0 1796256231.852238429 1796256231.852238429 1796256231.862446578\n"
            + "root\nroot\naccess rw-\nchecksum f572d396fae9206628714fb2ce00f72e94f2258f\nmime text/plain; charset=us-ascii\n"
            + "attributes 1901668409 --------------e------- /srv/h/f\n";
    static final String LINK = "a1ff 0 0 1 2203729 65024 1 0 4096 0 0 1796256231.854446578 1796256231.854446578 1796256231.854446578\n"
            + "root\nroot\naccess rw-\nmime inode/symlink; charset=binary\nsource /srv/h/f\ntarget f\n";
    static final String DIRECTORY = "41ed 0 0 4096 2203727 65024 2 8 4096 0 0 1796256231.852238429 1796256231.854446578 1796256231.854446578\n"
            + "root\nroot\naccess rwx\nmime inode/directory; charset=binary\nattributes 2770101937 --------------e------- /srv/h\n";
    static final String DEVICE = "21b6 0 0 0 3 6 1 0 4096 1 3 1796205692.979184926 1796205692.979184926 1796205692.979184926\n"
            + "root\nroot\naccess rw-\nmime inode/chardevice; charset=binary\n";
    /** A file owned by ids without names (stat prints UNKNOWN), without file and lsattr. */
    static final String NAMELESS = "81a4 4242 4343 6 2203728 65024 1 8 4096 0 0 1.5 2.5 3.5\nUNKNOWN\nUNKNOWN\naccess r--\nmime unknown\n";

    private final StatModule module = new StatModule();
    @TempDir
    Path controller;

    /** A host whose stat probe for these options prints {@code out} with exit {@code exit}. */
    static FakeHost answering(String path, boolean follow, String algorithm, int exit, String out, String err) {
        return new FakeHost().probe(StatOutput.probe(path, follow, algorithm, true, true, false),
                new dev.provision.modules.spi.ProbeResult(exit, out, err));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("regular file", answering("/srv/h/f", false, "sha1", 0, FILE, ""), Args.of("path", "/srv/h/f"),
                        converged("/srv/h/f is a regular file, mode 0640, root:root, 6 bytes")),
                row("missing path", answering("/srv/none", false, "sha1", 3, "", ""), Args.of("path", "/srv/none"),
                        converged("/srv/none does not exist")),
                row("symlink, not followed", answering("/srv/h/l", false, "sha1", 0, LINK, ""), Args.of("path", "/srv/h/l"),
                        converged("/srv/h/l is a symlink to f, mode 0777, root:root, 1 bytes")),
                row("symlink followed", answering("/srv/h/l", true, "sha1", 0, FILE, ""), Args.of("path", "/srv/h/l", "follow", true),
                        converged("/srv/h/l is a regular file, mode 0640, root:root, 6 bytes")),
                row("directory, alias dest", answering("/srv/h", false, "sha1", 0, DIRECTORY, ""), Args.of("dest", "/srv/h"),
                        converged("/srv/h is a directory, mode 0755, root:root, 4096 bytes")),
                row("character device", answering("/dev/null", false, "sha1", 0, DEVICE, ""), Args.of("path", "/dev/null"),
                        converged("/dev/null is a character device, mode 0666, root:root, 0 bytes")),
                row("ids without names", answering("/srv/f", false, "sha1", 0, NAMELESS, ""), Args.of("name", "/srv/f"),
                        converged("/srv/f is a regular file, mode 0644, 4242:4343, 6 bytes")),
                row("no checksum asked: the algorithm is left empty", answering("/srv/h/f", false, "", 0, FILE.replaceAll("checksum .*\n", ""), ""),
                        Args.of("path", "/srv/h/f", "get_checksum", false), converged("/srv/h/f is a regular file, mode 0640, root:root, 6 bytes")),
                row("another checksum algorithm, by its alias", answering("/srv/h/f", false, "sha256", 0, FILE, ""),
                        Args.of("path", "/srv/h/f", "checksum_algo", "sha256"), converged("/srv/h/f is a regular file, mode 0640, root:root, 6 bytes")),
                // errors
                row("not a directory fails, as in Ansible", answering("/etc/passwd/x", false, "sha1", 1, "",
                        "stat: cannot statx '/etc/passwd/x': Not a directory\n"), Args.of("path", "/etc/passwd/x"),
                        fails("cannot stat /etc/passwd/x: stat: cannot statx '/etc/passwd/x': Not a directory")),
                row("output that is not the probe's", answering("/srv/f", false, "sha1", 0, "busybox says hi\n", ""), Args.of("path", "/srv/f"),
                        fails("cannot stat /srv/f: stat printed too little")),
                row("relative path", new FakeHost(), Args.of("path", "etc/passwd"), fails("path must be an absolute path, got 'etc/passwd'")),
                row("missing path parameter", new FakeHost(), Args.of("follow", true), fails("missing required parameter 'path'")),
                row("unknown parameter", new FakeHost(), Args.of("path", "/x", "get_sha", true),
                        fails("unsupported parameter 'get_sha'")),
                row("unknown algorithm", new FakeHost(), Args.of("path", "/x", "checksum_algorithm", "crc32"),
                        fails("must be one of: md5, sha1, sha224, sha256, sha384, sha512")),
                row("follow that is no boolean", new FakeHost(), Args.of("path", "/x", "follow", "sometimes"),
                        fails("parameter 'follow' must be a boolean")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plansNothingAndDescribes(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Plan plan = Expect.check(module, new FakeContext(host, controller), args, expect);
        if (plan != null) {
            assertTrue(plan.isEmpty(), "stat never changes anything");
            assertTrue(plan.result().get("stat") instanceof Map, "the result holds stat");
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> stat(FakeHost host, Map<String, Object> args) throws Exception {
        Plan plan = module.plan(module.params().validate(args), new FakeContext(host, controller));
        return (Map<String, Object>) plan.result().get("stat");
    }

    @Test
    void aRegularFileHasAnsiblesKeysAndTypes() throws Exception {
        Map<String, Object> st = stat(answering("/srv/h/f", false, "sha1", 0, FILE, ""), Args.of("path", "/srv/h/f"));
        assertEquals(true, st.get("exists"));
        assertEquals("/srv/h/f", st.get("path"));
        assertEquals("0640", st.get("mode"));
        assertEquals(true, st.get("isreg"));
        assertEquals(false, st.get("isdir"));
        assertEquals(false, st.get("islnk"));
        assertEquals(0L, st.get("uid"));
        assertEquals(0L, st.get("gid"));
        assertEquals("root", st.get("pw_name"));
        assertEquals("root", st.get("gr_name"));
        assertEquals(6L, st.get("size"));
        assertEquals(2203728L, st.get("inode"));
        assertEquals(65024L, st.get("dev"));
        assertEquals(1L, st.get("nlink"));
        assertEquals(8L, st.get("blocks"));
        assertEquals(4096L, st.get("block_size"));
        assertEquals(0L, st.get("device_type"));
        assertEquals(1796256231.852238429, (Double) st.get("mtime"), 1e-6);
        assertEquals(1796256231.862446578, (Double) st.get("ctime"), 1e-6);
        assertEquals("f572d396fae9206628714fb2ce00f72e94f2258f", st.get("checksum"));
        assertEquals(List.of(true, true, false, true, false, false, false, false, false),
                Stream.of("rusr", "wusr", "xusr", "rgrp", "wgrp", "xgrp", "roth", "woth", "xoth").map(st::get).toList());
        assertEquals(false, st.get("isuid"));
        assertEquals(true, st.get("readable"));
        assertEquals(true, st.get("writeable"));
        assertEquals(false, st.get("executable"));
        assertEquals("text/plain", st.get("mimetype"));
        assertEquals("us-ascii", st.get("charset"));
        assertEquals("1901668409", st.get("version"));
        assertEquals("e", st.get("attr_flags"));
        assertEquals(List.of("extents"), st.get("attributes"));
        assertFalse(st.containsKey("lnk_source"));
    }

    @Test
    void aMissingPathIsOnlyExistsFalse() throws Exception {
        assertEquals(Map.of("exists", false), stat(answering("/srv/none", false, "sha1", 3, "", ""), Args.of("path", "/srv/none")));
    }

    @Test
    void aLinkHasItsSourceAndTargetAndNoChecksum() throws Exception {
        Map<String, Object> st = stat(answering("/srv/h/l", false, "sha1", 0, LINK, ""), Args.of("path", "/srv/h/l"));
        assertEquals(true, st.get("islnk"));
        assertEquals(false, st.get("isreg"));
        assertEquals("/srv/h/f", st.get("lnk_source"));
        assertEquals("f", st.get("lnk_target"));
        assertEquals("0777", st.get("mode"));
        assertFalse(st.containsKey("checksum"));
        assertEquals(List.of(), st.get("attributes"));
        assertEquals("", st.get("attr_flags"));
        assertFalse(st.containsKey("version"), "Ansible's version: null has no place in a result without nulls");
    }

    @Test
    void aDeviceNumberIsEncodedAsGlibcDoes() throws Exception {
        Map<String, Object> st = stat(answering("/dev/null", false, "sha1", 0, DEVICE, ""), Args.of("path", "/dev/null"));
        assertEquals(true, st.get("ischr"));
        assertEquals(259L, st.get("device_type")); // os.stat('/dev/null').st_rdev
        // Python's os.makedev, which st_rdev follows: disks, NVMe, a large minor, a large major
        assertEquals(List.of(2049L, 66304L, 1048832L, 17592186044419L),
                List.of(StatOutput.makedev(8, 1), StatOutput.makedev(259, 0), StatOutput.makedev(1, 256), StatOutput.makedev(4096, 3)));
    }

    @Test
    void idsWithoutNamesLeaveTheNamesOutAndMimeStaysUnknown() throws Exception {
        Map<String, Object> st = stat(answering("/srv/f", false, "sha1", 0, NAMELESS, ""), Args.of("path", "/srv/f"));
        assertFalse(st.containsKey("pw_name"));
        assertFalse(st.containsKey("gr_name"));
        assertEquals(4242L, st.get("uid"));
        assertEquals("unknown", st.get("mimetype"));
        assertEquals("unknown", st.get("charset"));
        assertEquals(false, st.get("writeable"));
    }

    @Test
    void mimeAndAttributesCanBeLeftOut() throws Exception {
        FakeHost host = new FakeHost().probe(StatOutput.probe("/srv/h/f", false, "sha1", false, false, true),
                new dev.provision.modules.spi.ProbeResult(0, FILE.replaceAll("(mime|attributes) .*\n", "") + "md5 b1946ac92492d2347c6235b4d2611184\n", ""));
        Map<String, Object> st = stat(host, Args.of("path", "/srv/h/f", "get_mime", false, "attr", false, "get_md5", true));
        assertFalse(st.containsKey("mimetype"));
        assertFalse(st.containsKey("attributes"));
        assertEquals("b1946ac92492d2347c6235b4d2611184", st.get("md5"));
    }

    /** The path is a positional parameter of a fixed script: nothing in it is ever shell syntax. */
    @Test
    void aHostilePathOnlyEverTravelsAsAnArgument() throws Exception {
        String path = "/tmp/$(touch /tmp/pwned)`id`;rm -rf / #'\"";
        FakeHost host = answering(path, false, "sha1", 3, "", "");
        module.plan(module.params().validate(Args.of("path", path)), new FakeContext(host, controller));
        List<String> probe = host.probesRun().getFirst();
        assertEquals(List.of("sh", "-c", StatOutput.SCRIPT, "sh", path, "0", "sha1", "1", "1", "0"), probe);
        assertFalse(StatOutput.SCRIPT.contains("pwned"));
    }

    @Test
    void inADryRunAPathAnEarlierTaskWritesIsDescribedFromTheForecast() throws Exception {
        FakeHost host = new FakeHost().file("/etc/app.conf", "hello\n", "0600", "app", "app").pending("/etc/app.conf");
        Plan plan = module.plan(module.params().validate(Args.of("path", "/etc/app.conf")), new FakeContext(host, controller));
        assertEquals("/etc/app.conf is a regular file, mode 0600, app:app, 6 bytes (forecast: an earlier task of this run changes it)",
                plan.reason());
        @SuppressWarnings("unchecked")
        Map<String, Object> st = (Map<String, Object>) plan.result().get("stat");
        assertEquals(true, st.get("exists"));
        assertEquals(true, st.get("isreg"));
        assertEquals("f572d396fae9206628714fb2ce00f72e94f2258f", st.get("checksum"));
        assertFalse(st.containsKey("mtime"), "the forecast does not know the host's times");
        assertEquals(List.of(), host.probesRun(), "nothing is asked of the host that it cannot answer yet");
    }

    @Test
    void inADryRunAPathAnEarlierTaskRemovesDoesNotExist() throws Exception {
        FakeHost host = new FakeHost().pending("/etc/gone.conf");
        assertEquals(Map.of("exists", false), stat(host, Args.of("path", "/etc/gone.conf")));
    }

    @Test
    void inADryRunFollowGoesThroughAForecastLink() throws Exception {
        FakeHost host = new FakeHost().file("/etc/real.conf", "hello\n").link("/etc/app.conf", "real.conf").pending("/etc/app.conf");
        Map<String, Object> st = stat(host, Args.of("path", "/etc/app.conf", "follow", true));
        assertEquals(true, st.get("isreg"));
        Map<String, Object> link = stat(host, Args.of("path", "/etc/app.conf"));
        assertEquals(true, link.get("islnk"));
        assertEquals("real.conf", link.get("lnk_target"));
        assertEquals("/etc/real.conf", link.get("lnk_source"));
    }

    /** The probe script is valid sh, and its output on this machine agrees with what Java sees. */
    @Test
    @EnabledOnOs(OS.LINUX)
    void theProbeRunsUnderShAndAgreesWithTheFileSystem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a file with 'quotes' and $(dollar)");
        Files.writeString(file, "hello\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Path link = dir.resolve("link");
        Files.createSymbolicLink(link, file.getFileName());
        Map<String, Object> f = runProbe(file.toString(), false, "sha256");
        assertEquals(true, f.get("isreg"));
        assertEquals("0640", f.get("mode"));
        assertEquals(6L, f.get("size"));
        assertEquals(StatModule.digest("sha256", "hello\n".getBytes(StandardCharsets.UTF_8)), f.get("checksum"));
        assertEquals(Files.getAttribute(file, "unix:ino"), f.get("inode"));
        assertEquals(((Number) Files.getAttribute(file, "unix:uid")).longValue(), f.get("uid"));
        Map<String, Object> l = runProbe(link.toString(), false, "sha1");
        assertEquals(true, l.get("islnk"));
        assertEquals(file.getFileName().toString(), l.get("lnk_target"));
        assertEquals(file.toRealPath().toString(), l.get("lnk_source"));
        assertFalse(l.containsKey("checksum"));
        Map<String, Object> followed = runProbe(link.toString(), true, "sha1");
        assertEquals(true, followed.get("isreg"));
        assertEquals(StatModule.digest("sha1", "hello\n".getBytes(StandardCharsets.UTF_8)), followed.get("checksum"));
        assertEquals(3, run(dir.resolve("missing").toString(), false, "sha1").exitCode());
        assertEquals(1, run(file + "/below", false, "sha1").exitCode(), "not a directory is an error, not absence");
        Map<String, Object> d = runProbe(dir.toString(), false, "sha1");
        assertEquals(true, d.get("isdir"));
        assertEquals(true, d.get("executable"));
    }

    private static Map<String, Object> runProbe(String path, boolean follow, String algorithm) throws Exception {
        dev.provision.modules.spi.ProbeResult r = run(path, follow, algorithm);
        assertEquals(0, r.exitCode(), r.stderr());
        return StatOutput.parse(path, r.stdout(), true, true);
    }

    private static dev.provision.modules.spi.ProbeResult run(String path, boolean follow, String algorithm) throws Exception {
        Process p = new ProcessBuilder(StatOutput.probe(path, follow, algorithm, true, true, false)).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new dev.provision.modules.spi.ProbeResult(p.waitFor(), out, err);
    }
}
