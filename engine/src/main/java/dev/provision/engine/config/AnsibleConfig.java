package dev.provision.engine.config;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of an Ansible project's {@code ansible.cfg} that provision honours, read as Ansible
 * finds the file: {@code $ANSIBLE_CONFIG}, else {@code ansible.cfg} in the current directory, else
 * in the playbook's directory (a project keeps it beside its playbooks). From {@code [defaults]}:
 * {@code roles_path} (colon-separated, relative to the file), {@code inventory}, {@code remote_user},
 * {@code forks}. {@code host_key_checking = False} is refused with the reason: provision never turns
 * host-key checking off. Other keys are named in one warning ({@link #ignored}), never silently
 * dropped.
 *
 * @param file the file read; empty when there is none
 * @param ignored keys of {@code [defaults]} provision does not act on, in name order
 */
public record AnsibleConfig(Optional<Path> file, List<Path> rolesPath, List<String> inventory, Optional<String> remoteUser,
                            Optional<Integer> forks, List<String> ignored) {
    public static final AnsibleConfig NONE = new AnsibleConfig(Optional.empty(), List.of(), List.of(), Optional.empty(),
            Optional.empty(), List.of());
    private static final Set<String> HONOURED = Set.of("roles_path", "inventory", "hostfile", "remote_user", "forks", "host_key_checking");

    public AnsibleConfig {
        requireNonNull(file, "file cannot be null");
        rolesPath = List.copyOf(rolesPath);
        inventory = List.copyOf(inventory);
        requireNonNull(remoteUser, "remoteUser cannot be null");
        requireNonNull(forks, "forks cannot be null");
        ignored = List.copyOf(ignored);
    }

    /** The file Ansible would read for a playbook in {@code playbookDirectory}; {@link #NONE} without one. */
    public static AnsibleConfig find(Map<String, String> env, Path currentDirectory, Path playbookDirectory) throws InvalidInputException {
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(env.get("ANSIBLE_CONFIG")).filter(v -> !v.isBlank()).map(Path::of).ifPresent(candidates::add);
        candidates.add(currentDirectory.resolve("ansible.cfg"));
        candidates.add(playbookDirectory.resolve("ansible.cfg"));
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate)) {
                return read(candidate);
            }
        }
        return NONE;
    }

    /** Reads {@code file}'s {@code [defaults]} section (INI: {@code key = value}, {@code #} and {@code ;} comments). */
    public static AnsibleConfig read(Path file) throws InvalidInputException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidInputException(new SourcePosition(file.toString(), 1, 1), "cannot read " + file + ": " + e.getMessage());
        }
        Map<String, String> defaults = new LinkedHashMap<>();
        Map<String, Integer> lineOf = new LinkedHashMap<>();
        String section = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                section = line.substring(1, line.length() - 1).strip();
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0 || !section.equals("defaults")) {
                continue;
            }
            String key = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(eq + 1).replaceFirst("\\s+[#;].*$", "").strip();
            defaults.put(key, value);
            lineOf.put(key, i + 1);
        }
        Path base = file.toAbsolutePath().getParent();
        String hostKeyChecking = defaults.getOrDefault("host_key_checking", "true").toLowerCase(Locale.ROOT);
        if (List.of("false", "no", "0", "off").contains(hostKeyChecking)) {
            throw new InvalidInputException(new SourcePosition(file.toString(), lineOf.get("host_key_checking"), 1),
                    "host_key_checking = " + defaults.get("host_key_checking") + " is refused: provision always verifies host keys"
                            + " (an unknown host is recorded on first contact, as OpenSSH's accept-new; a replaced node is accepted with"
                            + " --replaced HOST); remove the line");
        }
        List<Path> roles = new ArrayList<>();
        for (String entry : defaults.getOrDefault("roles_path", "").split(":")) {
            if (!entry.isBlank()) {
                roles.add(base.resolve(expandHome(entry.strip())).normalize());
            }
        }
        List<String> inventory = new ArrayList<>();
        String inv = defaults.getOrDefault("inventory", defaults.getOrDefault("hostfile", "")).strip();
        if (inv.endsWith(",")) {
            inventory.add(inv); // a host list (node01,node02,) as -i takes it
        } else {
            for (String entry : inv.split(",")) {
                if (!entry.isBlank()) {
                    inventory.add(base.resolve(expandHome(entry.strip())).normalize().toString()); // relative to the file
                }
            }
        }
        Optional<Integer> forks = Optional.empty();
        if (defaults.containsKey("forks")) {
            try {
                forks = Optional.of(Integer.parseInt(defaults.get("forks")));
            } catch (NumberFormatException e) {
                throw new InvalidInputException(new SourcePosition(file.toString(), lineOf.get("forks"), 1),
                        "forks must be a number, got '" + defaults.get("forks") + "'");
            }
        }
        Set<String> ignored = new TreeSet<>(defaults.keySet());
        ignored.removeAll(HONOURED);
        return new AnsibleConfig(Optional.of(file), roles, inventory, Optional.ofNullable(defaults.get("remote_user")).filter(u -> !u.isBlank()),
                forks, List.copyOf(ignored));
    }

    private static String expandHome(String path) {
        return path.startsWith("~/") ? System.getProperty("user.home") + path.substring(1) : path;
    }
}
