package dev.provision.engine.connection;

import net.schmizz.sshj.common.SSHPacket;
import net.schmizz.sshj.userauth.UserAuthException;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;
import net.schmizz.sshj.userauth.method.KeyedAuthMethod;

/**
 * Public-key authentication that sends the signed request at once (RFC 4252, section 7 allows it)
 * instead of first asking the server whether it would take the key, as sshj's {@code AuthPublickey}
 * does: the keys are the run's own key files, already decoded, so the question only costs a round
 * trip per host (two packets to encrypt, send and decrypt on the controller, a thousand times over).
 * A key the server refuses fails as before, and the next one is tried.
 */
final class SignedPublickey extends KeyedAuthMethod {
    SignedPublickey(KeyProvider key) {
        super("publickey", key);
    }

    @Override
    protected SSHPacket buildReq() throws UserAuthException {
        return putSig(putPubKey((SSHPacket) super.buildReq().putBoolean(true)));
    }
}
