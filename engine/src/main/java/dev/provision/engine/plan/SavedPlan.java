package dev.provision.engine.plan;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.provision.engine.exec.PlanRecording;
import dev.provision.engine.report.TaskResult;
import dev.provision.engine.report.TaskStatus;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reviewed dry run as a file ({@code --save-plan}): per host, every task's planned changes
 * (summaries, diffs, commands as data) and a digest of each, with the header that says what it was
 * planned from. {@code --apply-plan} plans again, read-only, and applies only on hosts whose every
 * digest is the same: the digests cover the changes with their before-state (the diffs' "before"
 * side: content, mode and owner, package versions, image digest, mount state, live values), so a
 * host that moved since the review plans differently and is refused.
 *
 * <p>Secrets never appear in clear: the changes of {@code no_log} tasks and sensitive changes keep
 * only a salted SHA-256 of their summary, diffs and contents (the salt is the plan's own), enough for
 * the apply to know that they did not change. The file carries a SHA-256 over its content, so that
 * an edit by hand is refused; what the apply runs always comes from its own dry run, never from the
 * file. See README "Saved plans" for the format.
 */
public final class SavedPlan {
    public static final String FORMAT = "provision-plan/1";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_FILE_BYTES = 256L << 20;

    /**
     * What the plan was made from and for.
     *
     * @param inventory the {@code -i} sources as given (absolute where they were paths)
     * @param hosts the hosts the plan covers; an apply never goes past them
     */
    public record Header(String version, Instant created, String playbook, String playbookSha256, List<String> inventory,
                         String inventorySha256, List<String> hosts, List<String> tags, List<String> skipTags,
                         String extraVarsSha256, String salt) {
        public Header {
            requireNonNull(version, "version cannot be null");
            requireNonNull(created, "created cannot be null");
            inventory = List.copyOf(inventory);
            hosts = List.copyOf(hosts);
            tags = List.copyOf(tags);
            skipTags = List.copyOf(skipTags);
        }
    }

    /** One step of one host as the file holds it. */
    public record Step(PlanRecording.Step step, String status, boolean hidden, boolean ranForReal, String digest, JsonNode changes) {
    }

    private final Header header;
    private final Map<String, List<Step>> hosts;

    private SavedPlan(Header header, Map<String, List<Step>> hosts) {
        this.header = header;
        this.hosts = hosts;
    }

    public Header header() {
        return header;
    }

    public Map<String, List<Step>> hosts() {
        return hosts;
    }

    /** A fresh salt for {@link Header#salt}. */
    public static String newSalt() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return HexFormat.of().formatHex(salt);
    }

    /** The plan of a recorded dry run. */
    public static SavedPlan of(Header header, PlanRecording recording) {
        Map<String, List<Step>> hosts = new LinkedHashMap<>();
        Map<String, List<PlanRecording.Entry>> recorded = recording.entries();
        header.hosts().forEach(host -> {
            List<PlanRecording.Entry> entries = recorded.getOrDefault(host, List.of());
            List<Step> steps = new ArrayList<>();
            for (PlanRecording.Entry e : entries) {
                PlanRecording.Step step = canonical(e.step(), header);
                steps.add(new Step(step, e.status().word(), e.hidden(), e.ranForReal(), digest(step, e, header.salt()),
                        changes(e, header.salt())));
            }
            hosts.put(host, steps);
        });
        return new SavedPlan(header, hosts);
    }

    /**
     * Why {@code host} cannot be applied from this plan, now that a dry run planned it as
     * {@code fresh}: the first step that differs, what the plan had and what the host needs now;
     * empty when every step is the same.
     */
    public Optional<String> drift(String host, List<PlanRecording.Entry> fresh) {
        List<Step> saved = hosts.getOrDefault(host, List.of()).stream().filter(s -> !s.ranForReal()).toList();
        List<PlanRecording.Entry> now = fresh.stream().filter(e -> !e.ranForReal()).toList();
        for (int i = 0; i < Math.max(saved.size(), now.size()); i++) {
            if (i >= saved.size()) {
                return Optional.of("the plan ends before task '" + name(now.get(i).step()) + "', which the host needs now");
            }
            if (i >= now.size()) {
                return Optional.of("the host no longer reaches task '" + name(saved.get(i).step()) + "'");
            }
            Step was = saved.get(i);
            PlanRecording.Entry is = now.get(i);
            PlanRecording.Step step = canonical(is.step(), header);
            if (!was.step().equals(step)) {
                return Optional.of("task '" + name(was.step()) + "' (" + was.step().position() + ") of the plan is now '"
                        + name(step) + "' (" + step.position() + ")");
            }
            if (!was.digest().equals(digest(step, is, header.salt()))) {
                String planned = was.hidden() ? "(hidden: no_log)" : summaries(was.changes());
                String needed = is.hidden() ? "(hidden: no_log)"
                        : is.changes().isEmpty() ? "nothing (" + is.status().word() + ")" : String.join("; ", is.changes().stream().map(Change::summary).toList());
                return Optional.of("task '" + name(was.step()) + "' (" + was.step().position() + ") was planned as "
                        + (planned.isEmpty() ? "nothing (" + was.status() + ")" : planned) + "; now it needs " + needed
                        + (planned.equals(needed) ? " from another starting state (the before side of its diff moved)" : ""));
            }
        }
        return Optional.empty();
    }

    /** Hosts whose dry run failed when the plan was made: they are never applied from it. */
    public List<String> failedHosts() {
        return hosts.entrySet().stream()
                .filter(e -> e.getValue().stream().anyMatch(s -> s.status().equals(TaskStatus.FAILED.word())))
                .map(Map.Entry::getKey).toList();
    }

    /** The plan as {@code --diff} shows a dry run: one result per host and step, diffs of what is not secret. */
    public List<Map.Entry<PlanRecording.Step, TaskResult>> forDisplay(String host) {
        List<Map.Entry<PlanRecording.Step, TaskResult>> shown = new ArrayList<>();
        for (Step s : hosts.getOrDefault(host, List.of())) {
            List<Change> changes = new ArrayList<>();
            for (JsonNode c : s.changes()) {
                List<Diff> diffs = new ArrayList<>();
                for (JsonNode d : c.path("diffs")) {
                    diffs.add(new Diff(d.path("label").asText(), d.path("before").asText(""), d.path("after").asText("")));
                }
                changes.add(new Change(c.path("summary").asText("(hidden)"), diffs, List.of(new Command.Shell("(recorded)")),
                        c.path("redacted").asBoolean(false)));
            }
            TaskStatus status = TaskStatus.fromWord(s.status());
            shown.add(Map.entry(s.step(), TaskResult.builder(host, status).changes(changes)
                    .itemLabel(s.step().item()).forecast(true).hidden(s.hidden()).build()));
        }
        return shown;
    }

    /** Writes the plan atomically (a temp file beside it, then renamed), readable by its owner only. */
    public void write(Path file) throws IOException {
        ObjectNode doc = document();
        doc.put("digest", Sha256.hex(JSON.writeValueAsBytes(doc)));
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, ".provision-plan-", ".tmp", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        try {
            JSON.copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), doc);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Reads a plan file.
     *
     * @throws InvalidInputException when it is not a plan, was made by another format, or was edited
     *     (its digest does not match its content)
     */
    public static SavedPlan read(Path file) throws InvalidInputException {
        SourcePosition at = new SourcePosition(file.toString(), 0, 0);
        JsonNode doc;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new InvalidInputException(at, "is larger than " + (MAX_FILE_BYTES >> 20) + " MiB: not a plan provision wrote");
            }
            doc = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new InvalidInputException(at, "cannot read the plan: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        if (!(doc instanceof ObjectNode object) || !FORMAT.equals(doc.path("format").asText())) {
            throw new InvalidInputException(at, "is not a plan of this provision (format " + FORMAT + "); make one with --check --save-plan");
        }
        String recorded = object.path("digest").asText();
        ObjectNode content = object.deepCopy();
        content.remove("digest");
        try {
            if (!Sha256.hex(JSON.writeValueAsBytes(content)).equals(recorded)) {
                throw new InvalidInputException(at, "its content does not match its digest: the plan was changed after it was saved;"
                        + " make and review a new one with --check --save-plan");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new InvalidInputException(at, "cannot read the plan: " + e.getOriginalMessage(), e);
        }
        JsonNode h = doc.path("header");
        Header header = new Header(h.path("provision_version").asText(), Instant.parse(h.path("created").asText()),
                h.path("playbook").asText(), h.path("playbook_sha256").asText(), strings(h.path("inventory")),
                h.path("inventory_sha256").asText(), strings(h.path("hosts")), strings(h.path("tags")),
                strings(h.path("skip_tags")), h.path("extra_vars_sha256").asText(), h.path("salt").asText());
        Map<String, List<Step>> hosts = new LinkedHashMap<>();
        doc.path("hosts").properties().forEach(e -> {
            List<Step> steps = new ArrayList<>();
            for (JsonNode s : e.getValue()) {
                PlanRecording.Step step = new PlanRecording.Step(s.path("task").asText(), s.path("position").asText(),
                        s.path("handler").asBoolean(), s.path("item").asText());
                steps.add(new Step(step, s.path("status").asText(), s.path("no_log").asBoolean(), s.path("ran_in_dry_run").asBoolean(),
                        s.path("digest").asText(), s.path("changes")));
            }
            hosts.put(e.getKey(), steps);
        });
        return new SavedPlan(header, hosts);
    }

    private ObjectNode document() {
        ObjectNode doc = JSON.createObjectNode();
        doc.put("format", FORMAT);
        ObjectNode h = doc.putObject("header");
        h.put("provision_version", header.version());
        h.put("created", header.created().toString());
        h.put("playbook", header.playbook());
        h.put("playbook_sha256", header.playbookSha256());
        header.inventory().forEach(h.putArray("inventory")::add);
        h.put("inventory_sha256", header.inventorySha256());
        header.hosts().forEach(h.putArray("hosts")::add);
        header.tags().forEach(h.putArray("tags")::add);
        header.skipTags().forEach(h.putArray("skip_tags")::add);
        h.put("extra_vars_sha256", header.extraVarsSha256());
        h.put("salt", header.salt());
        ObjectNode all = doc.putObject("hosts");
        hosts.forEach((host, steps) -> {
            ArrayNode list = all.putArray(host);
            for (Step s : steps) {
                ObjectNode n = list.addObject();
                n.put("task", s.step().task());
                n.put("position", s.step().position());
                n.put("handler", s.step().handler());
                n.put("item", s.step().item());
                n.put("status", s.status());
                n.put("no_log", s.hidden());
                n.put("ran_in_dry_run", s.ranForReal());
                n.set("changes", s.changes());
                n.put("digest", s.digest());
            }
        });
        return doc;
    }

    /**
     * The step with its position relative to the playbook's directory: the same task whether the
     * playbook was named {@code playbooks/cluster.yml} or by its absolute path, from any directory.
     */
    private static PlanRecording.Step canonical(PlanRecording.Step step, Header header) {
        String position = step.position();
        int column = position.lastIndexOf(':');
        int line = column > 0 ? position.lastIndexOf(':', column - 1) : -1;
        if (line <= 0) {
            return step;
        }
        Path file = Path.of(position.substring(0, line)).toAbsolutePath().normalize();
        Path base = Path.of(header.playbook()).toAbsolutePath().normalize().getParent();
        String shown = base != null && file.startsWith(base) ? base.relativize(file).toString() : file.toString();
        return new PlanRecording.Step(step.task(), shown + position.substring(line), step.handler(), step.item());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static String name(PlanRecording.Step step) {
        return step.task() + (step.item().isEmpty() ? "" : " (item " + step.item() + ")");
    }

    private static String summaries(JsonNode changes) {
        List<String> out = new ArrayList<>();
        changes.forEach(c -> out.add(c.path("summary").asText()));
        return String.join("; ", out);
    }

    /** The changes as the file shows them: in clear unless the task is no_log or the change sensitive. */
    private static ArrayNode changes(PlanRecording.Entry e, String salt) {
        ArrayNode list = JSON.createArrayNode();
        for (Change c : e.changes()) {
            boolean secret = e.hidden() || c.sensitive();
            ObjectNode n = list.addObject();
            if (e.hidden()) {
                n.put("summary", "(hidden: no_log)");
            } else {
                n.put("summary", c.summary());
            }
            n.put("redacted", secret);
            ArrayNode diffs = n.putArray("diffs");
            for (Diff d : c.diffs()) {
                ObjectNode dn = diffs.addObject();
                dn.put("label", e.hidden() ? "(hidden)" : d.label());
                if (secret) {
                    dn.put("sha256", salted(salt, d.before() + "\u0000" + d.after()));
                } else {
                    dn.put("before", d.before());
                    dn.put("after", d.after());
                }
            }
            ArrayNode commands = n.putArray("commands");
            for (Command command : c.commands()) {
                commands.add(command(command, secret, salt));
            }
        }
        return list;
    }

    private static ObjectNode command(Command command, boolean secret, String salt) {
        ObjectNode n = JSON.createObjectNode();
        switch (command) {
            case Command.Exec x -> {
                if (secret) {
                    n.put("exec_sha256", salted(salt, String.join("\u0000", x.argv())));
                } else {
                    x.argv().forEach(n.putArray("exec")::add);
                }
                if (x.stdin().length > 0) {
                    content(n, "stdin", x.stdin(), secret, salt);
                }
            }
            case Command.Shell s -> {
                if (secret) {
                    n.put("shell_sha256", salted(salt, s.script()));
                } else {
                    n.put("shell", s.script());
                }
            }
            case Command.PutFile p -> {
                n.put("put", p.path());
                attributes(n, p.attributes());
                content(n, "content", p.content(), secret, salt);
            }
            case Command.MakeDirectory d -> {
                n.put("mkdir", d.path());
                attributes(n, d.attributes());
            }
            case Command.Remove r -> n.put("remove", r.path());
            case Command.SetAttributes a -> {
                n.put("set_attributes", a.path());
                attributes(n, a.attributes());
            }
            case Command.Symlink l -> {
                n.put("symlink", l.path());
                n.put("target", l.target());
            }
            case Command.HardLink h -> {
                n.put("hard_link", h.path());
                n.put("target", h.target());
            }
            case Command.CopyFile f -> {
                n.put("copy", f.path());
                n.put("source", f.source());
                attributes(n, f.attributes());
            }
            case Command.UploadFile u -> {
                n.put("upload", u.path());
                n.put("source", u.source().toString());
                n.put("bytes", u.size());
                n.put("source_modified_ms", u.modifiedMillis());
                attributes(n, u.attributes());
            }
            case Command.ControllerFile f -> {
                n.put("controller_file", f.path());
                content(n, "content", f.content(), secret, salt);
            }
            case Command.AwaitReboot r -> {
                r.bootIdProbe().forEach(n.putArray("await_reboot")::add);
                n.put("boot_id_before", r.bootIdBefore());
                n.put("timeout", r.timeoutSeconds());
                n.put("settle", r.settleSeconds());
                r.testCommand().forEach(n.putArray("test_command")::add);
            }
        }
        return n;
    }

    private static void attributes(ObjectNode n, Command.Attributes a) {
        a.mode().ifPresent(m -> n.put("mode", m));
        a.owner().ifPresent(o -> n.put("owner", o));
        a.group().ifPresent(g -> n.put("group", g));
    }

    private static void content(ObjectNode n, String field, byte[] bytes, boolean secret, String salt) {
        ObjectNode c = n.putObject(field);
        c.put("bytes", bytes.length);
        if (secret) {
            c.put("sha256", salted(salt, bytes));
            return;
        }
        Optional<String> text = dev.provision.modules.files.FileContentPlanner.decode(bytes);
        if (text.isPresent()) {
            c.put("text", text.get());
        } else {
            c.put("base64", Base64.getEncoder().encodeToString(bytes));
        }
    }

    /**
     * What two plans of a step must agree on: status, every change's summary, diffs and commands,
     * byte for byte (secrets included: the digest is salted and one-way).
     */
    static String digest(PlanRecording.Step step, PlanRecording.Entry e, String salt) {
        MessageDigest md = Sha256.digest();
        field(md, salt);
        field(md, step.task());
        field(md, step.position());
        field(md, String.valueOf(step.handler()));
        field(md, step.item());
        field(md, e.status().word());
        for (Change c : e.changes()) {
            field(md, "change");
            field(md, c.summary());
            field(md, String.valueOf(c.sensitive()));
            for (Diff d : c.diffs()) {
                field(md, d.label());
                field(md, d.before());
                field(md, d.after());
            }
            for (Command command : c.commands()) {
                switch (command) {
                    case Command.Exec x -> {
                        field(md, "exec");
                        x.argv().forEach(a -> field(md, a));
                        field(md, x.stdin());
                    }
                    case Command.Shell s -> {
                        field(md, "shell");
                        field(md, s.script());
                    }
                    case Command.PutFile p -> {
                        field(md, "put");
                        field(md, p.path());
                        field(md, p.attributes().toString());
                        field(md, p.content());
                    }
                    case Command.MakeDirectory d -> {
                        field(md, "mkdir");
                        field(md, d.path());
                        field(md, d.attributes().toString());
                    }
                    case Command.Remove r -> {
                        field(md, "remove");
                        field(md, r.path());
                    }
                    case Command.SetAttributes a -> {
                        field(md, "attributes");
                        field(md, a.path());
                        field(md, a.attributes().toString());
                    }
                    case Command.Symlink l -> {
                        field(md, "symlink");
                        field(md, l.path());
                        field(md, l.target());
                    }
                    case Command.HardLink h -> {
                        field(md, "hard_link");
                        field(md, h.path());
                        field(md, h.target());
                    }
                    case Command.CopyFile f -> {
                        field(md, "copy");
                        field(md, f.source());
                        field(md, f.path());
                        field(md, f.attributes().toString());
                    }
                    case Command.UploadFile u -> {
                        // the source as planned: a file changed since (size or time) is drift
                        field(md, "upload");
                        field(md, u.path());
                        field(md, u.source().toString());
                        field(md, u.size() + "/" + u.modifiedMillis());
                        field(md, u.attributes().toString());
                    }
                    case Command.ControllerFile f -> {
                        field(md, "controller_file");
                        field(md, f.path());
                        field(md, f.content());
                    }
                    case Command.AwaitReboot r -> {
                        field(md, "await_reboot");
                        r.bootIdProbe().forEach(a -> field(md, a));
                        field(md, r.bootIdBefore());
                        field(md, r.timeoutSeconds() + "/" + r.settleSeconds());
                        r.testCommand().forEach(a -> field(md, a));
                    }
                }
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static void field(MessageDigest md, String value) {
        field(md, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void field(MessageDigest md, byte[] value) {
        // length first: no two different field lists hash the same
        md.update(ByteBuffer.allocate(8).putLong(value.length).array());
        md.update(value);
    }

    static String salted(String salt, String value) {
        return salted(salt, value.getBytes(StandardCharsets.UTF_8));
    }

    static String salted(String salt, byte[] value) {
        MessageDigest md = Sha256.digest();
        field(md, salt);
        field(md, value);
        return HexFormat.of().formatHex(md.digest());
    }
}
