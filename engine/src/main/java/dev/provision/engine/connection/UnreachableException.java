package dev.provision.engine.connection;

/**
 * The host could not be reached or refused us: connection refused or timed out, authentication
 * failed, or its host key changed. The message is one line a sysadmin can act on (for a changed
 * key: both fingerprints and the command that accepts a replaced node).
 */
public class UnreachableException extends ConnectionException {
    public UnreachableException(String message) {
        super(message);
    }

    public UnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
