package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach one host, read from its inventory variables (the Ansible names, so existing
 * inventories work): {@code ansible_connection}, {@code ansible_host}, {@code ansible_port},
 * {@code ansible_user}, {@code ansible_ssh_private_key_file}, {@code ansible_ssh_common_args}
 * ({@code -o ProxyJump=} or {@code -J}) or {@code jump_host}, {@code -o ServerAliveInterval=} and
 * {@code -o ServerAliveCountMax=} in {@code ansible_ssh_args}, {@code ansible_ssh_common_args} or
 * {@code ansible_ssh_extra_args} (as ssh reads them: the first value given wins). Become is not
 * the connection's: the engine wraps it per task ({@code exec.Connections}), as the task and play say.
 *
 * @param privateKey the host's own key file, when it names one
 */
record HostSettings(
        String hostName,
        boolean local,
        String address,
        int port,
        String user,
        Optional<Path> privateKey,
        Optional<Jump> jump,
        KeepAlive keepAlive) {

    /** A jump (bastion) host: {@code [user@]host[:port]}. */
    record Jump(String host, int port, Optional<String> user) {
        Jump {
            requireNonNull(host, "host cannot be null");
            requireNonNull(user, "user cannot be null");
        }

        String userOr(String fallback) {
            return user.orElse(fallback);
        }
    }

    /**
     * How long a silent host is given before it is unreachable, as OpenSSH's {@code ServerAliveInterval}
     * and {@code ServerAliveCountMax}: a keepalive every {@code intervalSeconds} of silence, the host
     * lost after {@code countMax} of them unanswered. An interval of 0 sends none (the host is then
     * only bounded by the task's time limit).
     */
    record KeepAlive(int intervalSeconds, int countMax) {
        /** OpenSSH leaves keepalives off; we bound a dead host's wait to about a minute instead. */
        static final KeepAlive DEFAULT = new KeepAlive(15, 3);

        boolean off() {
            return intervalSeconds == 0;
        }
    }

    private static final Pattern SSH_TIME = Pattern.compile("([0-9]{1,6}[sSmMhHdDwW]?){1,5}");
    private static final Pattern SSH_TIME_PART = Pattern.compile("([0-9]{1,6})([sSmMhHdDwW]?)");
    private static final Pattern PROXY_JUMP = Pattern.compile("(?:ProxyJump[= ]\\s*|-J\\s*)([^\\s'\"]+)");
    private static final Pattern JUMP = Pattern.compile("(?:([^@\\s]+)@)?([^@:\\s]+)(?::(\\d+))?");

    HostSettings {
        requireNonNull(hostName, "hostName cannot be null");
        requireNonNull(address, "address cannot be null");
        requireNonNull(user, "user cannot be null");
        requireNonNull(privateKey, "privateKey cannot be null");
        requireNonNull(jump, "jump cannot be null");
        requireNonNull(keepAlive, "keepAlive cannot be null");
    }

    static HostSettings of(String hostName, Map<String, Object> vars, String localUser, Path home)
            throws UnreachableException {
        String connection = text(vars, "ansible_connection").orElse("ssh").toLowerCase(Locale.ROOT);
        boolean local = switch (connection) {
            case "local" -> true;
            case "ssh", "smart", "paramiko" -> false;
            default -> throw new UnreachableException("host " + hostName + ": ansible_connection '" + connection
                    + "' is not supported (use ssh or local)");
        };
        String address = text(vars, "ansible_host").orElse(hostName);
        int port = port(hostName, "ansible_port", vars.get("ansible_port"), 22);
        String user = text(vars, "ansible_user").or(() -> text(vars, "ansible_ssh_user")).orElse(localUser);
        Optional<Path> key = text(vars, "ansible_ssh_private_key_file").or(() -> text(vars, "ansible_private_key_file"))
                .map(path -> expandHome(path, home));
        Optional<Jump> jump = jump(hostName, vars);
        KeepAlive keepAlive = keepAlive(hostName, vars);
        return new HostSettings(hostName, local, address, port, local ? localUser : user, key, jump, keepAlive);
    }

    /** {@code address:port}, as messages show it. */
    String destination() {
        return address + ":" + port;
    }

    static Path expandHome(String path, Path home) {
        if (path.equals("~")) {
            return home;
        }
        if (path.startsWith("~/")) {
            return home.resolve(path.substring(2));
        }
        return Path.of(path);
    }

    private static Optional<Jump> jump(String hostName, Map<String, Object> vars) throws UnreachableException {
        Optional<String> spec = text(vars, "jump_host");
        if (spec.isEmpty()) {
            Optional<String> common = text(vars, "ansible_ssh_common_args");
            if (common.isPresent()) {
                Matcher matcher = PROXY_JUMP.matcher(common.get());
                if (matcher.find()) {
                    spec = Optional.of(matcher.group(1));
                }
            }
        }
        if (spec.isEmpty() || spec.get().equalsIgnoreCase("none")) {
            return Optional.empty();
        }
        if (spec.get().contains(",")) {
            throw new UnreachableException("host " + hostName + ": a chain of jump hosts (" + spec.get()
                    + ") is not supported yet; use one jump host");
        }
        Matcher matcher = JUMP.matcher(spec.get().replaceFirst("^ssh://", ""));
        if (!matcher.matches()) {
            throw new UnreachableException("host " + hostName + ": jump host '" + spec.get()
                    + "' is not [user@]host[:port]");
        }
        int port = port(hostName, "the jump host's port", matcher.group(3), 22);
        return Optional.of(new Jump(matcher.group(2), port, Optional.ofNullable(matcher.group(1))));
    }

    private static KeepAlive keepAlive(String hostName, Map<String, Object> vars) throws UnreachableException {
        int interval = KeepAlive.DEFAULT.intervalSeconds();
        Optional<Map.Entry<String, String>> given = SshArguments.option(vars, "ServerAliveInterval");
        if (given.isPresent()) {
            // ssh reads it as a time: seconds, or units as in 1m30s
            Matcher time = SSH_TIME.matcher(given.get().getValue());
            if (given.get().getValue().isEmpty() || !time.matches()) {
                throw new UnreachableException("host " + hostName + ": ServerAliveInterval in " + given.get().getKey()
                        + " must be a time in seconds (30) or with units (1m30s), got '" + given.get().getValue() + "'");
            }
            Matcher part = SSH_TIME_PART.matcher(given.get().getValue());
            long seconds = 0;
            while (part.find()) {
                seconds += Long.parseLong(part.group(1)) * switch (part.group(2).toLowerCase(Locale.ROOT)) {
                    case "m" -> 60;
                    case "h" -> 3600;
                    case "d" -> 86_400;
                    case "w" -> 604_800;
                    default -> 1;
                };
            }
            interval = (int) Math.min(seconds, Integer.MAX_VALUE);
        }
        int count = KeepAlive.DEFAULT.countMax();
        given = SshArguments.option(vars, "ServerAliveCountMax");
        if (given.isPresent()) {
            if (!given.get().getValue().matches("[0-9]{1,6}")) {
                throw new UnreachableException("host " + hostName + ": ServerAliveCountMax in " + given.get().getKey()
                        + " must be a whole number, got '" + given.get().getValue() + "'");
            }
            count = Integer.parseInt(given.get().getValue());
        }
        return new KeepAlive(interval, count);
    }

    private static Optional<String> text(Map<String, Object> vars, String name) {
        Object value = vars.get(name);
        if (value == null) {
            return Optional.empty();
        }
        String text = value.toString().strip();
        return text.isEmpty() ? Optional.empty() : Optional.of(text);
    }

    private static int port(String hostName, String what, Object value, int fallback) throws UnreachableException {
        if (value == null) {
            return fallback;
        }
        try {
            int port = value instanceof Number number ? number.intValue() : Integer.parseInt(value.toString().strip());
            if (port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return port;
        } catch (NumberFormatException e) {
            throw new UnreachableException("host " + hostName + ": " + what + " must be a port number (1-65535), got '"
                    + value + "'");
        }
    }

    @Override
    public String toString() {
        return "HostSettings[" + hostName + ", " + (local ? "local" : user + "@" + destination())
                + jump.map(j -> " via " + j.host() + ":" + j.port()).orElse("") + "]";
    }
}
