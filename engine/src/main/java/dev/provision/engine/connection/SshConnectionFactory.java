package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.security.PublicKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.stream.Collectors;
import net.schmizz.sshj.DefaultConfig;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.DirectConnection;
import net.schmizz.sshj.userauth.UserAuthException;
import net.schmizz.sshj.userauth.keyprovider.KeyPairWrapper;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;
import net.schmizz.sshj.userauth.method.AuthMethod;

/**
 * Opens the one connection a run keeps per host: {@link LocalConnection} for
 * {@code ansible_connection: local}, else {@link SshConnection}, as the login user: become is the
 * engine's, per task ({@code exec.Connections} wraps it in {@link BecomeConnection}).
 *
 * <p>SSH: address {@code ansible_host} (default: the inventory name), port {@code ansible_port} (22),
 * user {@code ansible_user} (the local user). Public-key authentication only, with ed25519, ECDSA or
 * RSA keys in OpenSSH or PEM files: the host's {@code ansible_ssh_private_key_file}, else the
 * factory's {@code --private-key}, else whichever of {@code ~/.ssh/id_ed25519}, {@code id_ecdsa},
 * {@code id_rsa} exist. Passphrase-protected keys, ssh-agent and password logins are not supported
 * yet. A jump host ({@code -o ProxyJump=[user@]host[:port]} in {@code ansible_ssh_common_args}, or
 * {@code jump_host}) is connected once, verified and authenticated like any host (same user and keys
 * unless it names its own user), and shared by every host behind it; each target is then reached
 * through a direct-tcpip channel and verified and authenticated end to end.
 *
 * <p>Every host key (jump hosts included) is checked against the {@link KnownHostsStore}. A keepalive
 * after every 15 s of silence (one timer for all connections, {@link Heartbeat}); a host that stops
 * answering is dropped after 3 missed replies (its commands then fail as unreachable); the host's
 * {@code -o ServerAliveInterval=}/{@code ServerAliveCountMax=} change both ({@link HostSettings.KeepAlive};
 * a jump host keeps the default). Every failure to connect, verify or authenticate is an
 * {@link UnreachableException} with one line, e.g. {@code ssh: connect to 10.1.0.5:22: connection refused}.
 *
 * <p>Handshakes are paced: at most {@link #handshakeLimit()} connections are between TCP connect and
 * authenticated at once (default {@value #MIN_HANDSHAKES} or 4 per core, whichever is more;
 * {@code PROVISION_SSH_HANDSHAKES} sets it). A thousand hosts opened at once would otherwise
 * share the controller's CPU a thousand ways, each key exchange slowing all the others until the
 * slowest ran past the transport's timeout, and an sshd that several hosts share (a NAT, ports on
 * one address) drops connections beyond its {@code MaxStartups} (10 unauthenticated by default).
 * The start of a connection's remote shells is paced by the same limit (see {@link SshConnection}).
 *
 * <p>Thread-safe: the executor opens hosts in parallel. {@link #close()} disconnects the shared jump
 * hosts; the connections it opened are the caller's to close.
 */
public final class SshConnectionFactory implements ConnectionFactory {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final List<String> DEFAULT_KEYS = List.of("id_ed25519", "id_ecdsa", "id_rsa");
    /** The fewest handshakes in flight by default: sshd's default MaxStartups begins dropping above 10. */
    static final int MIN_HANDSHAKES = 8;

    /**
     * What the command line decides for all hosts.
     *
     * @param privateKey {@code --private-key}: used for hosts without {@code ansible_ssh_private_key_file}
     * @param localUser the login user when a host names none, and the user of local connections
     * @param home where {@code ~} and the default keys ({@code ~/.ssh/id_*}) are
     */
    public record Settings(Optional<Path> privateKey, Duration connectTimeout, String localUser, Path home) {
        public Settings {
            requireNonNull(privateKey, "privateKey cannot be null");
            requireNonNull(connectTimeout, "connectTimeout cannot be null");
            requireNonNull(localUser, "localUser cannot be null");
            requireNonNull(home, "home cannot be null");
            if (connectTimeout.isNegative() || connectTimeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout must be positive");
            }
        }

        /** No {@code --private-key}, a 10 s connect timeout, the JVM's user and home. */
        public static Settings defaults() {
            return new Settings(Optional.empty(), DEFAULT_CONNECT_TIMEOUT, System.getProperty("user.name"),
                    Path.of(System.getProperty("user.home")));
        }

        public Settings withPrivateKey(Path key) {
            return new Settings(Optional.of(key), connectTimeout, localUser, home);
        }

        public Settings withConnectTimeout(Duration timeout) {
            return new Settings(privateKey, timeout, localUser, home);
        }

        public Settings withLocalUser(String user, Path userHome) {
            return new Settings(privateKey, connectTimeout, user, userHome);
        }
    }

    private final KnownHostsStore knownHosts;
    private final Settings settings;
    private final DefaultConfig config;
    private final ConcurrentMap<Path, KeyProvider> loadedKeys = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, JumpHost> jumpHosts = new ConcurrentHashMap<>();
    /** Where {@link #hostKeys} looks a host up, by host name, with the variables it was read from. */
    private final ConcurrentMap<String, KeysAt> keysAt = new ConcurrentHashMap<>();
    private final int handshakeLimit;
    private final Semaphore handshakes;

    public SshConnectionFactory(KnownHostsStore knownHosts, Settings settings) {
        this(knownHosts, settings, defaultHandshakeLimit());
    }

    /** @param handshakeLimit how many connections may be connecting or authenticating at once */
    public SshConnectionFactory(KnownHostsStore knownHosts, Settings settings, int handshakeLimit) {
        this.knownHosts = requireNonNull(knownHosts, "knownHosts cannot be null");
        this.settings = requireNonNull(settings, "settings cannot be null");
        if (handshakeLimit < 1) {
            throw new IllegalArgumentException("handshakeLimit must be at least 1");
        }
        this.handshakeLimit = handshakeLimit;
        this.handshakes = new Semaphore(handshakeLimit, true);
        // One configuration (its algorithm lists are costly to build) shared, read-only, by every client.
        this.config = new DefaultConfig();
        OpenSshAlgorithms.keepOnly(config);
        config.setKeepAliveProvider(Heartbeat.provider());
    }

    @Override
    public Connection open(String hostName, Map<String, Object> hostVars) throws UnreachableException {
        requireNonNull(hostName, "hostName cannot be null");
        requireNonNull(hostVars, "hostVars cannot be null");
        HostSettings host = HostSettings.of(hostName, hostVars, settings.localUser(), settings.home());
        return host.local() ? new LocalConnection(hostName) : openSsh(host);
    }

    /** A host's port for its known keys (none: local, or settings that cannot even name a port), and the variables that said so. */
    private record KeysAt(Map<String, Object> vars, java.util.OptionalInt port) {
    }

    /**
     * The host's recorded keys. A template that names every host's keys on every host
     * ({@code groups[...]?map(h -> host_keys[h])}) asks this N times per host: the port is read from
     * the host's settings once (parsing them, ssh arguments included, every time was 7 % of a
     * 500-host converge's CPU), then again only for other variables (an inventory host's never change).
     */
    @Override
    public List<String> hostKeys(String hostName, Map<String, Object> hostVars) {
        KeysAt at = keysAt.get(hostName);
        if (at == null || at.vars() != hostVars && !at.vars().equals(hostVars)) {
            java.util.OptionalInt port;
            try {
                HostSettings host = HostSettings.of(hostName, hostVars, settings.localUser(), settings.home());
                port = host.local() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(host.port());
            } catch (UnreachableException e) {
                port = java.util.OptionalInt.empty(); // the host was never contacted
            }
            at = new KeysAt(hostVars, port);
            keysAt.put(hostName, at);
        }
        return at.port().isPresent() ? knownHosts.knownHostLines(hostName, at.port().getAsInt()) : List.of();
    }

    /** {@code PROVISION_SSH_HANDSHAKES} when it is a positive number, else the larger of 8 and 4 per core. */
    static int defaultHandshakeLimit() {
        String configured = System.getenv("PROVISION_SSH_HANDSHAKES");
        if (configured != null && configured.strip().matches("[1-9][0-9]{0,5}")) {
            return Integer.parseInt(configured.strip());
        }
        return Math.max(MIN_HANDSHAKES, 4 * Runtime.getRuntime().availableProcessors());
    }

    /** How many connections may be between TCP connect and authenticated at once. */
    public int handshakeLimit() {
        return handshakeLimit;
    }

    /** The store every host key is checked against. */
    public KnownHostsStore knownHosts() {
        return knownHosts;
    }

    @Override
    public void close() {
        for (JumpHost jump : jumpHosts.values()) {
            jump.close();
        }
        jumpHosts.clear();
    }

    @Override
    public String toString() {
        return "SshConnectionFactory[" + knownHosts + "]";
    }

    private SshConnection openSsh(HostSettings host) throws UnreachableException {
        List<Path> keyFiles = keyFiles(host);
        // Before dialling: a missing or broken key is the user's to fix, whatever the network says.
        List<UsableKey> keys = usableKeys(keyFiles, host.user(), host.destination());
        HostKeyCheck check = new HostKeyCheck(knownHosts, host.hostName(), host.address(), host.port());
        SSHClient client = newClient(check);
        String destination = host.destination();
        handshakes.acquireUninterruptibly();
        try {
            return handshake(host, client, check, keyFiles, keys, destination);
        } finally {
            handshakes.release();
        }
    }

    private SshConnection handshake(HostSettings host, SSHClient client, HostKeyCheck check, List<Path> keyFiles,
                                    List<UsableKey> keys, String destination) throws UnreachableException {
        try {
            if (host.jump().isPresent()) {
                HostSettings.Jump jump = host.jump().get();
                SSHClient bastion = jumpHost(jump, host.user(), keyFiles).client();
                destination = destination + " via " + jump.host();
                DirectConnection tunnel = bastion.newDirectConnection(host.address(), host.port());
                client.connectVia(tunnel);
            } else {
                client.connect(host.address(), host.port());
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(client);
            throw check.refusal().orElseGet(() -> SshErrors.connectFailed(host.destination()
                    + host.jump().map(j -> " via jump host " + j.host()).orElse(""), e, settings.connectTimeout()));
        }
        authenticate(client, host.user(), keys, host.destination(), host.keepAlive());
        PublicKey verified = check.verifiedKey().orElseThrow();
        // OpenSSH's client carries large uploads where it can reach the host the same way (no jump host)
        Optional<OpenSshUpload.Target> openSsh = host.jump().isPresent() ? Optional.empty()
                : Optional.of(new OpenSshUpload.Target(host.address(), host.port(), host.user(),
                        keys.stream().map(UsableKey::file).toList(), verified, settings.connectTimeout(),
                        host.keepAlive().intervalSeconds(), host.keepAlive().countMax()));
        return new SshConnection(host.hostName(), destination, client, verified, handshakes, openSsh);
    }

    private SSHClient newClient(HostKeyCheck check) {
        SSHClient client = new SSHClient(config);
        client.setSocketFactory(SshSockets.INSTANCE);
        client.setConnectTimeout(Math.toIntExact(settings.connectTimeout().toMillis()));
        client.addHostKeyVerifier(check);
        return client;
    }

    /** A key file that loaded, and where it came from (for messages). */
    private record UsableKey(Path file, KeyProvider key) {
    }

    private List<UsableKey> usableKeys(List<Path> keyFiles, String user, String destination)
            throws UnreachableException {
        List<UsableKey> keys = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Path file : keyFiles) {
            try {
                keys.add(new UsableKey(file, loadKey(file)));
            } catch (UnreachableException e) {
                if (keyFiles.size() == 1) {
                    throw e;
                }
                skipped.add(e.getMessage().replaceFirst("^ssh: ", ""));
            }
        }
        if (keys.isEmpty()) {
            throw new UnreachableException(keyFiles.isEmpty()
                    ? "ssh: no private key to log in as " + user + " to " + destination + ": none of ~/.ssh/id_ed25519,"
                            + " id_ecdsa, id_rsa exists; set ansible_ssh_private_key_file or --private-key"
                    : "ssh: no usable private key to log in as " + user + " to " + destination + " ("
                            + String.join("; ", skipped) + ")");
        }
        return List.copyOf(keys);
    }

    private void authenticate(SSHClient client, String user, List<UsableKey> keys, String destination,
                              HostSettings.KeepAlive keepAlive) throws UnreachableException {
        // Only the keys that loaded were offered; a skipped one was named when it was skipped.
        String tried = keys.stream().map(key -> display(key.file())).collect(Collectors.joining(", "));
        try {
            client.auth(user, keys.stream().<AuthMethod>map(key -> new SignedPublickey(key.key())).toList());
            Heartbeat.begin(client, keepAlive);
        } catch (UserAuthException e) {
            closeQuietly(client);
            throw new UnreachableException("ssh: authentication as " + user + " to " + destination
                    + " failed (tried keys: " + tried + ")", e);
        } catch (IOException e) {
            closeQuietly(client);
            throw new UnreachableException("ssh: connection to " + destination + " failed during authentication: "
                    + SshErrors.reason(e), e);
        }
    }

    private List<Path> keyFiles(HostSettings host) throws UnreachableException {
        Optional<Path> explicit = host.privateKey().or(settings::privateKey);
        if (explicit.isPresent()) {
            if (!Files.isRegularFile(explicit.get())) {
                throw new UnreachableException("ssh: private key " + display(explicit.get()) + " for " + host.hostName()
                        + " does not exist");
            }
            return List.of(explicit.get());
        }
        return DEFAULT_KEYS.stream()
                .map(name -> settings.home().resolve(".ssh").resolve(name))
                .filter(Files::isRegularFile)
                .toList();
    }

    /** Reads and decodes a key file once per run, however many hosts use it. */
    private KeyProvider loadKey(Path file) throws UnreachableException {
        KeyProvider loaded = loadedKeys.get(file);
        if (loaded != null) {
            return loaded;
        }
        try (SSHClient reader = new SSHClient(config)) {
            KeyProvider provider = reader.loadKeys(file.toString());
            KeyProvider decoded = new KeyPairWrapper(new KeyPair(provider.getPublic(), provider.getPrivate()));
            KeyProvider raced = loadedKeys.putIfAbsent(file, decoded);
            return raced == null ? decoded : raced;
        } catch (IOException | RuntimeException e) {
            throw new UnreachableException("ssh: cannot use private key " + display(file) + ": " + SshErrors.reason(e)
                    + " (keys with a passphrase and ssh-agent are not supported yet)", e);
        }
    }

    private JumpHost jumpHost(HostSettings.Jump jump, String targetUser, List<Path> keyFiles) {
        String user = jump.userOr(targetUser);
        return jumpHosts.computeIfAbsent(user + "@" + jump.host() + ":" + jump.port(),
                ignored -> new JumpHost(jump, user, keyFiles));
    }

    /** A bastion shared by every host behind it: one connection, many tunnels. */
    private final class JumpHost {
        private final HostSettings.Jump jump;
        private final String user;
        private final List<Path> keyFiles;
        private SSHClient client;

        JumpHost(HostSettings.Jump jump, String user, List<Path> keyFiles) {
            this.jump = jump;
            this.user = user;
            this.keyFiles = List.copyOf(keyFiles);
        }

        synchronized SSHClient client() throws UnreachableException {
            if (client != null && client.isConnected() && client.isAuthenticated()) {
                return client;
            }
            String destination = jump.host() + ":" + jump.port();
            List<UsableKey> keys = usableKeys(keyFiles, user, destination);
            HostKeyCheck check = new HostKeyCheck(knownHosts, jump.host(), jump.host(), jump.port());
            SSHClient fresh = newClient(check);
            try {
                fresh.connect(jump.host(), jump.port());
            } catch (IOException | RuntimeException e) {
                closeQuietly(fresh);
                throw check.refusal().orElseGet(() -> SshErrors.connectFailed(destination + " (jump host)", e,
                        settings.connectTimeout()));
            }
            authenticate(fresh, user, keys, destination + " (jump host)", HostSettings.KeepAlive.DEFAULT);
            client = fresh;
            return client;
        }

        synchronized void close() {
            if (client != null) {
                closeQuietly(client);
                client = null;
            }
        }
    }

    private String display(Path file) {
        Path home = settings.home();
        return file.startsWith(home) ? "~/" + home.relativize(file) : file.toString();
    }

    private static void closeQuietly(SSHClient client) {
        Heartbeat.end(client);
        try {
            client.close();
        } catch (IOException e) {
            // Giving up on this client anyway.
        }
    }
}
