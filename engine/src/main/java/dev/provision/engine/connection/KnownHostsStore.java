package dev.provision.engine.connection;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.schmizz.sshj.common.Buffer;
import net.schmizz.sshj.common.KeyType;

/**
 * The controller's record of every host key it has verified: a file in OpenSSH {@code known_hosts}
 * format (default {@code ~/.provision/known_hosts}), readable by {@code ssh} itself.
 *
 * <p>Entries are written plain (unhashed) as {@code name,address keytype base64}, the inventory name
 * first, with {@code [name]:port} forms for ports other than 22. Lookups match the inventory name or
 * the address, plain or hashed ({@code |1|}); wildcard patterns, {@code @cert-authority} and
 * {@code @revoked} lines are kept in the file but never match.
 *
 * <p>Verification is never switched off. An unknown host is recorded ({@link Policy#ACCEPT_NEW}, like
 * OpenSSH {@code accept-new}) or refused ({@link Policy#STRICT}). A known host that offers another key
 * is refused, with both fingerprints and the command that accepts it, unless it is one of the
 * {@code replacedHosts}: then its old entries are replaced by the new key (once: a replaced host whose
 * key did not change is left as it is). A host offering a key of a type not recorded for it counts as
 * changed (we ask servers for the recorded types first, see {@link #knownAlgorithms}).
 *
 * <p>Thread-safe: the executor verifies hosts in parallel. A change re-reads the file first when it
 * changed on disk since this store last read or wrote it (so that another run's additions survive).
 * A new host's entry is appended (one write of one line); any other change replaces the file
 * atomically (temp file and rename). The directory is created {@code 0700}, the file {@code 0600}.
 * (Rewriting the whole file for every new host, and matching every line for every host, made first
 * contact with a thousand hosts cost a million parsed lines.)
 */
public final class KnownHostsStore {

    /** What happens to a host whose key is not recorded yet. */
    public enum Policy {
        /** Accept and record it (trust on first use). */
        ACCEPT_NEW,
        /** Refuse it: every host key must be in the file beforehand. */
        STRICT
    }

    private final Path file;
    private final Policy policy;
    private final Set<String> replacedHosts;
    private final Map<String, PublicKey> verified = new HashMap<>();
    private final Set<String> changedKeyHosts = new LinkedHashSet<>();
    /** The file's lines as last read or written; null before the first read. */
    private List<Line> lines;
    /** The entries of {@link #lines} by name, and its hashed lines (matched one by one). */
    private Map<String, List<Entry>> entriesByName;
    private List<Verbatim> hashedLines;
    /** Each entry's line number in {@link #lines}, to give a host's entries in file order. */
    private Map<Line, Integer> positions;
    /** The file as this store last read or wrote it, to tell whether someone else changed it since. */
    private Stamp stamp = Stamp.NONE;
    /** knownHostLines by host id: read for every host by every host's ssh_known_hosts task (N² a task). */
    private final Map<String, List<String>> hostLines = new HashMap<>();

    /**
     * @param file the known-hosts file; need not exist yet
     * @param policy what to do with unknown hosts
     * @param replacedHosts inventory names of hosts rebuilt since the last run, whose changed key this
     *     run accepts and records
     */
    public KnownHostsStore(Path file, Policy policy, Set<String> replacedHosts) {
        this.file = requireNonNull(file, "file cannot be null");
        this.policy = requireNonNull(policy, "policy cannot be null");
        this.replacedHosts = Set.copyOf(requireNonNull(replacedHosts, "replacedHosts cannot be null"));
    }

    /** {@code ~/.provision/known_hosts}. */
    public static Path defaultFile() {
        return Path.of(System.getProperty("user.home"), ".provision", "known_hosts");
    }

    public Path file() {
        return file;
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Checks the key a host offered and records it where the policy says so.
     *
     * @param host the inventory name (what {@code --replaced} names)
     * @param address what we connected to ({@code ansible_host}); may equal {@code host}
     * @throws UnreachableException when the key is unknown under {@link Policy#STRICT}, when it changed,
     *     or when it could not be recorded; the message is one line
     */
    public synchronized void verify(String host, String address, int port, PublicKey key) throws UnreachableException {
        requireNonNull(host, "host cannot be null");
        requireNonNull(address, "address cannot be null");
        requireNonNull(key, "key cannot be null");
        hostLines.clear();
        List<Entry> known = entriesFor(loaded(), host, address, port);
        byte[] offered = blob(key);
        if (known.stream().anyMatch(e -> Arrays.equals(e.blob(), offered))) {
            verified.put(id(host, port), key);
            return;
        }
        if (known.isEmpty()) {
            if (policy == Policy.STRICT) {
                throw new UnreachableException("host key for " + describe(host, address, port)
                        + " is not known and --strict-host-keys refuses unknown hosts; record it with a run without"
                        + " --strict-host-keys, or add it to " + file);
            }
            add(entry(host, address, port, key));
        } else if (replacedHosts.contains(host)) {
            update(current -> append(withoutHost(current, host, address, port), entry(host, address, port, key)));
        } else {
            Entry old = known.stream().filter(e -> e.keyType().equals(keyType(key))).findFirst().orElse(known.get(0));
            changedKeyHosts.add(host);
            // The store does not know the command line; the CLI prints the exact command at the end of the run.
            throw new UnreachableException("host key for " + describe(host, address, port) + " has changed: known "
                    + old.keyType() + " " + fingerprint(old.key()) + " (in " + file + "), offered " + keyType(key) + " "
                    + fingerprint(key) + "; only if " + host + " was rebuilt, accept its new key by running again with"
                    + " --replaced " + host);
        }
        verified.put(id(host, port), key);
    }

    /**
     * The inventory names of the hosts refused in this run because their key changed: the hosts that a
     * run with {@code --replaced} would accept, if they were indeed rebuilt.
     */
    public synchronized Set<String> changedKeyHosts() {
        return Set.copyOf(changedKeyHosts);
    }

    /**
     * The host key of {@code host}: the one verified in this run, else the first one recorded.
     */
    public synchronized Optional<PublicKey> knownKey(String host, int port) {
        PublicKey inThisRun = verified.get(id(host, port));
        if (inThisRun != null) {
            return Optional.of(inThisRun);
        }
        return entriesFor(loadedQuietly(), host, host, port).stream().map(Entry::key).findFirst();
    }

    /** The key type ({@code ssh-ed25519}, ...) that was verified for {@code host} in this run. */
    public synchronized Optional<String> verifiedKeyType(String host, int port) {
        return Optional.ofNullable(verified.get(id(host, port))).map(KnownHostsStore::keyType);
    }

    /**
     * The recorded keys of {@code host} as OpenSSH writes them after the host names
     * ({@code ssh-ed25519 AAAA...}), the one verified in this run first: what the cluster modules put
     * into the nodes' {@code ssh_known_hosts}, "host keys as the controller verified them".
     */
    public synchronized List<String> knownHostLines(String host, int port) {
        loadedQuietly(); // a (re)load empties this cache: first, not inside computeIfAbsent (which it would break)
        return hostLines.computeIfAbsent(id(host, port), id -> recordedLines(host, port));
    }

    private List<String> recordedLines(String host, int port) {
        Set<String> result = new LinkedHashSet<>();
        PublicKey inThisRun = verified.get(id(host, port));
        if (inThisRun != null) {
            result.add(openSshKey(inThisRun));
        }
        for (Entry entry : entriesFor(loadedQuietly(), host, host, port)) {
            result.add(openSshKey(entry.key()));
        }
        return List.copyOf(result);
    }

    /**
     * The SSH algorithm names of the keys recorded for a host, so that the client asks the server for
     * the type we know (a server with ed25519 and RSA keys otherwise might offer the one we never saw).
     */
    synchronized List<String> knownAlgorithms(String host, String address, int port) {
        Set<String> algorithms = new LinkedHashSet<>();
        for (Entry entry : entriesFor(loadedQuietly(), host, address, port)) {
            if (entry.keyType().equals(KeyType.RSA.toString())) {
                // One recorded RSA key serves all three RSA signature algorithms; prefer the SHA-2 ones.
                algorithms.addAll(List.of("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"));
            } else {
                algorithms.add(entry.keyType());
            }
        }
        return List.copyOf(algorithms);
    }

    /** OpenSSH's fingerprint: {@code SHA256:} and the unpadded base64 of the key blob's SHA-256. */
    public static String fingerprint(PublicKey key) {
        byte[] digest = Sha256.digest().digest(blob(key));
        return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
    }

    /** {@code keytype base64}, as in {@code authorized_keys} and {@code known_hosts}. */
    public static String openSshKey(PublicKey key) {
        return keyType(key) + " " + Base64.getEncoder().encodeToString(blob(key));
    }

    @Override
    public String toString() {
        return "KnownHostsStore[" + file + ", " + policy + "]";
    }

    // --- the file ---

    private sealed interface Line permits Entry, Verbatim {
        String text();
    }

    /** A line we keep as it was: comments, markers, hashed or wildcard entries, keys we cannot parse. */
    private record Verbatim(String text, List<String> patterns) implements Line {
    }

    private record Entry(List<String> patterns, String keyType, String base64, PublicKey key, byte[] blob)
            implements Line {
        @Override
        public String text() {
            return String.join(",", patterns) + " " + keyType + " " + base64;
        }
    }

    @FunctionalInterface
    private interface Change {
        List<Line> apply(List<Line> current);
    }

    private List<Line> loaded() throws UnreachableException {
        if (lines == null) {
            replaceLines(readFile());
        }
        return lines;
    }

    private List<Line> loadedQuietly() {
        try {
            return loaded();
        } catch (UnreachableException e) {
            return List.of();
        }
    }

    /** The file's size, modification time and inode: what tells that another process rewrote it. */
    private record Stamp(long size, long modified, Object fileKey, boolean endsWithNewline) {
        static final Stamp NONE = new Stamp(-1, -1, null, false);

        static Stamp of(Path file, boolean endsWithNewline) {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                return new Stamp(a.size(), a.lastModifiedTime().toMillis(), a.fileKey(), endsWithNewline);
            } catch (IOException e) {
                return NONE;
            }
        }

        boolean sameFileAs(Stamp other) {
            return this != NONE && size == other.size && modified == other.modified
                    && java.util.Objects.equals(fileKey, other.fileKey);
        }
    }

    private boolean unchangedOnDisk() {
        return lines != null && stamp.sameFileAs(Stamp.of(file, false));
    }

    private void update(Change change) throws UnreachableException {
        List<Line> current = unchangedOnDisk() ? lines : readFile();
        List<Line> updated = change.apply(current);
        writeFile(updated);
        replaceLines(updated);
    }

    /** Records a new host's entry: appended to the file when it is as this store left it, else {@link #update}. */
    private void add(Entry entry) throws UnreachableException {
        if (!unchangedOnDisk() || !stamp.endsWithNewline()) {
            update(current -> append(current, entry));
            return;
        }
        try (var out = Files.newOutputStream(file, StandardOpenOption.APPEND)) {
            out.write((entry.text() + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UnreachableException("cannot record host keys in " + file + ": " + e.getMessage(), e);
        }
        stamp = Stamp.of(file, true);
        lines.add(entry);
        index(entry);
        hostLines.clear();
    }

    private void replaceLines(List<Line> content) {
        lines = new ArrayList<>();
        entriesByName = new HashMap<>();
        hashedLines = new ArrayList<>();
        positions = new java.util.IdentityHashMap<>();
        content.forEach(line -> {
            lines.add(line);
            index(line);
        });
        hostLines.clear();
    }

    /** Indexes the last line of {@link #lines}. */
    private void index(Line line) {
        positions.put(line, lines.size() - 1);
        if (line instanceof Entry entry) {
            for (String pattern : entry.patterns()) {
                entriesByName.computeIfAbsent(pattern, p -> new ArrayList<>()).add(entry);
            }
        } else if (line instanceof Verbatim verbatim && !verbatim.patterns().isEmpty()) {
            hashedLines.add(verbatim);
        }
    }

    private List<Line> readFile() throws UnreachableException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            stamp = Stamp.NONE;
            return List.of();
        } catch (IOException e) {
            throw new UnreachableException("cannot read known hosts file " + file + ": " + e.getMessage(), e);
        }
        stamp = Stamp.of(file, bytes.length == 0 || bytes[bytes.length - 1] == '\n');
        List<Line> result = new ArrayList<>();
        new String(bytes, StandardCharsets.UTF_8).lines().forEach(line -> result.add(parse(line)));
        return List.copyOf(result);
    }

    private static Line parse(String line) {
        String trimmed = line.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("@")) {
            return new Verbatim(line, List.of());
        }
        String[] fields = trimmed.split("\\s+");
        if (fields.length < 3) {
            return new Verbatim(line, List.of());
        }
        List<String> patterns = List.of(fields[0].split(","));
        try {
            byte[] blob = Base64.getDecoder().decode(fields[2]);
            PublicKey key = new Buffer.PlainBuffer(blob).readPublicKey();
            if (patterns.stream().anyMatch(p -> p.contains("*") || p.contains("?") || p.startsWith("!"))) {
                return new Verbatim(line, List.of());
            }
            if (patterns.stream().anyMatch(p -> p.startsWith("|"))) {
                // Hashed names match but are never rewritten: keep the line as the user wrote it.
                return new Verbatim(line, patterns);
            }
            return new Entry(patterns, fields[1], fields[2], key, blob);
        } catch (Buffer.BufferException | RuntimeException e) {
            return new Verbatim(line, List.of());
        }
    }

    private void writeFile(List<Line> content) throws UnreachableException {
        try {
            Path directory = file.toAbsolutePath().getParent();
            if (!Files.isDirectory(directory)) {
                try {
                    Files.createDirectories(directory,
                            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (FileAlreadyExistsException raced) {
                    // another run created it meanwhile
                }
            }
            Path temp = Files.createTempFile(directory, ".known_hosts-", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                StringBuilder text = new StringBuilder();
                for (Line line : content) {
                    text.append(line.text()).append('\n');
                }
                Files.writeString(temp, text, StandardCharsets.UTF_8);
                try {
                    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
                }
                stamp = Stamp.of(file, true);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new UnreachableException("cannot record host keys in " + file + ": " + e.getMessage(), e);
        }
    }

    // --- matching and editing ---

    /** The entries naming the host or its address, in file order; {@code content} is {@link #loaded()}. */
    private List<Entry> entriesFor(List<Line> content, String host, String address, int port) {
        if (content.isEmpty()) {
            return List.of();
        }
        Set<String> names = names(host, address, port);
        java.util.SortedMap<Integer, Entry> byPosition = new java.util.TreeMap<>();
        for (String name : names) {
            entriesByName.getOrDefault(name, List.of()).forEach(e -> byPosition.put(positions.get(e), e));
        }
        for (Verbatim verbatim : hashedLines) {
            if (verbatim.patterns().stream().anyMatch(p -> hashedMatches(p, names))
                    && reparseHashed(verbatim) instanceof Entry entry) {
                byPosition.put(positions.get(verbatim), entry);
            }
        }
        return List.copyOf(byPosition.values());
    }

    private static Line reparseHashed(Verbatim verbatim) {
        String[] fields = verbatim.text().strip().split("\\s+");
        try {
            byte[] blob = Base64.getDecoder().decode(fields[2]);
            return new Entry(verbatim.patterns(), fields[1], fields[2], new Buffer.PlainBuffer(blob).readPublicKey(), blob);
        } catch (Buffer.BufferException | RuntimeException e) {
            return verbatim;
        }
    }

    /** OpenSSH hashed host name: {@code |1|base64(salt)|base64(HMAC-SHA1(salt, name))}. */
    private static boolean hashedMatches(String pattern, Set<String> names) {
        String[] parts = pattern.split("\\|");
        if (parts.length != 4 || !parts[1].equals("1")) {
            return false;
        }
        try {
            byte[] salt = Base64.getDecoder().decode(parts[2]);
            byte[] expected = Base64.getDecoder().decode(parts[3]);
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(salt, "HmacSHA1"));
            for (String name : names) {
                if (MessageDigest.isEqual(mac.doFinal(name.getBytes(StandardCharsets.UTF_8)), expected)) {
                    return true;
                }
            }
            return false;
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            return false;
        }
    }

    private static List<Line> append(List<Line> current, Entry entry) {
        List<Line> result = new ArrayList<>(current);
        result.add(entry);
        return List.copyOf(result);
    }

    private static Entry entry(String host, String address, int port, PublicKey key) {
        List<String> patterns = host.equals(address)
                ? List.of(pattern(host, port))
                : List.of(pattern(host, port), pattern(address, port));
        byte[] blob = blob(key);
        return new Entry(patterns, keyType(key), Base64.getEncoder().encodeToString(blob), key, blob);
    }

    /** Drops the host's names from every entry (and hashed lines naming it); other hosts keep theirs. */
    private static List<Line> withoutHost(List<Line> current, String host, String address, int port) {
        Set<String> names = names(host, address, port);
        List<Line> result = new ArrayList<>();
        for (Line line : current) {
            if (line instanceof Entry entry && entry.patterns().stream().anyMatch(names::contains)) {
                List<String> remaining = entry.patterns().stream().filter(p -> !names.contains(p)).toList();
                if (!remaining.isEmpty()) {
                    result.add(new Entry(remaining, entry.keyType(), entry.base64(), entry.key(), entry.blob()));
                }
            } else if (line instanceof Verbatim verbatim
                    && verbatim.patterns().stream().anyMatch(p -> hashedMatches(p, names))) {
                continue;
            } else {
                result.add(line);
            }
        }
        return List.copyOf(result);
    }

    private static Set<String> names(String host, String address, int port) {
        return new LinkedHashSet<>(List.of(pattern(host, port), pattern(address, port)));
    }

    private static String pattern(String host, int port) {
        return port == 22 ? host : "[" + host + "]:" + port;
    }

    private static String id(String host, int port) {
        return pattern(host, port);
    }

    private static String describe(String host, String address, int port) {
        String where = port == 22 ? address : address + ":" + port;
        return host.equals(where) ? host : host + " (" + where + ")";
    }

    private static byte[] blob(PublicKey key) {
        return new Buffer.PlainBuffer().putPublicKey(key).getCompactData();
    }

    private static String keyType(PublicKey key) {
        return KeyType.fromKey(key).toString();
    }
}
