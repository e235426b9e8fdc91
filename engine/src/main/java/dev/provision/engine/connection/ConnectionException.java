package dev.provision.engine.connection;

/** A connection that broke or a transfer that failed; the task fails (or the host is unreachable). */
public class ConnectionException extends Exception {
    public ConnectionException(String message) {
        super(message);
    }

    public ConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
