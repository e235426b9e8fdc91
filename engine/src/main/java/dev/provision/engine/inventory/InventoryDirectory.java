package dev.provision.engine.inventory;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A directory given as an inventory source, read as users keep one: inventory files beside a README,
 * the cluster's key pair, templates and backups. Every file in it and below is an inventory file, read
 * in name order, except:
 * <ul>
 *   <li>what Ansible never reads there: hidden entries, {@code group_vars/}, {@code host_vars/},
 *       {@code vars_plugins/} (not reported: they are not sources);</li>
 *   <li>the extensions Ansible ignores there (its {@code INVENTORY_IGNORE_EXTS} default);</li>
 *   <li>what is plainly no inventory: a public key ({@code .pub}), a private key or another PEM
 *       file, told by its first line; such a file is never parsed, so no error can quote it;</li>
 *   <li>a file that does not parse as YAML or INI, as Ansible skips it, unless its name says that it
 *       is an inventory ({@code hosts}, {@code *.yml}, {@code inventory.*}): that one's mistake stays
 *       an error at its file:line:column.</li>
 * </ul>
 * A file skipped adds no host. What was skipped is told as {@code path (why)}, never with the file's
 * content; a subdirectory that holds no inventory file is told once, with its files.
 */
final class InventoryDirectory {
    /** Names Ansible never reads in a directory source (its {@code IGNORED_ALWAYS}, hidden ones aside). */
    private static final Set<String> NOT_SOURCES = Set.of("group_vars", "host_vars", "vars_plugins");
    /** Ansible's {@code INVENTORY_IGNORE_EXTS} default: {@code REJECT_EXTS} and four more. */
    private static final List<String> IGNORED_EXTENSIONS = List.of(".pyc", ".pyo", ".swp", ".bak", "~", ".rpm",
            ".md", ".txt", ".rst", ".orig", ".ini", ".cfg", ".retry");
    /** Names a user gives inventory files; such a file with a mistake is an error, never skipped. */
    private static final Pattern MEANT_AS_INVENTORY = Pattern.compile(
            "(?i).*\\.(ya?ml|json)|hosts|inventory|(hosts|inventory)\\..*");
    /** A template of an inventory ({@code hosts.j2}) is not one, whatever its name. */
    private static final Pattern TEMPLATE = Pattern.compile("(?i).*\\.(j2|jinja2?)");
    private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\\s*"
            + "|PuTTY-User-Key-File-.*|SSH PRIVATE KEY FILE FORMAT.*");
    private static final Pattern PUBLIC_KEY = Pattern.compile("---- BEGIN SSH2 PUBLIC KEY ----\\s*"
            + "|(?:ssh-|ecdsa-|sk-)\\S+ AAAA\\S*(?: .*)?");
    /** Enough for the longest first line told apart above. */
    private static final int HEAD_BYTES = 128;

    /** One file or directory left out, and why. */
    private record Skipped(Path path, String why) {
    }

    private final Path root;
    private final InventoryBuilder builder;
    private final List<Skipped> skipped = new ArrayList<>();
    /** Directories below the root with an inventory file in them or below: the others are told as one. */
    private final Set<Path> withInventory = new HashSet<>();
    private final Set<Path> seen = new HashSet<>();
    private int read;

    private InventoryDirectory(Path root, InventoryBuilder builder) {
        this.root = root;
        this.builder = builder;
    }

    /**
     * Reads the inventory files of {@code dir} into {@code builder}.
     *
     * @return one line per entry left out: its path and why (see the class comment)
     * @throws InvalidInputException a directory that cannot be listed, an inventory file with a
     *     mistake, a directory that names no host
     */
    static List<String> read(Path dir, InventoryBuilder builder) throws InvalidInputException {
        int before = builder.hostMentions();
        InventoryDirectory walk = new InventoryDirectory(dir, builder);
        walk.visit(dir);
        List<String> report = walk.report();
        if (builder.hostMentions() == before) {
            // Ansible warns and goes on with no hosts; a run that targets nothing must not look fine
            String found = walk.read == 0 ? "it holds no inventory file" : "read " + walk.read + " file(s)";
            String left = report.isEmpty() ? "" : "; skipped " + String.join(", ", report);
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "inventory directory names no host (" + found + left + ")");
        }
        return report;
    }

    private void visit(Path dir) throws InvalidInputException {
        try {
            if (!seen.add(dir.toRealPath())) {
                return; // a symbolic link back up the tree
            }
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "cannot read inventory directory: " + e.getMessage());
        }
        for (Path entry : list(dir)) {
            String name = entry.getFileName().toString();
            if (name.startsWith(".") || NOT_SOURCES.contains(name)) {
                continue;
            }
            Optional<String> extension = IGNORED_EXTENSIONS.stream().filter(name::endsWith).findFirst();
            if (extension.isPresent()) {
                skipped.add(new Skipped(entry, "Ansible ignores '" + extension.get() + "' files in an inventory directory"
                        + (extension.get().equals(".ini") ? "; give it with its own -i to read it" : "")));
            } else if (Files.isDirectory(entry)) {
                visit(entry);
            } else if (Files.isRegularFile(entry)) {
                readFile(entry);
            }
        }
    }

    private void readFile(Path file) throws InvalidInputException {
        Optional<String> notInventory = plainlyNotInventory(file);
        if (notInventory.isPresent()) {
            skipped.add(new Skipped(file, notInventory.get()));
            return;
        }
        // A file that fails half-way is taken back whole: what it added before its mistake is no host.
        InventoryBuilder before = builder.copy();
        try {
            InventoryFiles.read(file, builder);
        } catch (InvalidInputException e) {
            String name = file.getFileName().toString();
            if (MEANT_AS_INVENTORY.matcher(name).matches() && !TEMPLATE.matcher(name).matches()) {
                throw e; // a .yml or a 'hosts' file with a mistake is the user's inventory: its error, not a skip
            }
            builder.restore(before);
            // its line only: the message may quote the file, which may be anything
            skipped.add(new Skipped(file, e.position().line() > 0
                    ? "not YAML or INI: it does not parse at line " + e.position().line() : "it cannot be read"));
            return;
        }
        read++;
        for (Path dir = file.getParent(); dir != null && !dir.equals(root); dir = dir.getParent()) {
            withInventory.add(dir);
        }
    }

    /** Why a file is no inventory without parsing it: its name or its first line. */
    private static Optional<String> plainlyNotInventory(Path file) {
        if (file.getFileName().toString().endsWith(".pub")) {
            return Optional.of("a public key");
        }
        String head;
        try (InputStream in = Files.newInputStream(file)) {
            head = new String(in.readNBytes(HEAD_BYTES), StandardCharsets.ISO_8859_1).lines().findFirst().orElse("");
        } catch (IOException e) {
            return Optional.empty(); // reading it whole says why
        }
        if (PRIVATE_KEY.matcher(head).matches()) {
            return Optional.of("a private key");
        }
        if (PUBLIC_KEY.matcher(head).matches()) {
            return Optional.of("a public key");
        }
        if (head.startsWith("-----BEGIN ")) {
            return Optional.of("a PEM file (a certificate or a key)");
        }
        return Optional.empty();
    }

    /** The skipped entries; those of a subdirectory that holds no inventory file as one line. */
    private List<String> report() {
        Map<Path, List<Skipped>> byPlace = new LinkedHashMap<>();
        for (Skipped s : skipped) {
            byPlace.computeIfAbsent(placeOf(s.path()), k -> new ArrayList<>()).add(s);
        }
        List<String> lines = new ArrayList<>();
        byPlace.forEach((place, entries) -> {
            if (entries.size() == 1 && entries.getFirst().path().equals(place)) {
                lines.add(place + " (" + entries.getFirst().why() + ")");
            } else {
                List<String> inside = entries.stream().map(s -> place.relativize(s.path()) + ": " + s.why()).toList();
                lines.add(place + "/ (no inventory in it: " + String.join(", ", inside) + ")");
            }
        });
        return lines;
    }

    /** The outermost directory above {@code path}, below the root, with no inventory file; else {@code path}. */
    private Path placeOf(Path path) {
        Path place = path;
        for (Path dir = path.getParent(); dir != null && !dir.equals(root); dir = dir.getParent()) {
            if (!withInventory.contains(dir)) {
                place = dir;
            }
        }
        return place;
    }

    private static List<Path> list(Path dir) throws InvalidInputException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(dir.toString(), 0, 0),
                    "cannot list inventory directory: " + e.getMessage());
        }
    }
}
