package dev.provision.engine.connection;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns what sshj and the network throw into the one line a sysadmin reads. */
final class SshErrors {
    /** sshj's words for a negotiation without a common algorithm: the kind, our list, the server's. */
    private static final Pattern NO_SETTLEMENT = Pattern.compile("Unable to reach a settlement of (\\w+): \\[(.*)] and \\[(.*)]");

    private SshErrors() {
    }

    /**
     * Why connecting to {@code destination} failed, e.g. {@code ssh: connect to 10.1.0.5:22: connection
     * refused}.
     */
    static UnreachableException connectFailed(String destination, Throwable failure, Duration connectTimeout) {
        Throwable cause = rootCause(failure);
        String why = switch (cause) {
            case UnknownHostException unknown -> "could not resolve host name " + unknown.getMessage();
            case ConnectException refused -> lower(refused.getMessage(), "connection refused");
            case NoRouteToHostException noRoute -> "no route to host";
            case SocketTimeoutException timeout -> "timed out after " + Durations.human(connectTimeout);
            default -> reason(failure);
        };
        return new UnreachableException("ssh: connect to " + destination + ": " + why, failure);
    }

    /** The innermost message of a failure, on one line, never a stack trace. */
    static String reason(Throwable failure) {
        Throwable cause = rootCause(failure);
        String message = cause.getMessage();
        if (message == null || message.isBlank()) {
            message = cause.getClass().getSimpleName();
        }
        message = message.strip().replaceAll("\\s*\\R\\s*", " ");
        Matcher settlement = NO_SETTLEMENT.matcher(message);
        if (settlement.matches()) {
            String what = switch (settlement.group(1)) {
                case "KeyExchangeAlgorithms" -> "key exchange";
                case "HostKeyAlgorithms" -> "host key type";
                case "Client2ServerCipherAlgorithms", "Server2ClientCipherAlgorithms" -> "cipher";
                case "Client2ServerMACAlgorithms", "Server2ClientMACAlgorithms" -> "MAC";
                default -> "algorithm (" + settlement.group(1) + ")";
            };
            return "no " + what + " in common with the server: it offers " + settlement.group(3)
                    + "; provision offers what OpenSSH's ssh offers by default: " + settlement.group(2);
        }
        return message;
    }

    private static String lower(String message, String fallback) {
        if (message == null || message.isBlank()) {
            return fallback;
        }
        // "Connection refused" reads as part of our sentence.
        String first = message.strip();
        int parenthesis = first.indexOf(" (");
        if (parenthesis > 0) {
            first = first.substring(0, parenthesis);
        }
        return first.substring(0, 1).toLowerCase(Locale.ROOT) + first.substring(1);
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
