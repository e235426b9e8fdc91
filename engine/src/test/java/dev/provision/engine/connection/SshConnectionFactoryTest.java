package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Opening connections against real sshd processes: keys, host keys, failures, jump hosts. */
@Timeout(120)
class SshConnectionFactoryTest {
    @TempDir
    Path directory;
    private TestSshd sshd;

    @AfterEach
    void stopSshd() throws Exception {
        if (sshd != null) {
            sshd.stop();
        }
    }

    private Path knownHosts() {
        return directory.resolve("known_hosts");
    }

    private SshConnectionFactory factory(KnownHostsStore.Policy policy, Set<String> replaced, SshConnectionFactory.Settings settings) {
        return new SshConnectionFactory(new KnownHostsStore(knownHosts(), policy, replaced), settings);
    }

    private SshConnectionFactory.Settings settings(Path key) {
        return SshConnectionFactory.Settings.defaults().withPrivateKey(key).withLocalUser("root", directory.resolve("home"));
    }

    private Map<String, Object> vars() {
        return Map.of("ansible_host", "127.0.0.1", "ansible_port", sshd.port);
    }

    private String whoami(SshConnectionFactory factory, Map<String, Object> vars) throws Exception {
        try (Connection connection = factory.open("node01", vars)) {
            return connection.exec(ExecRequest.shell("id -un")).stdoutText().strip();
        }
    }

    @Test
    void detectsAHostKeyThatChangedBetweenRunsAndAcceptsItForAReplacedHost() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        String firstFingerprint = sshd.hostKeyFingerprint();
        try (SshConnectionFactory first = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            assertEquals("root", whoami(first, vars()));
        }
        assertEquals(List.of("[node01]:" + sshd.port + ",[127.0.0.1]:" + sshd.port + " " + sshd.hostKeyLine()),
                Files.readAllLines(knownHosts()));

        sshd.stop();
        sshd.regenerateHostKey();
        sshd.start();
        String newFingerprint = sshd.hostKeyFingerprint();
        try (SshConnectionFactory second = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> second.open("node01", vars()));
            String message = refused.getMessage();
            assertTrue(message.startsWith("host key for node01 (127.0.0.1:" + sshd.port + ") has changed"), message);
            assertTrue(message.contains(firstFingerprint), message);
            assertTrue(message.contains(newFingerprint), message);
            assertTrue(message.contains("--replaced node01"), message);
            assertOneLine(message);
        }

        try (SshConnectionFactory replacing = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of("node01"), settings(sshd.clientKey))) {
            assertEquals("root", whoami(replacing, vars()));
        }
        assertEquals(List.of("[node01]:" + sshd.port + ",[127.0.0.1]:" + sshd.port + " " + sshd.hostKeyLine()),
                Files.readAllLines(knownHosts()));
        try (SshConnectionFactory afterwards = factory(KnownHostsStore.Policy.STRICT, Set.of(), settings(sshd.clientKey))) {
            assertEquals("root", whoami(afterwards, vars()));
        }
    }

    @Test
    void prefersTheRecordedKeyTypeOfAServerWithSeveral() throws Exception {
        sshd = TestSshd.prepare(directory.resolve("sshd"), "rsa");
        sshd.start();
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            assertEquals("root", whoami(factory, vars()));
            assertEquals("ssh-rsa", factory.knownHosts().verifiedKeyType("node01", sshd.port).orElseThrow());
        }
        try (SshConnectionFactory again = factory(KnownHostsStore.Policy.STRICT, Set.of(), settings(sshd.clientKey))) {
            assertEquals("root", whoami(again, vars()));
        }
    }

    @Test
    void strictModeRefusesAnUnknownHost() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.STRICT, Set.of(), settings(sshd.clientKey))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars()));
            assertEquals("host key for node01 (127.0.0.1:" + sshd.port + ") is not known and --strict-host-keys refuses unknown"
                    + " hosts; record it with a run without --strict-host-keys, or add it to " + knownHosts(), refused.getMessage());
        }
        assertFalse(Files.exists(knownHosts()));
    }

    @Test
    void reportsARefusedConnectionOnOneLine() throws Exception {
        TestSshd.assumeAvailable();
        int port = TestSshd.freePort();
        Path key = directory.resolve("key");
        TestSshd.keygen("ed25519", key);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(key))) {
            UnreachableException refused = assertThrows(UnreachableException.class,
                    () -> factory.open("node01", Map.of("ansible_host", "127.0.0.1", "ansible_port", port)));
            assertEquals("ssh: connect to 127.0.0.1:" + port + ": connection refused", refused.getMessage());
        }
    }

    @Test
    void reportsAnUnknownHostName() throws Exception {
        Path key = directory.resolve("key");
        TestSshd.keygen("ed25519", key);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(key))) {
            UnreachableException refused = assertThrows(UnreachableException.class,
                    () -> factory.open("node01", Map.of("ansible_host", "no-such-host.invalid")));
            assertEquals("ssh: connect to no-such-host.invalid:22: could not resolve host name no-such-host.invalid",
                    refused.getMessage());
        }
    }

    @Test
    void reportsAConnectTimeout() throws Exception {
        Path key = directory.resolve("key");
        TestSshd.keygen("ed25519", key);
        // A TEST-NET-1 address (RFC 5737): nothing answers there.
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(),
                settings(key).withConnectTimeout(Duration.ofMillis(300)))) {
            UnreachableException refused = assertThrows(UnreachableException.class,
                    () -> factory.open("node01", Map.of("ansible_host", "192.0.2.1")));
            assertOneLine(refused.getMessage());
            assertTrue(refused.getMessage().startsWith("ssh: connect to 192.0.2.1:22: "), refused.getMessage());
        }
    }

    @Test
    void reportsAKeyTheServerDoesNotAccept() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Path wrong = directory.resolve("home").resolve("wrong_key");
        Files.createDirectories(wrong.getParent());
        TestSshd.keygen("ed25519", wrong);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(wrong))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars()));
            assertEquals("ssh: authentication as root to 127.0.0.1:" + sshd.port + " failed (tried keys: ~/wrong_key)",
                    refused.getMessage());
        }
    }

    @Test
    void usesTheHostsOwnKeyOverTheFactorysKey() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Path wrong = directory.resolve("wrong_key");
        TestSshd.keygen("ed25519", wrong);
        Map<String, Object> vars = new HashMap<>(vars());
        vars.put("ansible_ssh_private_key_file", sshd.clientKey.toString());
        vars.put("ansible_user", "root");
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(wrong))) {
            assertEquals("root", whoami(factory, vars));
        }
    }

    /**
     * A host that hangs (its sshd stopped, the TCP connection open) is lost after the keepalives the
     * host's ssh arguments ask for, not the default 15 s x 3, and the message says which settings
     * decided it and what to set for a host that is only slow.
     */
    @Test
    void aHungHostIsLostAfterTheKeepalivesItsSshArgumentsAskFor() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Map<String, Object> vars = new HashMap<>(vars());
        vars.put("ansible_ssh_common_args", "-o ServerAliveInterval=1 -o ServerAliveCountMax=2");
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey));
             Connection connection = factory.open("node01", vars)) {
            assertEquals("up", connection.exec(ExecRequest.shell("echo up")).stdoutText().strip());
            sshd.signalSessions("STOP");
            long started = System.nanoTime();
            try {
                UnreachableException lost = assertThrows(UnreachableException.class,
                        () -> connection.exec(ExecRequest.shell("echo still there")));
                long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
                assertTrue(seconds < 15, "lost after " + seconds + " s, not the default 45-60 s");
                assertTrue(lost.getMessage().startsWith("ssh: connection to 127.0.0.1:" + sshd.port + " was lost: "),
                        lost.getMessage());
                assertTrue(lost.getMessage().contains("(ServerAliveInterval 1, ServerAliveCountMax 2); if the host is only"
                        + " slow, give it longer: -o ServerAliveInterval=60 in ansible_ssh_common_args"), lost.getMessage());
                assertOneLine(lost.getMessage());
            } finally {
                sshd.signalSessions("CONT");
            }
        }
    }

    /** What OpenSSH's ssh no longer offers, provision does not either; the error names both lists. */
    @Test
    void refusesAServerThatOffersOnlyWeakCiphersAsSshDoes() throws Exception {
        sshd = TestSshd.prepare(directory.resolve("sshd"), "ed25519");
        Path config = directory.resolve("sshd/sshd_config");
        Files.writeString(config, Files.readString(config) + "Ciphers aes128-cbc,3des-cbc\n");
        sshd.start();
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars()));
            assertEquals("ssh: connect to 127.0.0.1:" + sshd.port + ": no cipher in common with the server: it offers"
                    + " aes128-cbc, 3des-cbc; provision offers what OpenSSH's ssh offers by default:"
                    + " chacha20-poly1305@openssh.com, aes128-ctr, aes192-ctr, aes256-ctr, aes128-gcm@openssh.com,"
                    + " aes256-gcm@openssh.com", refused.getMessage());
        }
    }

    /** The signed request goes at once: no round trip to ask whether the key would do (sshd says which it got). */
    @Test
    void signsAtOnceInsteadOfAskingWhetherTheKeyWouldDo() throws Exception {
        sshd = TestSshd.prepare(directory.resolve("sshd"), "ed25519");
        Path config = directory.resolve("sshd/sshd_config");
        Files.writeString(config, Files.readString(config).replace("LogLevel ERROR", "LogLevel DEBUG2"));
        // An RSA key as well: one key, three signature algorithms to try in turn.
        Path rsa = directory.resolve("rsa_key");
        TestSshd.keygen("rsa", rsa);
        Files.writeString(directory.resolve("sshd/authorized_keys"), Files.readString(Path.of(rsa + ".pub")), StandardOpenOption.APPEND);
        sshd.start();
        for (Path key : List.of(sshd.clientKey, rsa)) {
            try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(key))) {
                assertEquals("root", whoami(factory, vars()), key.toString());
            }
        }
        String log = Files.readString(directory.resolve("sshd/sshd.log"));
        assertTrue(log.contains("attempting public key ssh-ed25519"), log);
        assertTrue(log.contains("attempting public key rsa-sha2-512"), log);
        assertFalse(log.contains("querying public key"), log);
    }

    @Test
    void triesTheUsersDefaultKeysWhenNoneIsNamed() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Path home = directory.resolve("home");
        Files.createDirectories(home.resolve(".ssh"));
        TestSshd.keygen("rsa", home.resolve(".ssh/id_rsa"));
        Files.copy(sshd.clientKey, home.resolve(".ssh/id_ed25519"));
        SshConnectionFactory.Settings settings = SshConnectionFactory.Settings.defaults().withLocalUser("root", home);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings)) {
            assertEquals("root", whoami(factory, vars()));
        }
        Files.delete(home.resolve(".ssh/id_ed25519"));
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings)) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars()));
            assertTrue(refused.getMessage().endsWith("failed (tried keys: ~/.ssh/id_rsa)"), refused.getMessage());
        }
    }

    @Test
    void saysSoWhenThereIsNoKeyAtAll() throws Exception {
        SshConnectionFactory.Settings settings = SshConnectionFactory.Settings.defaults().withLocalUser("root", directory);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings)) {
            UnreachableException refused = assertThrows(UnreachableException.class,
                    () -> factory.open("node01", Map.of("ansible_host", "127.0.0.1", "ansible_port", 1)));
            assertTrue(refused.getMessage().contains("set ansible_ssh_private_key_file or --private-key"), refused.getMessage());
        }
    }

    @Test
    void reportsAKeyFileThatIsNotAKey() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Path garbage = directory.resolve("not-a-key");
        Files.writeString(garbage, "hello\n");
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(garbage))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars()));
            assertTrue(refused.getMessage().startsWith("ssh: cannot use private key " + garbage), refused.getMessage());
            assertOneLine(refused.getMessage());
        }
    }

    @Test
    void reachesAHostThroughAJumpHostAndVerifiesBoth() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        Map<String, Object> vars = Map.of(
                "ansible_host", "127.0.0.1",
                "ansible_port", sshd.port,
                "ansible_ssh_common_args", "-o StrictHostKeyChecking=no -o ProxyJump=root@127.0.0.1:" + sshd.port);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            assertEquals("root", whoami(factory, vars));
            assertEquals("root", whoami(factory, vars));
            // The jump host (known by its address) and the target (known by its name) were both verified.
            assertTrue(factory.knownHosts().verifiedKeyType("127.0.0.1", sshd.port).isPresent());
            assertTrue(factory.knownHosts().verifiedKeyType("node01", sshd.port).isPresent());
        }
    }

    @Test
    void reportsATargetTheJumpHostCannotReach() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        int closed = TestSshd.freePort();
        Map<String, Object> vars = Map.of("ansible_host", "127.0.0.1", "ansible_port", closed,
                "jump_host", "127.0.0.1:" + sshd.port);
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.ACCEPT_NEW, Set.of(), settings(sshd.clientKey))) {
            UnreachableException refused = assertThrows(UnreachableException.class, () -> factory.open("node01", vars));
            assertTrue(refused.getMessage().startsWith("ssh: connect to 127.0.0.1:" + closed + " via jump host 127.0.0.1: "),
                    refused.getMessage());
            assertOneLine(refused.getMessage());
        }
    }

    @Test
    void opensALocalConnectionWhenTheHostSaysSo() throws Exception {
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.STRICT, Set.of(), SshConnectionFactory.Settings.defaults());
                Connection connection = factory.open("controller", Map.of("ansible_connection", "local"))) {
            assertInstanceOf(LocalConnection.class, connection);
            assertEquals("controller", connection.hostName());
        }
    }

    @Test
    void opensAsTheLoginUserWhateverBecomeTheVariablesAsk() throws Exception {
        // become is the engine's, per task (exec.Connections): the factory's connection is the login
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.STRICT, Set.of(), SshConnectionFactory.Settings.defaults())) {
            Connection opened = factory.open("controller", Map.of("ansible_connection", "local", "ansible_become", true,
                    "ansible_become_user", "nobody", "ansible_become_password", "s3cret"));
            assertInstanceOf(LocalConnection.class, opened);
        }
    }

    @Test
    void reportsAnUnsupportedConnectionType() {
        try (SshConnectionFactory factory = factory(KnownHostsStore.Policy.STRICT, Set.of(), SshConnectionFactory.Settings.defaults())) {
            UnreachableException refused = assertThrows(UnreachableException.class,
                    () -> factory.open("win01", Map.of("ansible_connection", "winrm")));
            assertEquals("host win01: ansible_connection 'winrm' is not supported (use ssh or local)", refused.getMessage());
        }
    }

    private static void assertOneLine(String message) {
        assertFalse(message.contains("\n"), message);
        assertFalse(message.contains("Exception"), message);
        assertFalse(message.contains("\tat "), message);
    }

    /**
     * 24 hosts behind one sshd opened at the same instant through a factory that lets 2 handshakes
     * run at once: every one waits its turn and gets through (none times out waiting, none is lost).
     */
    @Test
    void pacedHandshakesLetACrowdOfHostsThrough() throws Exception {
        sshd = TestSshd.start(directory.resolve("sshd"));
        SshConnectionFactory factory = new SshConnectionFactory(
                new KnownHostsStore(knownHosts(), KnownHostsStore.Policy.ACCEPT_NEW, Set.of()), settings(sshd.clientKey), 2);
        whoami(factory, vars()); // records the host key once, before the crowd
        java.util.List<String> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(24)) {
            for (int i = 0; i < 24; i++) {
                pool.submit(() -> {
                    go.await();
                    try (Connection connection = factory.open("node01", vars())) {
                        connection.exec(ExecRequest.shell("true"));
                    } catch (Exception e) {
                        failures.add(e.getMessage());
                    }
                    return null;
                });
            }
            go.countDown();
        }
        assertEquals(java.util.List.of(), failures);
        assertEquals(2, factory.handshakeLimit());
    }

    /**
     * A host's recorded keys by the port its variables name: asked again (a template asks once per
     * host and node), with other variables the port is read again, not taken from the first answer.
     */
    @Test
    void hostKeysFollowThePortTheHostsVariablesName() throws Exception {
        String[] keys = new String[2];
        for (int i = 0; i < 2; i++) {
            Path key = directory.resolve("hk" + i);
            Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString()).start();
            org.junit.jupiter.api.Assertions.assertEquals(0, p.waitFor());
            String[] pub = java.nio.file.Files.readString(Path.of(key + ".pub")).strip().split(" ");
            keys[i] = pub[0] + " " + pub[1];
        }
        java.nio.file.Files.writeString(knownHosts(), "node01 " + keys[0] + "\n[node01]:2222 " + keys[1] + "\n");
        SshConnectionFactory factory = factory(KnownHostsStore.Policy.STRICT, Set.of(), SshConnectionFactory.Settings.defaults());
        Map<String, Object> standard = Map.of("ansible_host", "node01");
        Map<String, Object> other = Map.of("ansible_host", "node01", "ansible_port", 2222);
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(keys[0]), factory.hostKeys("node01", standard));
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(keys[0]), factory.hostKeys("node01", standard));
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(keys[1]), factory.hostKeys("node01", other));
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), factory.hostKeys("node01",
                Map.of("ansible_connection", "local")), "a local host has no keys");
    }
}
