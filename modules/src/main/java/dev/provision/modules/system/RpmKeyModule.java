package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code rpm_key} (Ansible's {@code ansible.builtin.rpm_key}): an OpenPGP key imported into rpm's
 * database ({@code state: present}) or not ({@code absent}).
 *
 * <p>Whether a key is imported is decided by its short key id: rpm lists an imported key as the
 * package {@code gpg-pubkey-SHORTID-CREATED} ({@code rpm -q gpg-pubkey}). The key's id is read from
 * the key itself, on the controller ({@link OpenPgpKey}): a {@code key} that is a path is read with
 * {@link HostView#readFile}; a URL is downloaded by the node with a read-only probe
 * ({@code curl -fsSL URL}, stdout only, nothing written), so that a dry run knows the key id exactly
 * and plans exactly what the run does. The bytes that were checked are the bytes imported: a URL's
 * key is written to {@code /tmp/provision-rpm-key-SHORTID.asc}, imported with {@code rpm --import},
 * and removed; a path is imported where it is. {@code key} may also be a key id (8, 16 or 40 hex
 * digits): enough for {@code absent}, and for {@code present} when the key is already imported.
 * {@code fingerprint} is checked, as in Ansible, before a key is imported.
 */
public final class RpmKeyModule implements TaskModule {
    static final List<String> QUERY = List.of("rpm", "-q", "gpg-pubkey", "--qf", "%{VERSION}-%{RELEASE}\\n");

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("key", Type.STRING)
            .choice("state", "present", "present", "absent")
            .optional("fingerprint", Type.STRING)
            .withDefault("validate_certs", Type.BOOL, true)
            .build();

    public RpmKeyModule() {
    }

    @Override
    public String name() {
        return "rpm_key";
    }

    @Override
    public String description() {
        return """
                An OpenPGP key imported into rpm (present) or not (absent), decided by its key id: rpm lists an
                imported key as gpg-pubkey-SHORTID (rpm -q gpg-pubkey).
                  key: a path on the node, an http(s) URL, or a key id (8, 16 or 40 hex digits; enough for
                    absent, and for present when the key is imported already)
                  fingerprint: the key's 40 hex digits (blanks allowed), checked before the key is imported
                  validate_certs (default true): false downloads with curl -k
                The key id is read from the key itself: a URL is fetched by the node with 'curl -fsSL URL'
                while planning (read-only: to stdout), so --check knows exactly which key it is; the same
                bytes are imported (written to /tmp/provision-rpm-key-SHORTID.asc, rpm --import, removed).
                absent runs rpm --erase --allmatches gpg-pubkey-SHORTID. Only version 4 keys are read.""";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** Where the key is: a URL, a path on the node, or only its id. */
    private sealed interface Source {
        record Url(String url) implements Source {
        }

        record Path(String path) implements Source {
        }

        record KeyId(String shortId) implements Source {
        }
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String key = params.string("key").strip();
        boolean present = params.string("state").equals("present");
        HostView host = context.host();
        Source source = source(key);
        Optional<byte[]> bytes = switch (source) {
            case Source.Url u -> Optional.of(download(host, u.url(), params.bool("validate_certs")));
            case Source.Path p -> Optional.of(host.readFile(p.path()).orElseThrow(() -> new ModuleException("Not a valid key " + key
                    + ": no such file on the node")));
            case Source.KeyId k -> Optional.empty();
        };
        Optional<OpenPgpKey> parsed = Optional.empty();
        if (bytes.isPresent()) {
            try {
                parsed = Optional.of(OpenPgpKey.parse(bytes.get()));
            } catch (IllegalArgumentException e) {
                throw new ModuleException("Not a valid key " + key + ": " + e.getMessage());
            }
        }
        String shortId = parsed.map(OpenPgpKey::rpmVersion).orElseGet(() -> ((Source.KeyId) source).shortId());
        Imported imported = imported(host);
        String pkg = "gpg-pubkey-" + shortId;
        if (!present) {
            if (!imported.containsKey(shortId)) {
                return Plan.converged("no key " + shortId + " is imported (" + pkg + " is not installed)");
            }
            return Plan.of(Change.of("remove rpm key " + shortId + " (" + pkg + ")",
                    Command.Exec.of("rpm", "--erase", "--allmatches", pkg)));
        }
        if (imported.containsKey(shortId)) {
            return Plan.converged("key " + shortId + " is imported (" + pkg + ")");
        }
        OpenPgpKey k = parsed.orElseThrow(() -> new ModuleException("When importing a key, a valid file must be given: key "
                + key + " is not imported, and a key id alone cannot import it; give its path or URL"));
        Optional<String> fingerprint = params.optString("fingerprint").map(f -> f.replace(" ", "").toUpperCase(Locale.ROOT));
        if (fingerprint.isPresent() && !fingerprint.get().equals(k.fingerprint())) {
            throw new ModuleException("The specified fingerprint, '" + fingerprint.get() + "', does not match the key fingerprint '"
                    + k.fingerprint() + "'");
        }
        String summary = "import rpm key " + shortId + " (fingerprint " + k.fingerprint() + ") from " + key;
        List<Command> commands = switch (source) {
            case Source.Url u -> {
                String tmp = "/tmp/provision-rpm-key-" + shortId + ".asc";
                yield List.of(new Command.PutFile(tmp, bytes.get(), new Attributes(Optional.of("0600"), Optional.empty(), Optional.empty())),
                        Command.Exec.of("rpm", "--import", tmp), new Command.Remove(tmp));
            }
            case Source.Path p -> List.of(Command.Exec.of("rpm", "--import", p.path()));
            case Source.KeyId id -> throw new IllegalStateException("a key id has no key to import");
        };
        imported.put(shortId, k.rpmRelease());
        return new Plan(List.of(new Change(summary, List.of(), commands)), "", java.util.Map.of(), java.util.Map.of())
                .withProbeAfterwards(QUERY, new ProbeResult(0, imported.render(), ""));
    }

    private static Source source(String key) throws ModuleException {
        if (key.contains("://")) {
            String lower = key.toLowerCase(Locale.ROOT);
            if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
                throw new ModuleException("key '" + key + "': only http:// and https:// URLs are fetched");
            }
            return new Source.Url(key);
        }
        String hex = key.startsWith("0x") || key.startsWith("0X") ? key.substring(2) : key;
        if (hex.matches("[0-9a-fA-F]{8}|[0-9a-fA-F]{16}|[0-9a-fA-F]{40}")) {
            return new Source.KeyId(hex.substring(hex.length() - 8).toLowerCase(Locale.ROOT));
        }
        if (!key.startsWith("/")) {
            throw new ModuleException("Not a valid key " + key + ": give an absolute path on the node, an http(s) URL or a key id");
        }
        return new Source.Path(key);
    }

    /** The key as the node downloads it: a read-only probe that prints it (nothing is written on the node). */
    private static byte[] download(HostView host, String url, boolean validateCerts) throws ModuleException {
        List<String> argv = new ArrayList<>(List.of("curl", "-fsSL", "--max-time", "60", "--proto", "=http,https"));
        if (!validateCerts) {
            argv.add("-k");
        }
        argv.add(url);
        ProbeResult result = host.probe(argv.toArray(String[]::new));
        if (!result.ok()) {
            throw new ModuleException("failed to fetch key at " + url + ", error was: " + result.stderr().strip()
                    + " (exit " + result.exitCode() + ")");
        }
        byte[] bytes = result.stdout().getBytes(StandardCharsets.UTF_8);
        if (!OpenPgpKey.isArmored(bytes)) {
            throw new ModuleException("Not a public key: " + url + " (an ASCII-armored PGP PUBLIC KEY BLOCK is expected)");
        }
        return bytes;
    }

    /** The keys rpm lists: short id to creation time, both lower-case hex; none when there are none. */
    private static Imported imported(HostView host) throws ModuleException {
        ProbeResult result = host.probe(QUERY.toArray(String[]::new));
        Imported imported = new Imported(new java.util.LinkedHashMap<>());
        if (!result.ok()) {
            if (result.exitCode() == 1 && result.stdout().contains("is not installed")) {
                return imported;
            }
            throw new ModuleException("cannot list rpm's keys (" + String.join(" ", QUERY) + "): "
                    + (result.stderr().isBlank() ? result.stdout() : result.stderr()).strip());
        }
        for (String line : result.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            int dash = line.indexOf('-');
            imported.put(line.substring(0, dash < 0 ? line.length() : dash).toLowerCase(Locale.ROOT),
                    dash < 0 ? "" : line.substring(dash + 1));
        }
        return imported;
    }

    /** Imported keys in rpm's order. */
    private record Imported(java.util.Map<String, String> keys) {
        boolean containsKey(String shortId) {
            return keys.containsKey(shortId);
        }

        void put(String shortId, String release) {
            keys.put(shortId, release);
        }

        String render() {
            StringBuilder sb = new StringBuilder();
            keys.forEach((v, r) -> sb.append(v).append('-').append(r).append('\n'));
            return sb.toString();
        }
    }
}
