package dev.provision.engine.exec;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The controller's memory of each host's facts, one JSON file per host, so that a run limited to
 * one node still renders files that list every node ({@code hostvars[other].facts}). Written after
 * facts are gathered; read for hosts that are not part of the current run. Thread-safe: each host
 * has its own file, written atomically.
 */
public final class FactCache {
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]+");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Optional<Path> directory;

    private FactCache(Optional<Path> directory) {
        this.directory = directory;
    }

    /** A cache in {@code directory} (created on first write). */
    public static FactCache at(Path directory) {
        return new FactCache(Optional.of(directory));
    }

    /** No cache: other hosts' facts are known only when they take part in the run. */
    public static FactCache none() {
        return new FactCache(Optional.empty());
    }

    /** {@code $PROVISION_FACT_CACHE}, else {@code ~/.provision/facts}. */
    public static Path defaultDirectory() {
        String env = System.getenv("PROVISION_FACT_CACHE");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".provision", "facts");
    }

    /** Forgets every cached host ({@code --flush-cache}); a cache that is not there is already empty. */
    public void clear() throws java.io.IOException {
        if (directory.isEmpty() || !Files.isDirectory(directory.get())) {
            return;
        }
        try (var files = Files.list(directory.get())) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".json")).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    void store(String host, Map<String, Object> facts) {
        Optional<Path> file = fileOf(host);
        if (file.isEmpty()) {
            return;
        }
        try {
            Files.createDirectories(file.get().getParent());
            Path tmp = Files.createTempFile(file.get().getParent(), ".facts", ".json");
            JSON.writeValue(tmp.toFile(), facts);
            Files.move(tmp, file.get(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // a cache that cannot be written only costs later limited runs some cross-host facts
        }
    }

    Map<String, Object> load(String host) {
        Optional<Path> file = fileOf(host);
        if (file.isEmpty() || !Files.isRegularFile(file.get())) {
            return Map.of();
        }
        try {
            return JSON.readValue(file.get().toFile(), new TypeReference<Map<String, Object>>() { });
        } catch (IOException e) {
            return Map.of();
        }
    }

    private Optional<Path> fileOf(String host) {
        if (!SAFE_NAME.matcher(host).matches()) {
            return Optional.empty();
        }
        return directory.map(d -> d.resolve(host + ".json"));
    }
}
