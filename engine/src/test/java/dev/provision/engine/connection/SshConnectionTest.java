package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The connection contract over a real sshd on 127.0.0.1 (skipped when not root or without sshd). */
class SshConnectionTest extends ConnectionContract {
    @TempDir
    static Path directory;
    private static TestSshd sshd;
    private static SshConnectionFactory factory;

    @BeforeAll
    static void startSshd() throws Exception {
        TestSshd.assumeAvailable();
        sshd = TestSshd.start(directory.resolve("sshd"));
        KnownHostsStore store = new KnownHostsStore(directory.resolve("known_hosts"), KnownHostsStore.Policy.ACCEPT_NEW, Set.of());
        factory = new SshConnectionFactory(store, SshConnectionFactory.Settings.defaults()
                .withPrivateKey(sshd.clientKey)
                .withLocalUser("root", directory.resolve("home")));
    }

    @AfterAll
    static void stopSshd() throws Exception {
        if (factory != null) {
            factory.close();
        }
        if (sshd != null) {
            sshd.stop();
        }
    }

    @Override
    protected Connection openConnection() throws Exception {
        return factory.open("node01", Map.of("ansible_host", "127.0.0.1", "ansible_port", sshd.port));
    }

    @Test
    void openSshCarriesAnUploadOnlyToTheHostKeyThisConnectionVerified() throws Exception {
        assumeTrue(OpenSshUpload.available(), "no OpenSSH client");
        SshConnection ssh = assertInstanceOf(SshConnection.class, connection);
        Path source = java.nio.file.Files.write(directory.resolve("upload.bin"), new byte[] {1, 2, 3});
        java.util.concurrent.CompletableFuture<String> digest = java.util.concurrent.CompletableFuture.completedFuture("d1g3st");
        OpenSshUpload.Target verified = new OpenSshUpload.Target("127.0.0.1", sshd.port, "root", List.of(sshd.clientKey),
                ssh.hostKey(), java.time.Duration.ofSeconds(10), 15, 3);
        ExecResult r = OpenSshUpload.run(verified, "wc -c | tr -d ' '", source, digest, java.time.Duration.ofSeconds(60))
                .orElseThrow();
        assertEquals("10\n", r.stdoutText(), "the bytes, then the digest's line: " + r.stderrText());
        java.security.PublicKey other = ecdsaKey();
        OpenSshUpload.Target impostor = new OpenSshUpload.Target("127.0.0.1", sshd.port, "root", List.of(sshd.clientKey),
                other, java.time.Duration.ofSeconds(10), 15, 3);
        assertEquals(Optional.empty(), OpenSshUpload.run(impostor, "touch /tmp/provision-must-not-run", source, digest,
                java.time.Duration.ofSeconds(60)), "a host whose key is not the verified one gets nothing");
    }

    @Test
    void openSshSendsNoDigestAfterASourceItCouldNotReadWhole() throws Exception {
        assumeTrue(OpenSshUpload.available(), "no OpenSSH client");
        SshConnection ssh = assertInstanceOf(SshConnection.class, connection);
        Path missing = directory.resolve("gone.bin");
        OpenSshUpload.Target target = new OpenSshUpload.Target("127.0.0.1", sshd.port, "root", List.of(sshd.clientKey),
                ssh.hostKey(), java.time.Duration.ofSeconds(10), 15, 3);
        ExecResult r = OpenSshUpload.run(target, "wc -c | tr -d ' '", missing,
                java.util.concurrent.CompletableFuture.completedFuture("d1g3st"), java.time.Duration.ofSeconds(60)).orElseThrow();
        assertEquals("0\n", r.stdoutText(), "the script sees its input end where the file could not be read: " + r.stderrText());
    }

    @Test
    void aesComesFirstOnlyWhereTheCpuHasItsInstructions() throws Exception {
        Path x86 = java.nio.file.Files.writeString(directory.resolve("x86"),
                "processor\t: 0\nflags\t\t: fpu vme sse2 ssse3 fma aes xsave avx sha_ni\n");
        Path arm = java.nio.file.Files.writeString(directory.resolve("arm"),
                "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32\n");
        Path none = java.nio.file.Files.writeString(directory.resolve("none"),
                "processor\t: 0\nflags\t\t: fpu vme sse2 aes_like vaes_x\nmodel name\t: has aes in its name\n");
        assertTrue(OpenSshUpload.hasAesInstructions(x86));
        assertTrue(OpenSshUpload.hasAesInstructions(arm));
        assertFalse(OpenSshUpload.hasAesInstructions(none));
        assertFalse(OpenSshUpload.hasAesInstructions(directory.resolve("absent")));
    }

    private static java.security.PublicKey ecdsaKey() throws Exception {
        java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair().getPublic();
    }

    @Test
    void opensAnSshConnectionThatVerifiedTheServersHostKey() throws Exception {
        SshConnection ssh = assertInstanceOf(SshConnection.class, connection);
        assertEquals(sshd.hostKeyLine(), KnownHostsStore.openSshKey(ssh.hostKey()));
        assertEquals("node01", ssh.hostName());
        assertEquals("root\n", run("id -un"));
    }

    @Test
    void runsMoreConcurrentCommandsThanTheServerAllowsSessions() throws Exception {
        // sshd allows 10 sessions per connection (MaxSessions); 30 at once must queue, not fail.
        var pool = java.util.concurrent.Executors.newFixedThreadPool(30);
        try {
            var results = new java.util.ArrayList<java.util.concurrent.Future<ExecResult>>();
            for (int i = 0; i < 30; i++) {
                results.add(pool.submit(() -> connection.exec(ExecRequest.shell("sleep 0.3; echo ok"))));
            }
            for (var result : results) {
                assertEquals("ok\n", result.get().stdoutText());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCommandsInputWaitsInAFileOnlyItsOwnerCanRead() throws Exception {
        // The input may be a become password: the file it waits in on the host is 0600, never 0644.
        ExecResult result = connection.exec(ExecRequest.shell("stat -L -c %a /proc/self/fd/0; cat").withStdin("secret\n".getBytes()));
        assertEquals("600\nsecret\n", result.stdoutText());
    }

    @Test
    void aDeadShellsWorkDirectoryIsRemovedByTheNextShell() throws Exception {
        String stale = run("d=$(mktemp -d /tmp/provision.XXXXXXXX); echo 999999999 > \"$d/pid\"; echo \"$d\"").strip();
        SshConnection ssh = assertInstanceOf(SshConnection.class, connection);
        // a second shell starts while the first is busy, and cleans up on its way
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var busy = pool.submit(() -> connection.exec(ExecRequest.shell("sleep 1")));
            Thread.sleep(200);
            run("true");
            busy.get();
        } finally {
            pool.shutdown();
        }
        assertEquals("gone\n", run("[ -e " + stale + " ] && echo there || echo gone"), ssh.toString());
    }

    @Test
    void anAnswerArrivesWhenItsFramingCannotBeAppendedToTheOutputFile() throws Exception {
        // As a full /tmp would refuse the append: the command makes its shell's output file a
        // directory (for a second; a child puts it back). The framing must still arrive, not hang.
        String command = "for d in /tmp/provision.*; do [ \"$(cat \"$d/pid\" 2>/dev/null)\" = \"$PPID\" ] || continue;"
                + " rm -f \"$d/o\"; mkdir \"$d/o\"; ( sleep 1; rmdir \"$d/o\" ) >/dev/null 2>&1 & done; exit 7";
        long start = System.nanoTime();
        ExecResult result = connection.exec(ExecRequest.shell(command).withTimeout(java.time.Duration.ofSeconds(30)));
        assertEquals(7, result.exitCode());
        assertTrue(java.time.Duration.ofNanos(System.nanoTime() - start).toSeconds() < 10, "the answer waited for its time limit");
        Thread.sleep(1500);
        assertEquals("ok\n", run("echo ok"));
    }

    @Test
    void reportsTheExitOfACommandKilledByASignalAsAShellWould() throws Exception {
        ExecResult result = connection.exec(ExecRequest.shell("kill -TERM $$"));
        assertEquals(128 + 15, result.exitCode());
        assertTrue(result.stdoutText().isEmpty());
    }

    @Test
    void runsConsecutiveCommandsInOneLongLivedShellNotAnSshdSessionEach() throws Exception {
        String first = run("echo $PPID; tr '\\0' ' ' </proc/$PPID/cmdline");
        String second = run("echo $PPID");
        assertEquals(first.lines().findFirst().orElseThrow(), second.strip(), "the same shell started both");
        assertTrue(first.contains("/bin/sh -s"), first);
    }

    @Test
    void returnsWhenTheCommandEndsEvenIfItLeftAChildRunning() throws Exception {
        long start = System.nanoTime();
        ExecResult result = connection.exec(ExecRequest.shell("sleep 20 & echo started"));
        assertEquals("started\n", result.stdoutText());
        assertTrue(java.time.Duration.ofNanos(System.nanoTime() - start).toSeconds() < 10, "did not wait for the child");
        assertEquals("next\n", run("echo next"), "the shell serves the next command");
    }
}
