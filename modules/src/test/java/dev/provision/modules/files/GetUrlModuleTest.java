package dev.provision.modules.files;

import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamException;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.Expect;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.text.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * get_url's table: each row a host, the arguments, and what the plan says. A download is drawn as
 * {@code get_url DEST [MODE OWNER GROUP] TOOL:HEX URL CURL-OPTIONS} (the script is always
 * {@link GetUrlModule#SCRIPT}, the values only ever its positional parameters).
 */
class GetUrlModuleTest {
    static final String URL = "https://example.com/dl/tool-1.0.tar.gz";
    static final String BODY = "payload\n";
    static final String SHA = Sha256.hex(BODY.getBytes(StandardCharsets.UTF_8));
    static final String MD5 = "3a9e4e2e6d57d7a8bd9f2d4fde1f6c1b";
    static final String OPTS = "--connect-timeout 10 --speed-limit 1 --speed-time 10";
    static final String AGENT = "user-agent = \"ansible-httpget\"\n";

    private final GetUrlModule module = new GetUrlModule();
    @TempDir
    Path controller;

    static Stream<Arguments> cases() {
        return Stream.of(
                row("missing dest is downloaded", new FakeHost().directory("/opt"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz"),
                        planned("get_url /opt/tool.tgz [- - -] - " + URL + " " + OPTS)),
                row("missing dest with checksum and mode", new FakeHost().directory("/opt"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "checksum", "sha256:" + SHA.toUpperCase(), "mode", "0755"),
                        planned("get_url /opt/tool.tgz [0755 - -] sha256sum:" + SHA + " " + URL + " " + OPTS)),
                row("dest directory takes the URL's last segment", new FakeHost().directory("/opt"),
                        Args.of("url", URL + "?token=1#x", "dest", "/opt"),
                        planned("get_url /opt/tool-1.0.tar.gz [- - -] - " + URL + "?token=1#x " + OPTS)),
                row("dest ending in / takes the URL's last segment", new FakeHost().directory("/opt"),
                        Args.of("url", URL, "dest", "/opt/"),
                        planned("get_url /opt/tool-1.0.tar.gz [- - -] - " + URL + " " + OPTS)),
                row("dest directory and a URL naming no file", new FakeHost().directory("/opt"),
                        Args.of("url", "https://example.com/dl/", "dest", "/opt"),
                        fails("dest /opt is a directory and the URL https://example.com/dl/ names no file")),
                row("checksum matches", new FakeHost().file("/opt/tool.tgz", BODY),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "checksum", "sha256:" + SHA),
                        converged("/opt/tool.tgz matches sha256:" + SHA)),
                row("checksum matches with force: yes", new FakeHost().file("/opt/tool.tgz", BODY),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "checksum", "sha256:" + SHA, "force", true),
                        converged("/opt/tool.tgz matches sha256:" + SHA)),
                row("checksum matches, only the mode differs", new FakeHost().file("/opt/tool.tgz", BODY),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "checksum", "sha256:" + SHA, "mode", "0600"),
                        planned("attrs /opt/tool.tgz [0600 - -]")),
                row("checksum differs: downloaded, attributes kept", new FakeHost().file("/opt/tool.tgz", "old\n", "0640", "app", "adm"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "checksum", "sha256:" + SHA),
                        planned("get_url /opt/tool.tgz [0640 app adm] sha256sum:" + SHA + " " + URL + " " + OPTS)),
                row("md5 is computed by md5sum on the host", new FakeHost().file("/opt/f", "x")
                                .probe(0, MD5 + "  /opt/f\0", "", "md5sum", "-z", "--", "/opt/f"),
                        Args.of("url", URL, "dest", "/opt/f", "checksum", "md5:" + MD5), converged("/opt/f matches md5:" + MD5)),
                row("exists, no checksum, force: no", new FakeHost().file("/opt/tool.tgz", "anything"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz"),
                        converged("/opt/tool.tgz exists (no checksum and force: no, so it is not downloaded again)")),
                row("exists, no checksum, force: no, owner differs", new FakeHost().file("/opt/tool.tgz", "anything"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "owner", "app"), planned("attrs /opt/tool.tgz [- app -]")),
                row("exists, no checksum, force: yes downloads again", new FakeHost().file("/opt/tool.tgz", "anything"),
                        Args.of("url", URL, "dest", "/opt/tool.tgz", "force", "yes"),
                        planned("get_url /opt/tool.tgz [0644 root root] - " + URL + " " + OPTS)),
                row("dest through a symlink writes the file it points to", new FakeHost().file("/opt/real", "old").link("/opt/cur", "real"),
                        Args.of("url", URL, "dest", "/opt/cur", "checksum", "sha256:" + SHA),
                        planned("get_url /opt/real [0644 root root] sha256sum:" + SHA + " " + URL + " " + OPTS)),
                row("dest is a directory's path through a file", new FakeHost().file("/opt", "x"),
                        Args.of("url", URL, "dest", "/opt/tool"), fails("Destination /opt is not a directory")),
                row("dest directory missing", new FakeHost(),
                        Args.of("url", URL, "dest", "/nope/tool"), fails("Destination directory /nope does not exist")),
                row("relative dest", new FakeHost(), Args.of("url", URL, "dest", "tool"), fails("dest must be an absolute path")),
                row("validate_certs: no and use_proxy: no", new FakeHost().directory("/opt"),
                        Args.of("url", URL, "dest", "/opt/t", "validate_certs", false, "use_proxy", "no", "timeout", 30),
                        planned("get_url /opt/t [- - -] - " + URL + " --connect-timeout 30 --speed-limit 1 --speed-time 30 -k --noproxy *")),
                row("ftp and file URLs", new FakeHost().directory("/opt"),
                        Args.of("url", "file:///srv/a.txt", "dest", "/opt/"),
                        planned("get_url /opt/a.txt [- - -] - file:///srv/a.txt " + OPTS)),
                row("scp URL", new FakeHost(), Args.of("url", "scp://h/x", "dest", "/opt/x"),
                        fails("url scp://h/x is not an http, https, ftp or file URL")),
                row("credentials in the URL", new FakeHost(), Args.of("url", "https://u:pw@h/x", "dest", "/opt/x"),
                        fails("url must not carry credentials")),
                row("checksum without a colon", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "checksum", SHA),
                        fails("is not ALGORITHM:HEX")),
                row("checksum of an unknown algorithm", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "checksum", "sha3:" + SHA),
                        fails("checksum algorithm 'sha3' is not one of md5, sha1, sha224, sha256, sha384, sha512")),
                row("checksum of the wrong length", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "checksum", "sha256:abc"),
                        fails("checksum sha256:abc is not 64 hex digits")),
                row("checksum that is not hex", new FakeHost(),
                        Args.of("url", URL, "dest", "/opt/x", "checksum", "sha1:" + "z".repeat(40)), fails("is not 40 hex digits")),
                row("checksum from a URL is refused", new FakeHost(),
                        Args.of("url", URL, "dest", "/opt/x", "checksum", "sha256:https://example.com/SHA256SUMS"),
                        fails("sha256:URL (a checksum file to download) is not supported")),
                row("backup is refused", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "backup", true),
                        fails("parameter 'backup' is not supported")),
                row("tmp_dest is refused", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "tmp_dest", "/var/tmp"),
                        fails("parameter 'tmp_dest' is not supported")),
                row("timeout of zero", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "timeout", 0),
                        fails("timeout must be a positive number of seconds")),
                row("password without username", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "url_password", "pw"),
                        fails("url_password needs url_username")),
                row("header name with a colon", new FakeHost(), Args.of("url", URL, "dest", "/opt/x", "headers", Map.of("A:B", "c")),
                        fails("headers: 'A:B' is not an HTTP header name")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) throws Exception {
        if (expect instanceof Expect.Fails f) {
            Exception e = assertThrows(Exception.class, () -> plan(host, args));
            assertTrue(e instanceof ModuleException || e instanceof ParamException, "unexpected " + e);
            assertTrue(e.getMessage().contains(f.messagePart()), "message was: " + e.getMessage());
            return;
        }
        Plan plan = plan(host, args);
        switch (expect) {
            case Expect.Converged c -> {
                assertEquals(List.of(), describe(plan));
                assertEquals(c.reason(), plan.reason());
            }
            case Expect.Planned p -> assertEquals(p.commands(), describe(plan));
            case Expect.Fails f -> throw new AssertionError("handled above");
        }
    }

    @Test
    void theChangeRunsTheScriptWithEveryValueAsAPositionalParameterAndTheAgentOnStdin() throws Exception {
        Plan plan = plan(new FakeHost().directory("/opt"), Args.of("url", URL, "dest", "/opt/t", "checksum", "sha256:" + SHA,
                "mode", "0750", "owner", "app", "group", "adm"));
        Command.Exec exec = (Command.Exec) plan.changes().getFirst().commands().getFirst();
        assertEquals(List.of("sh", "-c", GetUrlModule.SCRIPT, "get_url", "/opt/t", "sha256sum", SHA, "0750", "app", "adm", URL,
                "--connect-timeout", "10", "--speed-limit", "1", "--speed-time", "10"), exec.argv());
        assertEquals(AGENT, new String(exec.stdin(), StandardCharsets.UTF_8));
        assertEquals("download " + URL + " to /opt/t (mode 0750, owner app, group adm)", plan.changes().getFirst().summary());
        assertFalse(plan.changes().getFirst().sensitive());
    }

    @Test
    void credentialsAndHeadersGoToCurlsStdinOnlyAndTheChangeIsSensitive() throws Exception {
        Plan plan = plan(new FakeHost().file("/opt/t", "old"), Args.of("url", URL, "dest", "/opt/t", "force", true,
                "url_username", "deploy", "url_password", "s3cr\"et\\pw", "headers", Map.of("X-Token", "tok3n")));
        Change change = plan.changes().getFirst();
        assertTrue(change.sensitive());
        Command.Exec exec = (Command.Exec) change.commands().getFirst();
        assertEquals(AGENT + "header = \"X-Token: tok3n\"\nuser = \"deploy:s3cr\\\"et\\\\pw\"\n",
                new String(exec.stdin(), StandardCharsets.UTF_8));
        assertEquals("--anyauth", exec.argv().getLast());
        for (String secret : List.of("s3cr", "tok3n")) {
            assertFalse(change.summary().contains(secret), change.summary());
            for (Diff d : change.diffs()) {
                assertFalse((d.label() + d.before() + d.after()).contains(secret), d.toString());
            }
            exec.argv().forEach(word -> assertFalse(word.contains(secret), word));
            assertFalse(plan.reason().contains(secret));
        }
        Command.Exec basic = (Command.Exec) plan(new FakeHost().directory("/opt"), Args.of("url", URL, "dest", "/opt/t",
                "username", "deploy", "password", "pw", "force_basic_auth", true)).changes().getFirst().commands().getFirst();
        assertEquals("--basic", basic.argv().getLast());
    }

    @Test
    void aLineBreakInACredentialIsRefusedWithoutShowingIt() {
        ModuleException e = assertThrows(ModuleException.class, () -> plan(new FakeHost().directory("/opt"),
                Args.of("url", URL, "dest", "/opt/t", "url_username", "u", "url_password", "pw\nurl = \"http://evil/\"")));
        assertEquals("url_username/url_password must not contain a line break or a NUL character", e.getMessage());
        assertThrows(ModuleException.class, () -> plan(new FakeHost().directory("/opt"),
                Args.of("url", URL, "dest", "/opt/t", "headers", Map.of("X-A", "b\r\nHost: evil"))));
    }

    @Test
    void shellInAUrlOrADestStaysAWordOfItsOwn() throws Exception {
        String url = "https://example.com/$(touch${IFS}/tmp/pwned);`id`|x'\"";
        String dest = "/opt/a'b;$(id)`id`";
        Plan plan = plan(new FakeHost().directory("/opt"), Args.of("url", url, "dest", dest));
        Command.Exec exec = (Command.Exec) plan.changes().getFirst().commands().getFirst();
        assertEquals(GetUrlModule.SCRIPT, exec.argv().get(2), "the script is the constant, nothing interpolated into it");
        assertEquals(dest, exec.argv().get(4));
        assertEquals(url, exec.argv().get(10));
        assertThrows(ModuleException.class, () -> plan(new FakeHost().directory("/opt"),
                Args.of("url", "https://example.com/a b", "dest", "/opt/x")), "a blank would be a second word to curl");
    }

    @Test
    void aDryRunComparesTheForecastContentOfADestAnEarlierTaskWrites() throws Exception {
        FakeHost host = new FakeHost().file("/opt/t", BODY).pending("/opt/t");
        Plan plan = plan(host, Args.of("url", URL, "dest", "/opt/t", "checksum", "sha256:" + SHA));
        assertTrue(plan.isEmpty());
        assertEquals(List.of(), host.probesRun(), "the digest comes from the forecast content, not sha256sum");
    }

    @Test
    void plansNothingOnceTheDownloadIsApplied() throws Exception {
        Map<String, Object> args = Args.of("url", URL, "dest", "/opt/", "checksum", "sha256:" + SHA, "mode", "0600");
        FakeHost host = new FakeHost().directory("/opt");
        Plan first = plan(host, args);
        Command.Exec exec = (Command.Exec) first.changes().getFirst().commands().getFirst();
        host.onExec(exec.argv(), h -> h.file("/opt/tool-1.0.tar.gz", BODY, "0600", "root", "root")).apply(first);
        Plan again = plan(host, args);
        assertTrue(again.isEmpty(), again.toString());
        assertEquals("/opt/tool-1.0.tar.gz matches sha256:" + SHA + ", with mode 0600", again.reason());
    }

    @Test
    void theDescriptionSaysWhatConvergedMeans() {
        assertTrue(module.description().contains("Converged means"));
        module.description().lines().forEach(l -> assertTrue(l.length() <= 100, l));
    }

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    private static Expect planned(String... lines) {
        return Expect.planned(lines);
    }

    private static Expect converged(String reason) {
        return Expect.converged(reason);
    }

    private static Expect fails(String part) {
        return Expect.fails(part);
    }

    /** Every command as a line; the download script drawn by its positional parameters. */
    static List<String> describe(Plan plan) {
        List<String> lines = new ArrayList<>();
        for (Change change : plan.changes()) {
            for (Command command : change.commands()) {
                if (command instanceof Command.Exec e && e.argv().size() > 10 && e.argv().get(2).equals(GetUrlModule.SCRIPT)) {
                    List<String> a = e.argv();
                    String tool = a.get(5).isEmpty() ? "-" : a.get(5) + ":" + a.get(6);
                    lines.add("get_url " + a.get(4) + " [" + dash(a.get(7)) + " " + dash(a.get(8)) + " " + dash(a.get(9)) + "] "
                            + tool + " " + String.join(" ", a.subList(10, a.size())));
                } else {
                    lines.add(Expect.describe(command));
                }
            }
        }
        return lines;
    }

    private static String dash(String s) {
        return s.isEmpty() ? "-" : s;
    }
}
