package dev.provision.engine.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.common.Factory;

/**
 * What provision offers a server in the key exchange: sshj's algorithms, in sshj's order, that
 * OpenSSH's own client (9.x) also offers by default. sshj alone would also offer what OpenSSH has
 * dropped as weak (arcfour, 3DES, Blowfish and the other CBC modes, MD5 and RIPEMD MACs, SHA-1
 * Diffie-Hellman groups, DSA and SHA-1 RSA signatures), so a server that only speaks those would be
 * reached by provision and refused by {@code ssh}, by Ansible and by the floor. With the list cut to
 * OpenSSH's, every connection's proposal is also a third of the size to build, send and parse.
 */
final class OpenSshAlgorithms {
    static final Set<String> KEY_EXCHANGE = Set.of("curve25519-sha256", "curve25519-sha256@libssh.org",
            "ecdh-sha2-nistp256", "ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
            "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256",
            // Not an algorithm: tells the server we take its list of signature algorithms (RFC 8308).
            "ext-info-c");
    static final Set<String> CIPHERS = Set.of("chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
            "aes128-gcm@openssh.com", "aes256-gcm@openssh.com");
    static final Set<String> MACS = Set.of("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
            "hmac-sha1-etm@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1");
    static final Set<String> KEY_ALGORITHMS = Set.of("ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519",
            "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384-cert-v01@openssh.com",
            "ecdsa-sha2-nistp521-cert-v01@openssh.com", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
            "rsa-sha2-512", "rsa-sha2-256");

    private OpenSshAlgorithms() {
    }

    /** Cuts {@code config}'s lists to OpenSSH's defaults. */
    static void keepOnly(DefaultConfig config) {
        config.setKeyExchangeFactories(kept(config.getKeyExchangeFactories(), KEY_EXCHANGE));
        config.setCipherFactories(kept(config.getCipherFactories(), CIPHERS));
        config.setMACFactories(kept(config.getMACFactories(), MACS));
        config.setKeyAlgorithms(kept(config.getKeyAlgorithms(), KEY_ALGORITHMS));
    }

    private static <T> List<Factory.Named<T>> kept(List<Factory.Named<T>> offered, Set<String> names) {
        return new ArrayList<>(offered.stream().filter(f -> names.contains(f.getName())).toList());
    }
}
