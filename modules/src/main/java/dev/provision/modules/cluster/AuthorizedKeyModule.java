package dev.provision.modules.cluster;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code authorized_key}: public keys in a user's {@code authorized_keys}.
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code user}, required: the account; its home comes from {@code getent passwd USER} and
 *       its primary group from {@code id -gn USER}.
 *   <li>{@code key}, required: one or more public key lines, newline separated (options and
 *       comments allowed). Keys compare on type and base64 blob only: a key that is there with
 *       another comment or other options counts as present and its line is left as it is.
 *   <li>{@code state}: {@code present} (default; missing keys are appended) or {@code absent}.
 *   <li>{@code exclusive} (default false, present only): every other key line is removed (comment
 *       and blank lines stay), duplicates of a wanted key included.
 *   <li>{@code path} (default {@code ~USER/.ssh/authorized_keys}).
 *   <li>{@code manage_dir} (default true): the file's directory is created (or corrected) as 0700
 *       owned by the user; without it a missing directory fails the task.
 * </ul>
 * The file is written 0600, owned by the user and the user's primary group, which sshd's
 * StrictModes accepts. A line that looks like a private key fails the task without echoing it.
 */
public final class AuthorizedKeyModule implements TaskModule {
    // getent and id would read a leading '-' as an option.
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*\\$?");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("user", Type.STRING)
            .required("key", Type.STRING)
            .choice("state", "present", "present", "absent")
            .withDefault("exclusive", Type.BOOL, false)
            .optional("path", Type.STRING)
            .withDefault("manage_dir", Type.BOOL, true)
            .build();

    public AuthorizedKeyModule() {
    }

    @Override
    public String name() {
        return "authorized_key";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String user = params.string("user");
        if (!USER.matcher(user).matches()) {
            throw new ModuleException("user '" + user + "' is not a user name");
        }
        boolean present = params.string("state").equals("present");
        boolean exclusive = params.bool("exclusive");
        if (exclusive && !present) {
            throw new ModuleException("exclusive applies to state=present only");
        }
        List<PublicKey> keys = keys(params.string("key"));
        HostView host = context.host();
        ProbeResult passwd = host.probe("getent", "passwd", user);
        if (!passwd.ok()) {
            throw new ModuleException("user " + user + " does not exist on this host");
        }
        String[] fields = passwd.stdout().strip().split(":", -1);
        if (fields.length < 7 || !fields[5].startsWith("/")) {
            throw new ModuleException("cannot read the home directory of " + user + " from getent passwd");
        }
        ProbeResult groupProbe = host.probe("id", "-gn", user);
        if (!groupProbe.ok()) {
            throw new ModuleException("cannot read the primary group of " + user + ": " + groupProbe.stderr().strip());
        }
        String group = groupProbe.stdout().strip();
        String path = params.optString("path").orElse(fields[5].replaceAll("/+$", "") + "/.ssh/authorized_keys");
        if (!path.startsWith("/")) {
            throw new ModuleException("path must be an absolute path, got '" + path + "'");
        }
        String directory = path.substring(0, Math.max(1, path.lastIndexOf('/')));
        Attributes fileAttributes = new Attributes(Optional.of("0600"), Optional.of(user), Optional.of(group));
        List<Change> changes = new ArrayList<>();
        boolean directoryExists = host.stat(directory).isPresent();
        if (params.bool("manage_dir") && present) {
            changes.addAll(FileContentPlanner.directory(host, directory,
                    new Attributes(Optional.of("0700"), Optional.of(user), Optional.of(group))).changes());
        }
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, path);
        String describe = keys.size() == 1 ? "key " + shortKey(keys.getFirst()) : keys.size() + " keys";
        if (existing.isEmpty()) {
            if (!present) {
                return Plan.converged(path + " does not exist; no key to remove");
            }
            StringBuilder sb = new StringBuilder();
            keys.forEach(k -> sb.append(line(k)).append('\n'));
            byte[] content = sb.toString().getBytes(StandardCharsets.UTF_8);
            changes.addAll(directoryExists || !params.bool("manage_dir")
                    ? FileContentPlanner.create(host, path, content, fileAttributes).changes()
                    : FileContentPlanner.createInNewDirectory(path, content, fileAttributes).changes());
            return Plan.of(changes, "");
        }
        String text = existing.get().text(path);
        List<String> lines = new ArrayList<>(text.lines().toList());
        Set<String> wanted = new LinkedHashSet<>();
        keys.forEach(k -> wanted.add(k.identity()));
        List<String> summary = new ArrayList<>();
        if (present) {
            Set<String> seen = new LinkedHashSet<>();
            int removed = 0;
            for (int i = 0; i < lines.size(); i++) {
                Optional<PublicKey> k = PublicKey.parse(lines.get(i));
                if (k.isEmpty()) {
                    continue;
                }
                boolean keep = !exclusive || (wanted.contains(k.get().identity()) && !seen.contains(k.get().identity()));
                seen.add(k.get().identity());
                if (!keep) {
                    lines.remove(i--);
                    removed++;
                }
            }
            int added = 0;
            for (PublicKey k : keys) {
                if (!seen.contains(k.identity())) {
                    lines.add(line(k));
                    seen.add(k.identity());
                    added++;
                }
            }
            if (added > 0) {
                summary.add("add " + (added == keys.size() ? describe : added + " keys") + " to " + path);
            }
            if (removed > 0) {
                summary.add("remove " + removed + " other key" + (removed == 1 ? "" : "s") + " from " + path + " (exclusive)");
            }
        } else {
            int before = lines.size();
            lines.removeIf(l -> PublicKey.parse(l).map(k -> wanted.contains(k.identity())).orElse(false));
            if (lines.size() < before) {
                summary.add("remove " + describe + " from " + path);
            }
        }
        String converged = path + (present ? " has " : " does not have ") + describe + (exclusive ? " and no other key" : "");
        byte[] content = lines.equals(text.lines().toList()) ? existing.get().content() : render(lines);
        changes.addAll(FileContentPlanner.update(path, existing.get(), content, fileAttributes, String.join("; ", summary), converged).changes());
        return Plan.of(changes, converged);
    }

    private static byte[] render(List<String> lines) {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l).append('\n'));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static List<PublicKey> keys(String written) throws ModuleException {
        if (written.contains("PRIVATE KEY")) {
            // Never echo it: the message lands in logs and reports.
            throw new ModuleException("key holds a private key; give the public key (the .pub file)");
        }
        for (int i = 0; i < written.length(); i++) {
            char c = written.charAt(i);
            if (c != '\n' && c != '\t' && (c < 0x20 || c == 0x7f)) {
                // Only \n separates keys: a \r (or another control character) inside a value would
                // end its line in the file and start one nobody wrote, e.g. a key with command="...".
                throw new ModuleException("key holds a control character (" + String.format("\\x%02x", (int) c)
                        + ") at offset " + i + "; keys are separated by newlines only");
            }
        }
        List<PublicKey> keys = new ArrayList<>();
        List<String> lines = List.of(written.split("\n", -1));
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int number = i + 1;
            keys.add(PublicKey.parse(line).orElseThrow(() -> new ModuleException("key line " + number
                    + " is not an OpenSSH public key (type, base64, optional comment)")));
        }
        if (keys.isEmpty()) {
            throw new ModuleException("key holds no public key");
        }
        return keys;
    }

    private static String line(PublicKey k) {
        return (k.options().isEmpty() ? "" : k.options() + " ") + k.type() + " " + k.blob() + (k.comment().isEmpty() ? "" : " " + k.comment());
    }

    /** {@code ssh-ed25519 ...Xy12 admin@host}: enough to recognise a key in a summary. */
    static String shortKey(PublicKey k) {
        String blob = k.blob();
        return k.type() + " ..." + blob.substring(Math.max(0, blob.length() - 8)) + (k.comment().isEmpty() ? "" : " " + k.comment());
    }

    /** Its only effect is the keys file it writes (and its directory), which the forecast holds exactly: planned with the tasks around it. */
    @Override
    public boolean plansTogether() {
        return true;
    }
}
