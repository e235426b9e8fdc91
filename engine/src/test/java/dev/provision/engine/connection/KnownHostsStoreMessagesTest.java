package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The known-hosts store's decisions and the lines a sysadmin reads when it refuses a host. */
class KnownHostsStoreMessagesTest {
    @TempDir
    Path tmp;

    @Test
    void refusesAChangedKeyWithBothFingerprintsAndRemembersTheHostForTheReplacedHint() throws Exception {
        Path file = tmp.resolve("known_hosts");
        PublicKey old = ecKey();
        PublicKey rebuilt = ecKey();
        new KnownHostsStore(file, KnownHostsStore.Policy.ACCEPT_NEW, Set.of()).verify("node07", "10.0.0.7", 22, old);
        KnownHostsStore store = new KnownHostsStore(file, KnownHostsStore.Policy.ACCEPT_NEW, Set.of());

        UnreachableException refusal = assertThrows(UnreachableException.class,
                () -> store.verify("node07", "10.0.0.7", 22, rebuilt));

        assertEquals("host key for node07 (10.0.0.7) has changed: known ecdsa-sha2-nistp256 "
                + KnownHostsStore.fingerprint(old) + " (in " + file + "), offered ecdsa-sha2-nistp256 "
                + KnownHostsStore.fingerprint(rebuilt) + "; only if node07 was rebuilt, accept its new key by running"
                + " again with --replaced node07", refusal.getMessage());
        assertEquals(Set.of("node07"), store.changedKeyHosts());
        assertEquals(List.of("node07,10.0.0.7 " + KnownHostsStore.openSshKey(old)), Files.readAllLines(file));
    }

    @Test
    void replacedHostGetsItsNewKeyRecordedAndOtherHostsKeepTheirs() throws Exception {
        Path file = tmp.resolve("known_hosts");
        PublicKey other = ecKey();
        PublicKey rebuilt = ecKey();
        KnownHostsStore first = new KnownHostsStore(file, KnownHostsStore.Policy.ACCEPT_NEW, Set.of());
        first.verify("node06", "10.0.0.6", 22, other);
        first.verify("node07", "10.0.0.7", 22, ecKey());
        KnownHostsStore store = new KnownHostsStore(file, KnownHostsStore.Policy.ACCEPT_NEW, Set.of("node07"));

        store.verify("node07", "10.0.0.7", 22, rebuilt);
        store.verify("node06", "10.0.0.6", 22, other);

        assertEquals(List.of("node06,10.0.0.6 " + KnownHostsStore.openSshKey(other),
                "node07,10.0.0.7 " + KnownHostsStore.openSshKey(rebuilt)), Files.readAllLines(file));
        assertTrue(store.changedKeyHosts().isEmpty(), "an accepted replacement is not a refusal");
    }

    @Test
    void strictModeRefusesAnUnknownHostNamingTheOptionAndRecordsNothing() throws Exception {
        Path file = tmp.resolve("known_hosts");
        KnownHostsStore store = new KnownHostsStore(file, KnownHostsStore.Policy.STRICT, Set.of());

        UnreachableException refusal = assertThrows(UnreachableException.class,
                () -> store.verify("node01", "10.0.0.1", 22, ecKey()));

        assertEquals("host key for node01 (10.0.0.1) is not known and --strict-host-keys refuses unknown hosts;"
                + " record it with a run without --strict-host-keys, or add it to " + file, refusal.getMessage());
        assertFalse(Files.exists(file));
        assertTrue(store.changedKeyHosts().isEmpty());
    }

    private static PublicKey ecKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair().getPublic();
    }
}
