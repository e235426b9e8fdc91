package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.security.PublicKey;
import java.util.List;
import java.util.Optional;
import net.schmizz.sshj.transport.verification.HostKeyVerifier;

/**
 * The bridge from sshj's host-key callback to the {@link KnownHostsStore}, bound to one inventory
 * host. It checks under the inventory name and the address we dialled, not the name sshj saw (behind
 * a jump host that is the tunnel's end), and it keeps the store's one-line refusal, which sshj would
 * otherwise turn into a generic "could not verify host key".
 */
final class HostKeyCheck implements HostKeyVerifier {
    private final KnownHostsStore store;
    private final String host;
    private final String address;
    private final int port;
    private volatile PublicKey verifiedKey;
    private volatile UnreachableException refusal;

    HostKeyCheck(KnownHostsStore store, String host, String address, int port) {
        this.store = requireNonNull(store, "store cannot be null");
        this.host = requireNonNull(host, "host cannot be null");
        this.address = requireNonNull(address, "address cannot be null");
        this.port = port;
    }

    @Override
    public boolean verify(String hostname, int port, PublicKey key) {
        try {
            store.verify(host, address, this.port, key);
            verifiedKey = key;
            return true;
        } catch (UnreachableException e) {
            refusal = e;
            return false;
        }
    }

    @Override
    public List<String> findExistingAlgorithms(String hostname, int port) {
        return store.knownAlgorithms(host, address, this.port);
    }

    Optional<PublicKey> verifiedKey() {
        return Optional.ofNullable(verifiedKey);
    }

    Optional<UnreachableException> refusal() {
        return Optional.ofNullable(refusal);
    }
}
