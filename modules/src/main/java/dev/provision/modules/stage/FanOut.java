package dev.provision.modules.stage;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.CrossHostTransfer;
import dev.provision.modules.spi.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who fetches from whom, round by round. With {@code fan_out: chain} and nobody holding the set yet,
 * the first round is a pipelined chain of every node that lacks it ({@code pull.sh}'s chain: the first
 * reads the source, each passes the stream on as it arrives). Then, or with {@code fan_out: tree}, a
 * doubling tree rebuilt from what every node holds: one node reads the source (the store is read once)
 * if nobody holds the set; from then on every node that holds
 * the verified set (from an earlier run or an earlier round) serves {@code perHolder} nodes that lack
 * it, so the holders double each round (⌈log₂ N⌉ + 1 rounds). A node whose fetch failed tries again
 * from another holder; a holder that could not be reached serves nobody after; a node is given up
 * after {@link #ATTEMPTS} failed fetches. Pure: the state is the history of rounds.
 *
 * <p>Whose hashes count ({@link #trustedRoot}): the plans list the source without hashing it, so
 * the set's manifest is made during the run. A node whose record vouches for the whole listing
 * (every file with its path, size, mode and mtime, as rsync's quick check trusts) holds it already:
 * the first such node, in the task's order, sets the root hash and the source is not read.
 * Otherwise the node that reads the source makes it from the bytes it read (pull.sh), and every
 * other node verifies against that manifest, which reaches it down the chain or from its donor's
 * record. A node is a holder only with that root; a node whose own record vouches for another root
 * for the same listing fails (nothing tells which is the source's without reading it).
 */
final class FanOut {
    static final int ATTEMPTS = 3;
    /** rsync's exit codes for a peer it could not talk to (socket, protocol, timeout, ssh's 255). */
    private static final Set<Integer> PEER_LOST = Set.of(5, 10, 12, 30, 35, 255);
    private static final String FROM_SOURCE = "source";
    private static final String FROM_CONTROLLER = "controller";

    /**
     * One node's part as its plan put it in the result ({@link #toResult}).
     *
     * @param root the root hash of its record when that vouched for the whole set as it planned
     *     (it holds the set); empty otherwise
     * @param lacks what it lacked when it planned (files to fetch, then files to verify): what a feed
     *     from the controller streams to it
     */
    record Node(String host, String address, String root, Settings settings, List<String> lacks) {
        Node {
            requireNonNull(host, "host cannot be null");
            requireNonNull(address, "address cannot be null");
            requireNonNull(root, "root cannot be null");
            requireNonNull(settings, "settings cannot be null");
            lacks = List.copyOf(lacks);
        }

        /** Whether its record vouched for the whole set when it planned. */
        boolean complete() {
            return !root.isEmpty();
        }
    }

    /**
     * What every launch needs, the same on every node of the task.
     *
     * @param srcOn {@code shared} (a path every node mounts), {@code controller} (a path on the machine
     *     running provision) or {@code node} (a path on {@code srcHost} only)
     * @param srcHost the node that holds the source when {@code srcOn} is {@code node}; empty otherwise
     */
    record Settings(String src, String srcOn, String srcHost, String dest, String sshUser, String sshKey, String knownHosts,
                    long hashers, String fanOut, long perHolder, long connectTimeout, long roundTimeout) {
        Settings {
            requireNonNull(srcOn, "srcOn cannot be null");
            requireNonNull(srcHost, "srcHost cannot be null");
        }

        /** The source on shared storage, as before sources had a place. */
        Settings(String src, String dest, String sshUser, String sshKey, String knownHosts, long hashers, String fanOut, long perHolder,
                 long connectTimeout, long roundTimeout) {
            this(src, "shared", "", dest, sshUser, sshKey, knownHosts, hashers, fanOut, perHolder, connectTimeout, roundTimeout);
        }

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("src", src);
            m.put("src_on", srcOn);
            m.put("src_host", srcHost);
            m.put("dest", dest);
            m.put("ssh_user", sshUser);
            m.put("ssh_key", sshKey);
            m.put("known_hosts", knownHosts);
            m.put("hashers", hashers);
            m.put("fan_out", fanOut);
            m.put("per_holder", perHolder);
            m.put("connect_timeout", connectTimeout);
            m.put("round_timeout", roundTimeout);
            return m;
        }

        static Settings fromMap(Map<?, ?> m) {
            return new Settings(str(m, "src"), str(m, "src_on"), str(m, "src_host"), str(m, "dest"), str(m, "ssh_user"), str(m, "ssh_key"), str(m, "known_hosts"),
                    num(m, "hashers"), str(m, "fan_out"), num(m, "per_holder"), num(m, "connect_timeout"), num(m, "round_timeout"));
        }
    }

    static final String RESULT_KEY = "stage_transfer";

    static Map<String, Object> toResult(String address, String root, Settings settings) {
        return toResult(address, root, settings, List.of());
    }

    /** {@code root}: the root hash of the node's record where it vouches for the whole set; empty otherwise. */
    static Map<String, Object> toResult(String address, String root, Settings settings, List<String> lacks) {
        Map<String, Object> m = new LinkedHashMap<>(settings.toMap());
        m.put("address", address);
        m.put("root", root);
        if (settings.srcOn().equals("controller")) {
            m.put("lacks", List.copyOf(lacks)); // only the controller's feed needs it: no copy of the list otherwise
        }
        return m;
    }

    static List<Node> nodes(Map<String, Map<String, Object>> resultsByHost) {
        List<Node> nodes = new ArrayList<>();
        resultsByHost.forEach((host, result) -> {
            if (result.get(RESULT_KEY) instanceof Map<?, ?> m) {
                List<String> lacks = m.get("lacks") instanceof List<?> l ? l.stream().map(String::valueOf).toList() : List.of();
                nodes.add(new Node(host, str(m, "address"), m.get("root") instanceof String r ? r : "", Settings.fromMap(m), lacks));
            }
        });
        return nodes;
    }

    private final List<Node> nodes;
    private final List<Round.Outcome> done;
    private final String script;
    private final java.util.function.Function<String, List<String>> progress;

    FanOut(List<Node> nodes, List<Round.Outcome> done, String script) {
        this(nodes, done, script, dest -> List.of());
    }

    /** {@code progress}: the progress probe of a node's launch, given its destination. */
    FanOut(List<Node> nodes, List<Round.Outcome> done, String script, java.util.function.Function<String, List<String>> progress) {
        this.nodes = List.copyOf(nodes);
        this.done = List.copyOf(done);
        this.script = requireNonNull(script, "script cannot be null");
        this.progress = requireNonNull(progress, "progress cannot be null");
    }

    /** What one fetch answered, read from the launch and its output. */
    record Fetch(String receiver, String donor, Round.Status status, int exitCode, String stdout, String stderr) {
        boolean verified() {
            return status == Round.Status.EXITED && exitCode == 0 && stdout.lines().anyMatch(l -> l.startsWith("verified\t"));
        }

        /**
         * Whether the donor (a node, or the source) could not be talked to; the source also when it
         * could not be read as planned (a file changed, or the read failed): reading it again in
         * the same run cannot give the set the nodes planned for.
         */
        boolean donorLost() {
            return status == Round.Status.EXITED && exitCode == 4 && stdout.lines().anyMatch(l -> l.startsWith("read\t")
                    || l.startsWith("changed\t") || l.equals("ssh\t255")
                    || l.startsWith("rsync\t") && PEER_LOST.contains(Integer.parseInt(l.substring(6).strip())));
        }

        /** Whether the donor is the source itself (the source's directory, or the controller's feed). */
        boolean fromSource() {
            return donor.equals(FROM_SOURCE) || donor.equals(FROM_CONTROLLER);
        }

        List<String> received() {
            return stdout.lines().filter(l -> l.startsWith("got\t")).map(l -> l.substring(4)).toList();
        }

        Optional<String> verifiedRoot() {
            return stdout.lines().filter(l -> l.startsWith("verified\t")).map(l -> l.split("\t")).filter(f -> f.length == 4)
                    .map(f -> f[3]).findFirst();
        }

        String why() {
            List<String> lines = new ArrayList<>(stdout.lines().filter(l -> l.startsWith("rsync\t") || l.startsWith("missing\t")
                    || l.startsWith("bad\t") || l.startsWith("read\t") || l.startsWith("changed\t") || l.startsWith("manifest\t")
                    || l.startsWith("ssh\t")).limit(3).map(l -> l.replace('\t', ' ')).toList());
            stderr.lines().filter(l -> !l.isBlank()).limit(3).forEach(lines::add);
            String from = from(donor);
            return "fetch from " + from + " " + (status == Round.Status.EXITED ? "exited " + exitCode : status.name().toLowerCase())
                    + (lines.isEmpty() ? "" : ": " + String.join("; ", lines));
        }
    }

    List<Fetch> fetches() {
        List<Fetch> fetches = new ArrayList<>();
        for (Round.Outcome outcome : done) {
            outcome.answers().forEach((gang, answers) -> {
                String[] ends = gang.split("<-", 2);
                for (Round.Answer a : answers) {
                    fetches.add(new Fetch(ends[0], ends[1], a.status(), a.result().exitCode(), a.result().stdout(), a.result().stderr()));
                }
            });
        }
        return fetches;
    }

    /** The next round, empty when every node holds the set or was given up. */
    Optional<Round> nextRound() {
        if (nodes.isEmpty()) {
            return Optional.empty();
        }
        List<Fetch> fetches = fetches();
        String trusted = trustedRoot(fetches);
        Set<String> holders = new LinkedHashSet<>();
        nodes.stream().filter(Node::complete).filter(n -> n.root().equals(trusted)).forEach(n -> holders.add(n.host()));
        fetches.stream().filter(f -> holds(f, trusted)).forEach(f -> holders.add(f.receiver()));
        Set<String> lost = new LinkedHashSet<>();
        fetches.stream().filter(f -> f.status() == Round.Status.UNREACHABLE).forEach(f -> lost.add(f.receiver()));
        fetches.stream().filter(Fetch::donorLost).forEach(f -> lost.add(f.donor()));
        Map<String, Integer> failures = new LinkedHashMap<>();
        fetches.stream().filter(f -> !holds(f, trusted)).forEach(f -> failures.merge(f.receiver(), 1, Integer::sum));
        List<Node> needers = nodes.stream().filter(n -> !n.complete() && !holders.contains(n.host()) && !lost.contains(n.host())
                && failures.getOrDefault(n.host(), 0) < ATTEMPTS).toList();
        if (needers.isEmpty()) {
            return Optional.empty();
        }
        Settings s = needers.get(0).settings();
        List<Node> donors = nodes.stream().filter(n -> holders.contains(n.host()) && !lost.contains(n.host())).toList();
        List<Round.Gang> gangs = new ArrayList<>();
        boolean chain = donors.isEmpty() && done.isEmpty() && needers.size() > 1 && s.fanOut().equals("chain");
        String from = s.srcOn().equals("controller") ? " from the controller" : s.srcOn().equals("node") ? " from " + s.srcHost()
                : " from the source";
        if (donors.isEmpty()) {
            // nobody holds the set: it comes from the source, read by the source's reader
            Optional<Node> reader = sourceReader(needers, lost);
            if (reader.isEmpty()) {
                return Optional.empty();
            }
            List<Node> order = new ArrayList<>(List.of(reader.get()));
            if (chain) {
                // every node at once, each passing the stream on to the next: the source read once, each link carrying it once
                needers.stream().filter(n -> n != reader.get()).forEach(order::add);
            }
            for (int i = 0; i < order.size(); i++) {
                Node receiver = order.get(i);
                boolean last = i == order.size() - 1;
                if (i > 0) {
                    Node before = order.get(i - 1);
                    gangs.add(gang(receiver, before.host(), s.sshUser() + "@" + before.address(), "chain", last));
                } else if (s.srcOn().equals("controller")) {
                    gangs.add(fed(receiver, chain ? order : List.of(receiver), last));
                } else {
                    gangs.add(gang(receiver, FROM_SOURCE, s.src(), chain ? "chain-source" : "source", last));
                }
            }
        } else {
            long capacity = donors.size() * Math.max(1, s.perHolder());
            for (int i = 0; i < needers.size() && i < capacity; i++) {
                Node donor = donors.get(i % donors.size());
                gangs.add(gang(needers.get(i), donor.host(), s.sshUser() + "@" + donor.address(), "peer", true));
            }
        }
        String name = "round " + (done.size() + 1) + ": " + holders.size() + "/" + nodes.size() + " nodes hold the data, "
                + gangs.size() + " fetching" + (chain ? " in a chain" + from : donors.isEmpty() ? from : "");
        return Optional.of(new Round(name, gangs, Duration.ofSeconds(Math.max(1, s.roundTimeout()))));
    }

    /**
     * The root hash the run stages: that of the first node (in the task's order) whose record vouched
     * for the whole set when it planned; else that of the first fetch that verified (the node that
     * read the source makes the manifest, and the nodes of its chain verify against it: they share its
     * root; a chain node verifies only with the manifest the reader sent after its own read and
     * checks passed); empty while nobody has it.
     */
    String trustedRoot(List<Fetch> fetches) {
        return nodes.stream().filter(Node::complete).map(Node::root).findFirst()
                .or(() -> fetches.stream().filter(Fetch::verified).map(f -> f.verifiedRoot().orElse("")).filter(r -> !r.isEmpty())
                        .findFirst())
                .orElse("");
    }

    private static boolean holds(Fetch f, String trusted) {
        return f.verified() && !trusted.isEmpty() && f.verifiedRoot().orElse("").equals(trusted);
    }

    /**
     * The node that reads the source when nobody holds the set: the source node itself
     * ({@code src_on: node}; nobody when it is lost, given up or not among the task's hosts), else the
     * first node that lacks it; nobody once the source could not be read.
     */
    private Optional<Node> sourceReader(List<Node> needers, Set<String> lost) {
        Settings s = needers.get(0).settings();
        if (lost.contains(FROM_SOURCE) || lost.contains(FROM_CONTROLLER)) {
            return Optional.empty();
        }
        if (s.srcOn().equals("node")) {
            return needers.stream().filter(n -> n.host().equals(s.srcHost())).findFirst();
        }
        return Optional.of(needers.get(0));
    }

    /**
     * The controller's part: the first node reads one tar stream that the controller makes of its
     * directory and streams in over the connection provision holds to that node: only the files the
     * nodes it feeds lacked when they planned (to fetch or to verify: a held file that fails its
     * verification is among them when a later round feeds that node again); the node unpacks what
     * it lacks and passes the stream on.
     */
    private Round.Gang fed(Node receiver, List<Node> fed, boolean last) {
        Settings s = receiver.settings();
        java.util.SortedSet<String> files = new java.util.TreeSet<>(java.util.Comparator.comparing(
                (String p) -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.util.Arrays::compareUnsigned));
        fed.forEach(n -> files.addAll(n.lacks()));
        StringBuilder input = new StringBuilder();
        files.forEach(f -> input.append(f).append('\n'));
        Round.Gang gang = gang(receiver, FROM_CONTROLLER, "-", "feed", last);
        Round.Launch launch = gang.launches().get(0).withFeed(new Round.Feed(controllerFeedArgv(s.src()), input.toString()));
        return new Round.Gang(gang.id(), List.of(launch));
    }

    /**
     * The controller's tar of {@code src} ({@code feed.sh}), the names (one a line, taken as they are)
     * read on its standard input, then its mark that it read every file whole and unchanged: hard
     * links stored as files (a node may lack the first name of a pair), owned by root on the nodes,
     * whoever owns them here. GNU tar.
     */
    static List<String> controllerFeedArgv(String src) {
        return List.of("sh", "-c", StageModule.feedScript(), "sh", src);
    }

    private Round.Gang gang(Node receiver, String donor, String from, String mode, boolean last) {
        Settings s = receiver.settings();
        List<String> argv = List.of("sh", "-c", script, "sh", s.dest(), mode, from, s.sshKey(), s.knownHosts(),
                String.valueOf(s.hashers()), String.valueOf(s.connectTimeout()), last ? "none" : "next");
        return new Round.Gang(receiver.host() + "<-" + donor, List.of(new Round.Launch(receiver.host(), argv).withProgress(progress.apply(s.dest()))));
    }

    private static String from(String donor) {
        return donor.equals(FROM_SOURCE) ? "the source" : donor.equals(FROM_CONTROLLER) ? "the controller" : donor;
    }

    /**
     * How each node that lacked the set ended: what it received and verified, or why it did not; and
     * the root hash the run staged ({@code root_hash}), which its plan could not know where it came
     * from the source's read. A node whose record vouched for another root fails.
     */
    Map<String, CrossHostTransfer.HostOutcome> conclude() {
        List<Fetch> fetches = fetches();
        String trusted = trustedRoot(fetches);
        Optional<Node> firstHolder = nodes.stream().filter(Node::complete).findFirst();
        Map<String, CrossHostTransfer.HostOutcome> out = new LinkedHashMap<>();
        for (Node n : nodes) {
            if (n.complete()) {
                if (!n.root().equals(trusted)) {
                    out.put(n.host(), new CrossHostTransfer.HostOutcome(Optional.of("its record vouches for root hash " + n.root()
                            + " where " + firstHolder.map(Node::host).orElse("the source") + "'s vouches for " + trusted
                            + ", for files of the same size, mode and mtime: remove " + n.settings().dest() + "/" + StageModule.STAGE_DIR
                            + "/verified on it and stage again"), "", Map.of()));
                }
                continue;
            }
            List<Fetch> own = fetches.stream().filter(f -> f.receiver().equals(n.host())).toList();
            List<String> received = own.stream().flatMap(f -> f.received().stream()).distinct().toList();
            Optional<Fetch> ok = own.stream().filter(f -> holds(f, trusted)).findFirst().or(() -> own.stream().filter(Fetch::verified).findFirst());
            Map<String, Object> values = new LinkedHashMap<>();
            values.put("received", received);
            values.put("received_files", (long) received.size());
            values.put("fetched_from", own.stream().map(Fetch::donor).distinct().toList());
            Optional<String> failure;
            String message = "";
            if (ok.isPresent()) {
                String root = ok.get().verifiedRoot().orElse("");
                values.put("verified_root_hash", root);
                if (root.equals(trusted)) {
                    values.put("root_hash", trusted);
                    failure = Optional.empty();
                } else {
                    failure = Optional.of("verified root hash " + root + " is not the source's " + trusted);
                }
                message = "fetched " + received.size() + " files from " + String.join(", ", own.stream()
                        .map(f -> from(f.donor())).distinct().toList())
                        + ", all verified, root sha256 " + root;
            } else if (own.isEmpty()) {
                Settings s = n.settings();
                failure = Optional.of(s.srcOn().equals("node") && nodes.stream().noneMatch(m -> m.host().equals(s.srcHost()))
                        ? "the source node " + s.srcHost() + " did not plan this task (not among its hosts, failed or unreachable): "
                        + "it reads the source and starts the fan-out"
                        : "no node could give it the data (no holder was left to fetch from)");
            } else {
                failure = Optional.of(own.get(own.size() - 1).why());
            }
            out.put(n.host(), new CrossHostTransfer.HostOutcome(failure, message, values));
        }
        return out;
    }

    private static String str(Map<?, ?> m, String key) {
        return String.valueOf(m.get(key));
    }

    private static long num(Map<?, ?> m, String key) {
        return m.get(key) instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(m.get(key)));
    }
}
