package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.schmizz.sshj.common.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnownHostsStoreTest {
    @TempDir
    Path directory;

    private Path file() {
        return directory.resolve("provision").resolve("known_hosts");
    }

    private KnownHostsStore store(KnownHostsStore.Policy policy, String... replaced) {
        return new KnownHostsStore(file(), policy, Set.of(replaced));
    }

    @Test
    void acceptNewRecordsAnUnknownHostWithNameAndAddress() throws Exception {
        PublicKey key = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node01", "10.0.0.1", 22, key);
        assertEquals(List.of("node01,10.0.0.1 " + KnownHostsStore.openSshKey(key)), Files.readAllLines(file()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file().getParent())));
        // A later run knows it, even in strict mode.
        store(KnownHostsStore.Policy.STRICT).verify("node01", "10.0.0.1", 22, key);
    }

    @Test
    void newHostsAreAppendedToTheFileAsItWasAndFoundAmongMany() throws Exception {
        Files.createDirectories(file().getParent());
        PublicKey first = ecKey();
        String admin = "# the admin's comment\nbastion " + KnownHostsStore.openSshKey(first) + "\n";
        Files.writeString(file(), admin);
        Object inode = Files.readAttributes(file(), java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        List<PublicKey> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            PublicKey key = ecKey();
            keys.add(key);
            store.verify("node" + i, "10.0.0." + i, 22, key);
        }
        String text = Files.readString(file());
        assertTrue(text.startsWith(admin), "the file's own lines are kept as they were");
        assertEquals(inode, Files.readAttributes(file(), java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
                "appended to, not replaced");
        assertEquals(52, text.lines().count());
        // every one is known to this store and to a new one, under its name and under its address
        for (int i = 0; i < 50; i++) {
            store.verify("node" + i, "10.0.0." + i, 22, keys.get(i));
            store(KnownHostsStore.Policy.STRICT).verify("10.0.0." + i, "10.0.0." + i, 22, keys.get(i));
        }
        assertEquals(List.of(KnownHostsStore.openSshKey(keys.get(7))), store.knownHostLines("node7", 22));
    }

    @Test
    void aLineAnotherRunAddedMeanwhileSurvivesTheNextChange() throws Exception {
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        PublicKey mine = ecKey();
        store.verify("node01", "10.0.0.1", 22, mine);
        PublicKey theirs = ecKey();
        // another provision run rewrites the file (temp file and rename) with one more host
        Path temp = directory.resolve("other-run.tmp");
        Files.writeString(temp, Files.readString(file()) + "node02,10.0.0.2 " + KnownHostsStore.openSshKey(theirs) + "\n");
        Files.move(temp, file(), java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        PublicKey third = ecKey();
        store.verify("node03", "10.0.0.3", 22, third);
        assertEquals(List.of("node01,10.0.0.1 " + KnownHostsStore.openSshKey(mine),
                "node02,10.0.0.2 " + KnownHostsStore.openSshKey(theirs),
                "node03,10.0.0.3 " + KnownHostsStore.openSshKey(third)), Files.readAllLines(file()));
        store.verify("node02", "10.0.0.2", 22, theirs);
    }

    @Test
    void aFileWithoutAFinalNewlineGetsOneBeforeTheNewLine() throws Exception {
        Files.createDirectories(file().getParent());
        PublicKey first = ecKey();
        Files.writeString(file(), "bastion " + KnownHostsStore.openSshKey(first));
        PublicKey key = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node01", "10.0.0.1", 22, key);
        assertEquals(List.of("bastion " + KnownHostsStore.openSshKey(first), "node01,10.0.0.1 " + KnownHostsStore.openSshKey(key)),
                Files.readAllLines(file()));
    }

    @Test
    void writesOnlyTheNameWhenTheAddressIsTheName() throws Exception {
        PublicKey key = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node01", "node01", 22, key);
        assertEquals(List.of("node01 " + KnownHostsStore.openSshKey(key)), Files.readAllLines(file()));
    }

    @Test
    void strictRefusesAnUnknownHostAndRecordsNothing() throws Exception {
        UnreachableException refused = assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.STRICT).verify("node03", "10.0.0.3", 22, ecKey()));
        assertEquals("host key for node03 (10.0.0.3) is not known and --strict-host-keys refuses unknown hosts;"
                + " record it with a run without --strict-host-keys, or add it to " + file(), refused.getMessage());
        assertFalse(Files.exists(file()));
    }

    @Test
    void refusesAChangedKeyWithBothFingerprintsAndTheCommandThatAcceptsIt() throws Exception {
        PublicKey old = ecKey();
        PublicKey offered = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "10.0.0.7", 22, old);
        String before = Files.readString(file());
        UnreachableException refused = assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "10.0.0.7", 22, offered));
        String message = refused.getMessage();
        assertTrue(message.startsWith("host key for node07 (10.0.0.7) has changed"), message);
        assertTrue(message.contains(KnownHostsStore.fingerprint(old)), message);
        assertTrue(message.contains(KnownHostsStore.fingerprint(offered)), message);
        assertTrue(message.endsWith("accept its new key by running again with --replaced node07"), message);
        assertFalse(message.contains("\n"));
        assertEquals(before, Files.readString(file()), "nothing recorded");
    }

    @Test
    void treatsAKeyOfAnUnrecordedTypeAsChanged() throws Exception {
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "node07", 22, ecKey());
        assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "node07", 22, rsaKey()));
    }

    @Test
    void acceptsTheChangedKeyOfAReplacedHostOnceAndRewritesOnlyItsEntry() throws Exception {
        Files.createDirectories(file().getParent());
        PublicKey old = ecKey();
        PublicKey other = ecKey();
        Files.writeString(file(), "# the administrator's comment\n"
                + "node07,10.0.0.7 " + KnownHostsStore.openSshKey(old) + "\n"
                + "node08,10.0.0.8 " + KnownHostsStore.openSshKey(other) + "\n");
        PublicKey rebuilt = ecKey();
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW, "node07");
        store.verify("node07", "10.0.0.7", 22, rebuilt);
        assertEquals(List.of(
                "# the administrator's comment",
                "node08,10.0.0.8 " + KnownHostsStore.openSshKey(other),
                "node07,10.0.0.7 " + KnownHostsStore.openSshKey(rebuilt)), Files.readAllLines(file()));
        assertEquals(Optional.of(rebuilt), store.knownKey("node07", 22).map(k -> k));
        // A different key again in a later run without --replaced: refused as usual.
        assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "10.0.0.7", 22, old));
    }

    @Test
    void leavesAReplacedHostWhoseKeyDidNotChangeAsItIs() throws Exception {
        PublicKey key = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node07", "10.0.0.7", 22, key);
        String before = Files.readString(file());
        store(KnownHostsStore.Policy.ACCEPT_NEW, "node07").verify("node07", "10.0.0.7", 22, key);
        assertEquals(before, Files.readString(file()));
    }

    @Test
    void writesBracketedNamesForPortsOtherThan22() throws Exception {
        PublicKey key = ecKey();
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        store.verify("node01", "127.0.0.1", 2222, key);
        assertEquals(List.of("[node01]:2222,[127.0.0.1]:2222 " + KnownHostsStore.openSshKey(key)), Files.readAllLines(file()));
        assertEquals(Optional.of(key), store.knownKey("node01", 2222));
        // Port 22 of the same host is another entry.
        UnreachableException refused = assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.STRICT).verify("node01", "127.0.0.1", 22, key));
        assertTrue(refused.getMessage().contains("node01 (127.0.0.1)"), refused.getMessage());
        UnreachableException refusedOnPort = assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.STRICT).verify("node01", "127.0.0.1", 2223, key));
        assertTrue(refusedOnPort.getMessage().contains("node01 (127.0.0.1:2223)"), refusedOnPort.getMessage());
    }

    @Test
    void matchesEntriesThatNameOnlyTheAddress() throws Exception {
        Files.createDirectories(file().getParent());
        PublicKey key = ecKey();
        Files.writeString(file(), "10.0.0.1 " + KnownHostsStore.openSshKey(key) + "\n");
        store(KnownHostsStore.Policy.STRICT).verify("node01", "10.0.0.1", 22, key);
    }

    @Test
    void matchesHashedEntriesWrittenByOpenSsh() throws Exception {
        Path sshKey = directory.resolve("hostkey");
        TestSshd.keygen("ed25519", sshKey);
        String line = Files.readString(Path.of(sshKey + ".pub")).strip();
        PublicKey key = parse(line);
        Files.createDirectories(file().getParent());
        Files.writeString(file(), "node05 " + line + "\n");
        Process hash = new ProcessBuilder("ssh-keygen", "-H", "-f", file().toString()).redirectErrorStream(true).start();
        hash.getInputStream().readAllBytes();
        assertEquals(0, hash.waitFor());
        assertTrue(Files.readString(file()).startsWith("|1|"), "ssh-keygen hashed the name");
        store(KnownHostsStore.Policy.STRICT).verify("node05", "node05", 22, key);
        assertThrows(UnreachableException.class,
                () -> store(KnownHostsStore.Policy.STRICT).verify("node05", "node05", 22, parse(otherEd25519())));
    }

    @Test
    void fingerprintsAsOpenSshDoes() throws Exception {
        Path sshKey = directory.resolve("fp");
        TestSshd.keygen("ed25519", sshKey);
        Process keygen = new ProcessBuilder("ssh-keygen", "-l", "-E", "sha256", "-f", sshKey + ".pub").start();
        String expected = new String(keygen.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split(" ")[1];
        assertEquals(0, keygen.waitFor());
        assertEquals(expected, KnownHostsStore.fingerprint(parse(Files.readString(Path.of(sshKey + ".pub")))));
    }

    @Test
    void givesTheVerifiedKeyFirstAndItsType() throws Exception {
        PublicKey key = ecKey();
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        assertEquals(Optional.empty(), store.knownKey("node01", 22));
        assertEquals(List.of(), store.knownHostLines("node01", 22));
        store.verify("node01", "10.0.0.1", 22, key);
        assertEquals(List.of(KnownHostsStore.openSshKey(key)), store.knownHostLines("node01", 22));
        assertEquals(Optional.of("ecdsa-sha2-nistp256"), store.verifiedKeyType("node01", 22));
        assertTrue(KnownHostsStore.openSshKey(key).startsWith("ecdsa-sha2-nistp256 AAAA"));
    }

    @Test
    void asksServersForTheRecordedKeyTypesFirst() throws Exception {
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        store.verify("node01", "node01", 22, rsaKey());
        store.verify("node02", "node02", 22, ecKey());
        assertEquals(List.of("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"), store.knownAlgorithms("node01", "node01", 22));
        assertEquals(List.of("ecdsa-sha2-nistp256"), store.knownAlgorithms("node02", "node02", 22));
        assertEquals(List.of(), store.knownAlgorithms("node03", "node03", 22));
    }

    @Test
    void recordsHostsVerifiedInParallelWithoutLosingAny() throws Exception {
        KnownHostsStore store = store(KnownHostsStore.Policy.ACCEPT_NEW);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String host = "node" + i;
                PublicKey key = ecKey();
                done.add(pool.submit(() -> {
                    store.verify(host, host, 22, key);
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(40, Files.readAllLines(file()).size());
        try (var leftovers = Files.list(file().getParent())) {
            assertEquals(List.of(file()), leftovers.toList(), "no temp file left");
        }
    }

    @Test
    void keepsLinesItDoesNotUnderstand() throws Exception {
        Files.createDirectories(file().getParent());
        String foreign = "@cert-authority *.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPnot-a-real-key\n"
                + "*.lab " + KnownHostsStore.openSshKey(ecKey()) + "\n"
                + "garbage\n";
        Files.writeString(file(), foreign);
        PublicKey key = ecKey();
        store(KnownHostsStore.Policy.ACCEPT_NEW).verify("node01", "node01", 22, key);
        assertEquals(foreign + "node01 " + KnownHostsStore.openSshKey(key) + "\n", Files.readString(file()));
    }

    static PublicKey ecKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair().getPublic();
    }

    private static PublicKey rsaKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair().getPublic();
    }

    private String otherEd25519() throws Exception {
        Path other = directory.resolve("other");
        TestSshd.keygen("ed25519", other);
        return Files.readString(Path.of(other + ".pub"));
    }

    static PublicKey parse(String openSshLine) throws Exception {
        String base64 = openSshLine.strip().split(" ")[1];
        return new Buffer.PlainBuffer(java.util.Base64.getDecoder().decode(base64)).readPublicKey();
    }
}
