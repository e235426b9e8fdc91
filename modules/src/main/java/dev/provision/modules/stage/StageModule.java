package dev.provision.modules.stage;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.CrossHostTransfer;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.Round;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.text.DecimalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code stage}: copies a data set (a directory) onto the local disk of every host of the task. Each
 * host's plan is what it lacks against the listing of the source ({@code manifest.sh}: path, size,
 * mode, mtime per file, no file's data read); the node that reads the source makes the hashes from
 * the bytes it reads ({@code pull.sh}, {@link FanOut#trustedRoot}); the transfer is one act of all hosts ({@link CrossHostTransfer}):
 * one node reads the source, then nodes fetch from nodes that hold the verified set ({@link FanOut}),
 * with rsync over the cluster's SSH identity, host keys checked against the cluster's known-hosts
 * file. Every node verifies every file it did not verify before and records the manifest it verified.
 * The source is on storage every node mounts, on the controller (listed here by
 * {@link ControllerManifest}, streamed by the engine as a {@link dev.provision.modules.spi.Round.Feed})
 * or on one node (its manifest read there through {@code hop.sh}).
 */
public final class StageModule implements TaskModule, CrossHostTransfer {
    static final String STAGE_DIR = ".provision-stage";
    private static final String MANIFEST_SCRIPT = resource("manifest.sh");
    private static final String SURVEY_SCRIPT = resource("survey.sh");
    private static final String PULL_SCRIPT = resource("pull.sh");
    private static final String PROGRESS_SCRIPT = resource("progress.sh");
    private static final String HOP_SCRIPT = resource("hop.sh");
    private static final String FEED_SCRIPT = resource("feed.sh");
    /** A path that no shell, rsync or find pattern reads as anything but itself. */
    private static final String PLAIN_PATH = "/[A-Za-z0-9._/+@=,-]*";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("src", Type.STRING)
            .required("dest", Type.STRING)
            .choice("src_on", "shared", "shared", "controller", "node")
            .optional("src_host", Type.STRING)
            .optional("src_address", Type.STRING)
            .optional("address", Type.STRING)
            .withDefault("ssh_user", Type.STRING, "root")
            .withDefault("ssh_key", Type.STRING, "/root/.ssh/id_ed25519")
            .withDefault("known_hosts", Type.STRING, "/etc/ssh/ssh_known_hosts")
            .withDefault("space_margin", Type.INT, 5L)
            .withDefault("hashers", Type.INT, 4L)
            .choice("fan_out", "chain", "chain", "tree")
            .withDefault("per_holder", Type.INT, 1L)
            .withDefault("connect_timeout", Type.INT, 10L)
            .withDefault("round_timeout", Type.INT, 86400L)
            .withDefault("delete", Type.BOOL, false)
            .build();

    public StageModule() {
    }

    @Override
    public String name() {
        return "stage";
    }

    @Override
    public String description() {
        return """
                Copies the directory src onto every host's dest, reading the source about once. fan_out: chain
                (default) starts every node at once in a pipelined chain: the first reads the source as one tar
                stream, each passes it on to the next over ssh as it arrives, so each link carries the set once;
                tree: one node reads it, then nodes fetch from nodes with rsync, the holders doubling each
                round. Either way over ssh with ssh_key and known_hosts (the cluster identity cluster.yml
                writes); a node the chain left short fetches the rest from a node that holds the set, rounds as
                in tree. Planning lists the source (path, size, mode, mtime; no data read); the node that reads
                the source hashes what it read, and that manifest (plus SHA-256) reaches every other node, which
                verifies each file and records it in dest/.provision-stage; the root hash is its SHA-256.
                A verified file is never fetched again. src_on: shared (default: a path every host mounts);
                controller (a path on the machine running provision: listed there, and one tar of what the
                chain lacks streams into its first node over provision's own connection; GNU tar);
                node with src_host (a path on that node's disk only: it is listed there, over the
                cluster identity, and that node, which must be a host of the task, starts the fan-out). While
                it runs the progress line shows bytes and files per second across the cluster. delete: true
                removes the files under dest that the source does not have (rsync's --delete; default false:
                they are kept and counted as stale_files), and the directories that held them once empty.""";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String srcOn = params.string("src_on");
        String src = plainPath("src", params.string("src"));
        String dest = plainPath("dest", params.string("dest"));
        String key = plainPath("ssh_key", params.string("ssh_key"));
        String known = plainPath("known_hosts", params.string("known_hosts"));
        String user = plainWord("ssh_user", params.string("ssh_user"));
        String address = plainWord("address", params.optString("address").orElse(context.host().name()));
        long hashers = Math.max(1, params.integer("hashers"));
        long connectTimeout = params.integer("connect_timeout");
        // empty is unset: a playbook passes through a variable it may not have
        Optional<String> srcHostParam = params.optString("src_host").filter(h -> !h.isEmpty());
        String srcHost = "";
        if (srcOn.equals("node")) {
            srcHost = plainWord("src_host", srcHostParam.orElseThrow(
                    () -> new ModuleException("src_host: name the node that holds src (src_on: node)")));
        } else if (srcHostParam.isPresent()) {
            throw new ModuleException("src_host: only with src_on: node (src_on is " + srcOn + ")");
        }
        String srcNode = srcHost;
        String srcAddress = srcOn.equals("node") ? plainWord("src_address", params.optString("src_address").filter(a -> !a.isEmpty())
                .orElseGet(() -> String.valueOf(context.inventory().hostVars(srcNode).getOrDefault("ansible_host", srcNode)))) : "";
        ProbeResult survey = context.host().probe(surveyArgv(dest).toArray(String[]::new));
        if (!survey.ok()) {
            throw new ModuleException("cannot read " + dest + ": " + survey.stderr().strip());
        }
        NodeHoldings holdings;
        try {
            holdings = NodeHoldings.parse(survey.stdout());
        } catch (IllegalArgumentException e) {
            throw new ModuleException("cannot read " + dest + ": " + e.getMessage(), e);
        }
        if (holdings.notDirectory()) {
            throw new ModuleException(dest + " exists and is not a directory");
        }
        // The listing: metadata only, no file's data read (the first host to ask makes it). The hashes
        // come from the node that reads the source, from the bytes it reads, or from records.
        Manifest manifest = switch (srcOn) {
            case "controller" -> context.sharedByAllHosts(List.of("stage listing", srcOn, src),
                    () -> ControllerManifest.of(java.nio.file.Path.of(src)));
            case "node" -> context.sharedByAllHosts(List.of("stage listing", srcOn, srcHost, srcAddress, src),
                    () -> manifest(context, srcNode + ":" + src, context.host().name().equals(srcNode) ? manifestArgv(src)
                            : hopArgv(key, known, connectTimeout, user + "@" + srcAddress, manifestArgv(src))));
            default -> context.sharedByAllHosts(List.of("stage listing", src), () -> manifest(context, src, manifestArgv(src)));
        };
        NodeHoldings.Needs needs = holdings.needs(manifest);
        boolean delete = params.bool("delete");
        List<String> stale = holdings.notIn(manifest);
        // Known here only where this node's record vouches for the whole set; otherwise the node that
        // reads the source makes it, and the rounds report it.
        Optional<String> root = needs.record().map(Manifest::rootHash);
        FanOut.Settings settings = new FanOut.Settings(src, srcOn, srcHost, dest, user, key, known, hashers, params.string("fan_out"),
                params.integer("per_holder"), connectTimeout, params.integer("round_timeout"));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("files", (long) manifest.entries().size());
        result.put("bytes", manifest.totalBytes());
        root.ifPresent(r -> result.put("root_hash", r));
        result.put("missing_files", (long) needs.missing().size());
        result.put("missing_bytes", needs.missingBytes());
        result.put("unverified_files", (long) needs.unverified().size());
        result.put("missing", needs.missing().stream().map(Manifest.Entry::path).toList());
        result.put("stale_files", (long) stale.size());
        List<String> lacks = java.util.stream.Stream.concat(needs.missing().stream(), needs.unverified().stream())
                .map(Manifest.Entry::path).toList();
        result.put(FanOut.RESULT_KEY, FanOut.toResult(address, root.orElse(""), settings, lacks));
        String kept = stale.isEmpty() || delete ? "" : "; " + stale.size() + " files under " + dest
                + " are not in the source (delete: true removes them)";
        if (needs.complete() && (stale.isEmpty() || !delete)) {
            return Plan.converged(manifest.entries().size() + " files (" + DecimalSize.of(manifest.totalBytes()) + ") verified in "
                    + dest + ", root sha256 " + root.orElseThrow() + kept).withResult(result);
        }
        List<Change> changes = new java.util.ArrayList<>();
        if (delete && !stale.isEmpty()) {
            changes.add(removal(dest, stale));
        }
        if (!needs.complete()) {
            refuseWithoutRoom(dest, holdings, needs, manifest, params.integer("space_margin"));
            String summary = "stage " + needs.missing().size() + " files (" + DecimalSize.of(needs.missingBytes()) + ") into " + dest
                    + (needs.unverified().isEmpty() ? "" : ", verify " + needs.unverified().size() + " held") + kept;
            changes.add(new Change(summary, List.of(new Diff(dest + " (files to fetch)", "", lines(needs.missing().stream()
                    .map(Manifest.Entry::path).toList()))), List.of(
                    new Command.MakeDirectory(dest + "/" + STAGE_DIR, new Command.Attributes(Optional.of("0700"), Optional.empty(),
                            Optional.empty())),
                    new Command.PutFile(dest + "/" + STAGE_DIR + "/manifest", manifest.bytes(), Command.Attributes.NONE))));
        }
        return new Plan(changes, "", Map.of(), result);
    }

    /** The paths, one per line; joined, not reduced with concat: that copies the text once per file (100 000 files: minutes). */
    private static String lines(List<String> paths) {
        return paths.stream().map(p -> p + "\n").collect(java.util.stream.Collectors.joining());
    }

    /** Removes files, run in {@code dest}: their relative paths on stdin, NUL-separated. */
    private static final String REMOVE = "cd -- \"$1\" && xargs -0 -r rm -f --";
    /** Then removes the directories that held them where now empty, and their parents up to dest where those are. */
    private static final String REMOVE_EMPTY_DIRECTORIES = "cd -- \"$1\" && xargs -0 -r sh -c "
            + "'for d; do [ ! -d \"$d\" ] || rmdir -p --ignore-fail-on-non-empty -- \"$d\"; done' sh";

    /**
     * The change that removes {@code stale} (paths under {@code dest} that the source does not have;
     * never the record's directory, which the survey does not list), before the fetch so that the
     * room they held is free for it. The paths go on stdin, never on a command line.
     */
    static Change removal(String dest, List<String> stale) {
        String files = stale.stream().map(p -> p + "\0").collect(java.util.stream.Collectors.joining());
        String directories = stale.stream().filter(p -> p.contains("/")).map(p -> p.substring(0, p.lastIndexOf('/')))
                .distinct().sorted(java.util.Comparator.reverseOrder()).map(p -> p + "\0").collect(java.util.stream.Collectors.joining());
        List<Command> commands = new java.util.ArrayList<>(List.of(
                new Command.Exec(List.of("sh", "-c", REMOVE, "sh", dest), files.getBytes(StandardCharsets.UTF_8))));
        if (!directories.isEmpty()) {
            commands.add(new Command.Exec(List.of("sh", "-c", REMOVE_EMPTY_DIRECTORIES, "sh", dest),
                    directories.getBytes(StandardCharsets.UTF_8)));
        }
        return new Change("remove " + stale.size() + " files from " + dest + " that the source does not have",
                List.of(new Diff(dest + " (files to remove)", lines(stale), "")), commands);
    }

    /** The read-only probe that lists {@code src} (path, size, mode, mtime per file; no file's data read). */
    static List<String> manifestArgv(String src) {
        return List.of("sh", "-c", MANIFEST_SCRIPT, "sh", src);
    }

    /** The script the controller runs to stream its source into the chain ({@code feed.sh}). */
    static String feedScript() {
        return FEED_SCRIPT;
    }

    /** The script of one node's fetch and verification ({@code pull.sh}), as {@link FanOut} launches it. */
    static String pullScript() {
        return PULL_SCRIPT;
    }

    /**
     * {@code command} run on {@code target} (USER@ADDRESS, another node) from the node that runs this,
     * over the cluster's SSH identity, host key checked: how a node reads the manifest of the source on
     * the source node ({@code src_on: node}). Every word of {@code command} reaches the far shell
     * quoted: a positional parameter there too.
     */
    static List<String> hopArgv(String key, String knownHosts, long connectTimeout, String target, List<String> command) {
        List<String> argv = new java.util.ArrayList<>(List.of("sh", "-c", HOP_SCRIPT, "sh", key, knownHosts, String.valueOf(connectTimeout),
                target));
        argv.addAll(command);
        return argv;
    }

    /** The read-only probe of how much a node's running fetch received ({@code BYTES FILES}), for the progress line. */
    static List<String> progressArgv(String dest) {
        return List.of("sh", "-c", PROGRESS_SCRIPT, "sh", dest);
    }

    /** The read-only probe of what a node holds under {@code dest}. */
    static List<String> surveyArgv(String dest) {
        return List.of("sh", "-c", SURVEY_SCRIPT, "sh", dest);
    }

    private static Manifest manifest(TaskContext context, String src, List<String> argv) throws ModuleException {
        ProbeResult r = context.host().probe(argv.toArray(String[]::new));
        if (!r.ok()) {
            throw new ModuleException("cannot make the manifest of " + src + ": " + r.stderr().strip());
        }
        try {
            return Manifest.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            throw new ModuleException("cannot make the manifest of " + src + ": " + e.getMessage(), e);
        }
    }

    /** Refuses, before a byte moves, a node whose filesystem lacks the bytes or inodes (plus the margin). */
    static void refuseWithoutRoom(String dest, NodeHoldings holdings, NodeHoldings.Needs needs, Manifest manifest, long marginPercent)
            throws ModuleException {
        long margin = Math.max(0, marginPercent);
        long needBytes = needs.missingBytes() + manifest.totalBytes() * margin / 100;
        if (holdings.freeBytes() < needBytes) {
            throw new ModuleException("not enough room in " + dest + ": " + DecimalSize.of(needs.missingBytes()) + " to fetch + "
                    + margin + "% of the set's " + DecimalSize.of(manifest.totalBytes()) + " margin = " + DecimalSize.of(needBytes) + ", "
                    + DecimalSize.of(holdings.freeBytes()) + " free; nothing was transferred");
        }
        long needInodes = needs.missing().size() + Math.max(16, manifest.entries().size() * margin / 100);
        if (holdings.totalInodes() > 0 && holdings.freeInodes() < needInodes) {
            throw new ModuleException("not enough inodes in " + dest + ": " + needs.missing().size() + " files to fetch + margin = "
                    + needInodes + ", " + holdings.freeInodes() + " free; nothing was transferred");
        }
    }

    @Override
    public Optional<Round> nextRound(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done) {
        return new FanOut(FanOut.nodes(resultsByHost), done, PULL_SCRIPT, StageModule::progressArgv).nextRound();
    }

    @Override
    public Map<String, HostOutcome> conclude(Map<String, Map<String, Object>> resultsByHost, List<Round.Outcome> done) {
        return new FanOut(FanOut.nodes(resultsByHost), done, PULL_SCRIPT).conclude();
    }

    static String plainPath(String param, String value) throws ModuleException {
        if (!value.matches(PLAIN_PATH) || value.contains("/../") || value.endsWith("/..") || value.length() < 2) {
            throw new ModuleException(param + ": '" + value + "' must be an absolute path of letters, digits and ._/+@=,- "
                    + "(other than /)");
        }
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    static String plainWord(String param, String value) throws ModuleException {
        if (value.isEmpty() || value.startsWith("-") || !value.matches("[A-Za-z0-9._:+-]+")) {
            throw new ModuleException(param + ": '" + value + "' is not a plain host, address or user name");
        }
        return value;
    }

    private static String resource(String name) {
        try (InputStream in = StageModule.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
