package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The test key was made with {@code gpg --quick-gen-key "Provision Test <test@example.invalid>" rsa1024}
 * in a throw-away GNUPGHOME; {@code gpg --show-keys --with-colons} of its export says
 * {@code pub:...:EFBD4AD3DFB7C51A:1796428024:...} and {@code fpr:...:C850EB640371EA5D9BF60898EFBD4AD3DFB7C51A:}.
 */
class RpmKeyModuleTest extends ModuleTableTest<RpmKeyModule> {
    static final String ARMORED = """
-----BEGIN PGP PUBLIC KEY BLOCK-----

mI0EaxNQ+AEEAMiNid68okGJcGwwU3IwE7ig3SsOB8aj+tt1UAF4w07p5DYBZOS7
RXWnvkebdjFegIXeg+VmrpJUgs8YvR9UosABVrCvTOiBeeOXaI3FtnPMdnL/PPx6
p8CS/rk/K4SKUVW9Xx3mItPJlWBWvspi7GVNX45AT1HNu2HEzZ2WXiXjABEBAAG0
JVByb3Zpc2lvbiBUZXN0IDx0ZXN0QGV4YW1wbGUuaW52YWxpZD6IzgQTAQoAOBYh
BMhQ62QDcepdm/YImO+9StPft8UaBQJrE1D4AhsDBQsJCAcCBhUKCQgLAgQWAgMB
Ah4BAheAAAoJEO+9StPft8Ua5CEEALpPU0sq2eN7hzGdJAYzmvBlXtlL6pJfL4ye
DVm+Xq8f3UyX2OG+J3AwdsPQEtW8tTPuEYIVqZTV4R2EdJUg4d6mVKM6yUVoIEKj
vhsmOPzqJLVeOZl1/76ar4W01ZixqIzG/SMAijgWqbNoFXo5edYVryCdsojl77dC
Mn5oa4Xy
=Cjp0
-----END PGP PUBLIC KEY BLOCK-----
""";
    static final byte[] BINARY = Base64.getDecoder().decode("mI0EaxNQ+AEEAMiNid68okGJcGwwU3IwE7ig3SsOB8aj+tt1UAF4w07p5DYBZOS7RXWnvkebdjFegIXeg+VmrpJUgs8YvR9UosABVrCvTOiBeeOXaI3FtnPMdnL/PPx6p8CS/rk/K4SKUVW9Xx3mItPJlWBWvspi7GVNX45AT1HNu2HEzZ2WXiXjABEBAAG0JVByb3Zpc2lvbiBUZXN0IDx0ZXN0QGV4YW1wbGUuaW52YWxpZD6IzgQTAQoAOBYhBMhQ62QDcepdm/YImO+9StPft8UaBQJrE1D4AhsDBQsJCAcCBhUKCQgLAgQWAgMBAh4BAheAAAoJEO+9StPft8Ua5CEEALpPU0sq2eN7hzGdJAYzmvBlXtlL6pJfL4yeDVm+Xq8f3UyX2OG+J3AwdsPQEtW8tTPuEYIVqZTV4R2EdJUg4d6mVKM6yUVoIEKjvhsmOPzqJLVeOZl1/76ar4W01ZixqIzG/SMAijgWqbNoFXo5edYVryCdsojl77dCMn5oa4Xy");
    private static final String FPR = "C850EB640371EA5D9BF60898EFBD4AD3DFB7C51A";
    private static final String URL = "https://repo.example.com/RPM-GPG-KEY-test";
    private static final List<String> CURL = List.of("curl", "-fsSL", "--max-time", "60", "--proto", "=http,https", URL);
    private static final String OTHER = "fd431d51-4ae0493b\n";

    RpmKeyModuleTest() {
        super(new RpmKeyModule());
    }

    /** A host whose rpm lists {@code keys} ({@code VERSION-RELEASE} lines; none: rpm says so). */
    private static FakeHost rpm(String keys) {
        FakeHost host = new FakeHost();
        host.probe(RpmKeyModule.QUERY, keys.isEmpty() ? new ProbeResult(1, "package gpg-pubkey is not installed\n", "")
                : new ProbeResult(0, keys, ""));
        host.onExec(List.of("rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-test"),
                h -> h.probe(RpmKeyModule.QUERY, new ProbeResult(0, keys + "dfb7c51a-6b1350f8\n", "")));
        host.onExec(List.of("rpm", "--import", "/tmp/provision-rpm-key-dfb7c51a.asc"),
                h -> h.probe(RpmKeyModule.QUERY, new ProbeResult(0, keys + "dfb7c51a-6b1350f8\n", "")));
        host.onExec(List.of("rpm", "--erase", "--allmatches", "gpg-pubkey-dfb7c51a"),
                h -> h.probe(RpmKeyModule.QUERY, keys.replace("dfb7c51a-6b1350f8\n", "").isEmpty()
                        ? new ProbeResult(1, "package gpg-pubkey is not installed\n", "")
                        : new ProbeResult(0, keys.replace("dfb7c51a-6b1350f8\n", ""), "")));
        return host;
    }

    private static FakeHost withFile(String keys) {
        return rpm(keys).file("/etc/pki/rpm-gpg/RPM-GPG-KEY-test", ARMORED);
    }

    private static FakeHost withUrl(String keys) {
        return rpm(keys).probe(0, ARMORED, "", CURL.toArray(String[]::new));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("a path: imported where it is", withFile(OTHER), Args.of("key", "/etc/pki/rpm-gpg/RPM-GPG-KEY-test"),
                        planned("exec [rpm, --import, /etc/pki/rpm-gpg/RPM-GPG-KEY-test]")),
                row("a path already imported", withFile(OTHER + "dfb7c51a-6b1350f8\n"), Args.of("key", "/etc/pki/rpm-gpg/RPM-GPG-KEY-test"),
                        converged("key dfb7c51a is imported (gpg-pubkey-dfb7c51a)")),
                row("a URL: the checked bytes imported, then removed", withUrl(""), Args.of("key", URL, "fingerprint",
                                "C850 EB64 0371 EA5D 9BF6  0898 EFBD 4AD3 DFB7 C51A"),
                        planned("put /tmp/provision-rpm-key-dfb7c51a.asc [0600 - -] \"" + ARMORED.replace("\n", "\\n") + "\"",
                                "exec [rpm, --import, /tmp/provision-rpm-key-dfb7c51a.asc]", "remove /tmp/provision-rpm-key-dfb7c51a.asc")),
                row("a URL already imported", withUrl("dfb7c51a-6b1350f8\n"), Args.of("key", URL),
                        converged("key dfb7c51a is imported (gpg-pubkey-dfb7c51a)")),
                row("absent by key id", rpm(OTHER + "dfb7c51a-6b1350f8\n"), Args.of("key", "0xEFBD4AD3DFB7C51A", "state", "absent"),
                        planned("exec [rpm, --erase, --allmatches, gpg-pubkey-dfb7c51a]")),
                row("absent by path", withFile("dfb7c51a-6b1350f8\n"), Args.of("key", "/etc/pki/rpm-gpg/RPM-GPG-KEY-test", "state", "absent"),
                        planned("exec [rpm, --erase, --allmatches, gpg-pubkey-dfb7c51a]")),
                row("absent and not imported", rpm(OTHER), Args.of("key", "DFB7C51A", "state", "absent"),
                        converged("no key dfb7c51a is imported (gpg-pubkey-dfb7c51a is not installed)")),
                row("a key id present when imported", rpm("dfb7c51a-6b1350f8\n"), Args.of("key", FPR),
                        converged("key dfb7c51a is imported (gpg-pubkey-dfb7c51a)")),
                row("a key id cannot import", rpm(OTHER), Args.of("key", "DFB7C51A"), fails("a valid file must be given")),
                row("a wrong fingerprint", withUrl(""), Args.of("key", URL, "fingerprint", "0000" + FPR.substring(4)),
                        fails("does not match the key fingerprint '" + FPR + "'")),
                row("a URL that is not a key", rpm("").probe(0, "<html>not found</html>", "", CURL.toArray(String[]::new)),
                        Args.of("key", URL), fails("Not a public key: " + URL)),
                row("a URL that fails", rpm("").probe(22, "", "curl: (22) The requested URL returned error: 404", CURL.toArray(String[]::new)),
                        Args.of("key", URL), fails("error: 404")),
                row("a missing file", rpm(""), Args.of("key", "/nonexistent"), fails("Not a valid key /nonexistent")),
                row("a file that is not a key", rpm("").file("/etc/motd", "hello\n"), Args.of("key", "/etc/motd"),
                        fails("not an OpenPGP public key")),
                row("a relative path", rpm(""), Args.of("key", "RPM-GPG-KEY"), fails("absolute path")),
                row("ftp is not fetched", rpm(""), Args.of("key", "ftp://x/key"), fails("only http:// and https://")),
                row("a shell word stays one argument", rpm("").file("/tmp/k; reboot", ARMORED), Args.of("key", "/tmp/k; reboot"),
                        planned("exec [rpm, --import, /tmp/k; reboot]")));
    }

    static Stream<Arguments> plannedCases() {
        return Stream.of(cases().toArray(Arguments[]::new))
                .filter(a -> !((String) a.get()[0]).startsWith("a shell word"))
                .filter(a -> a.get()[a.get().length - 1] instanceof dev.provision.modules.testing.Expect.Planned);
    }

    @Test
    void readsTheKeyAsGpgDoes() {
        OpenPgpKey armored = OpenPgpKey.parse(ARMORED.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(FPR, armored.fingerprint());
        assertEquals("EFBD4AD3DFB7C51A", armored.keyId());
        assertEquals(1796428024L, armored.created());
        assertEquals("dfb7c51a", armored.rpmVersion());
        assertEquals("6b1350f8", armored.rpmRelease());
        assertEquals(armored, OpenPgpKey.parse(BINARY));
    }

    @Test
    void theDryRunKnowsWhatRpmListsAfterwards() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("key", URL)), new FakeContext(withUrl(OTHER), controller));
        assertEquals(new ProbeResult(0, OTHER + "dfb7c51a-6b1350f8\n", ""), plan.afterwards().get(RpmKeyModule.QUERY));
    }
}
