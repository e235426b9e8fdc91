package dev.provision.engine.plan;

import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * Fingerprints of what a plan was made from, so that an apply from an edited playbook or inventory
 * is refused with a clear message before any host is contacted. The playbook counts with what sits
 * beside it and shapes a run ({@code roles/}, {@code templates/}, {@code files/}, {@code vars/},
 * {@code group_vars/}, {@code host_vars/}); an inventory source is its file, its directory, or the
 * host list as written. (The apply's own dry run is the real guard: it compares every change.)
 */
public final class Sources {
    private static final List<String> BESIDE_PLAYBOOK = List.of("roles", "templates", "files", "vars", "group_vars", "host_vars");
    private static final int MAX_FILES = 20_000;

    private Sources() {
    }

    public static String playbook(Path playbook) throws IOException {
        MessageDigest md = Sha256.digest();
        add(md, playbook.getFileName().toString(), Files.readAllBytes(playbook));
        Path dir = playbook.toAbsolutePath().getParent();
        for (String sub : BESIDE_PLAYBOOK) {
            tree(md, dir, dir.resolve(sub));
        }
        return HexFormat.of().formatHex(md.digest());
    }

    public static String inventory(List<String> sources) throws IOException {
        MessageDigest md = Sha256.digest();
        for (String source : sources) {
            Path p = Path.of(source);
            if (Files.isRegularFile(p)) {
                add(md, source, Files.readAllBytes(p));
            } else if (Files.isDirectory(p)) {
                tree(md, p, p);
            } else {
                add(md, "hosts", source.getBytes(StandardCharsets.UTF_8));
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** The extra variables of a run, as one digest (their values may be secrets: only the digest is kept). */
    public static String extraVars(java.util.Map<String, Object> vars) throws IOException {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper()
                .configure(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
        return Sha256.hex(json.writeValueAsBytes(vars));
    }

    private static void tree(MessageDigest md, Path base, Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir, 12)) {
            walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith(".")).limit(MAX_FILES).forEach(files::add);
        }
        files.sort(null);
        for (Path f : files) {
            add(md, base.relativize(f).toString(), Files.readAllBytes(f));
        }
    }

    private static void add(MessageDigest md, String name, byte[] content) {
        md.update(name.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(Long.toString(content.length).getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(content);
    }
}
