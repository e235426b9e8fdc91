package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * {@code storage}: the shared path is mounted, writable, and really shared.
 *
 * <p>Read-only rows: {@code storage.mounted} (the filesystem holding {@code path} is mounted at
 * {@code mountpoint}, default {@code path}: {@code findmnt --target}), {@code storage.fstype}
 * (when {@code fstype} is given, e.g. {@code nfs4}), {@code storage.writable} (mounted {@code rw}
 * and {@code test -w} passes: access(2) asks the filesystem, NFS included, without writing).
 *
 * <p>The shared read-back needs a write, and checks do not write behind the engine's back: with
 * {@code write_marker: true} the plan holds one change, summarised as a check write, that puts
 * {@code PATH/.provision-preflight-HOST} (the inventory name and the controller's epoch seconds).
 * A later task on every node with {@code read_markers_from: [hosts]} reads each marker back
 * ({@code storage.readback.HOST}) and fails when it is missing or older than
 * {@code max_marker_age} seconds (default 3600); that task lists only the read-back rows (the
 * mount rows belong to the write task); on a node where the path is not mounted it is one failed
 * row, {@code storage.readback}, that says so. Tasks run one at a time across all hosts, so
 * every marker is written before any is read. Under --check the write is only forecast: run the
 * read-back task only when applying. A node where the path is not mounted writes no marker (it
 * would land on the local disk).
 */
public final class StorageCheckModule implements TaskModule {
    static final String MARKER_PREFIX = ".provision-preflight-";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("path", Type.STRING)
            .optional("mountpoint", Type.STRING)
            .optional("fstype", Type.STRING)
            .withDefault("write_marker", Type.BOOL, false)
            .withDefault("read_markers_from", Type.LIST, List.of())
            .withDefault("max_marker_age", Type.INT, 3600L)
            .build();

    private final InstantSource clock;

    public StorageCheckModule() {
        this(InstantSource.system());
    }

    StorageCheckModule(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

    @Override
    public String name() {
        return "storage";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String path = absolute("path", params.string("path"));
        String mountpoint = absolute("mountpoint", Probes.expectation(params, "mountpoint").orElse(path));
        CheckReport report = new CheckReport(name());

        ProbeResult findmnt = context.host().probe(FindmntOutput.command(path).toArray(String[]::new));
        Optional<FindmntOutput> fs = findmnt.ok() ? FindmntOutput.parse(findmnt.stdout()) : Optional.empty();
        boolean mounted = fs.isPresent() && fs.get().target().equals(mountpoint);
        List<Object> peers = params.list("read_markers_from");
        if (!peers.isEmpty() && !params.bool("write_marker")) {
            // The read-back task: the write task before it already reported the mount; repeating
            // those rows would report one unmounted path as two failures.
            if (!mounted) {
                // One row, not one per peer: every marker is "missing" for the same local reason.
                return report.add(CheckResult.fail("storage.readback", "not mounted", "markers from " + peers.size() + " hosts",
                        path + " is not mounted on this node: mount it (cluster.yml's shared storage), then run again")).plan();
            }
            long maxAge = params.integer("max_marker_age");
            for (Object peer : peers) {
                report.add(readBack(context, path, hostName(String.valueOf(peer)), maxAge));
            }
            return report.plan();
        }
        report.add(CheckResult.of(mounted, "storage.mounted", fs.map(f -> f.target() + " (" + f.source() + ")").orElse("not found"),
                mountpoint, fs.isEmpty() ? "findmnt failed: " + Probes.firstLine(findmnt)
                        : path + " is on " + fs.get().target() + ", not a filesystem mounted at " + mountpoint
                                + ": mount it (cluster.yml's shared storage, or mount " + mountpoint + ")"));
        Probes.expectation(params, "fstype").ifPresent(want -> report.add(CheckResult.of(
                fs.map(f -> f.fstype().equals(want)).orElse(false), "storage.fstype", fs.map(FindmntOutput::fstype).orElse("none"),
                want, "wrong filesystem type: mount the expected filesystem there, or fix fstype")));
        ProbeResult writable = context.host().probe("test", "-w", path);
        boolean readOnly = fs.map(FindmntOutput::readOnly).orElse(false);
        report.add(CheckResult.of(writable.ok() && !readOnly, "storage.writable", readOnly ? "read-only mount" : writable.ok() ? "writable" : "not writable",
                "writable", readOnly ? "mounted read-only: remount it read-write (mount -o remount,rw), then check the server's export"
                        : "no write permission on " + path + ": fix its owner and mode for the training user"));

        if (params.bool("write_marker")) {
            if (mounted) {
                String marker = path + "/" + MARKER_PREFIX + hostName(context.host().name());
                byte[] content = ("provision-preflight " + context.host().name() + " " + clock.instant().getEpochSecond() + "\n")
                        .getBytes(StandardCharsets.UTF_8);
                report.change(Change.of("check write: marker " + marker + " for the shared read-back",
                        new Command.PutFile(marker, content, new Command.Attributes(Optional.of("0644"), Optional.empty(), Optional.empty()))));
            }
        }
        long maxAge = params.integer("max_marker_age");
        for (Object peer : peers) {
            report.add(readBack(context, path, hostName(String.valueOf(peer)), maxAge));
        }
        return report.plan();
    }

    private CheckResult readBack(TaskContext context, String path, String peer, long maxAge) throws ModuleException {
        String check = "storage.readback." + peer;
        String marker = path + "/" + MARKER_PREFIX + peer;
        Optional<byte[]> content = context.host().readFile(marker);
        if (content.isEmpty()) {
            return CheckResult.fail(check, "missing", "marker from " + peer, marker + " not visible here: storage not shared:"
                    + " mount the same export (server and path) on every node");
        }
        String[] words = new String(content.get(), StandardCharsets.UTF_8).strip().split("\\s+");
        if (words.length != 3 || !words[0].equals("provision-preflight") || !words[1].equals(peer) || !words[2].matches("\\d+")) {
            return CheckResult.fail(check, "unreadable", "marker from " + peer, marker + " does not hold a provision marker: remove it, then run again");
        }
        long age = clock.instant().getEpochSecond() - Long.parseLong(words[2]);
        return CheckResult.of(age <= maxAge, check, age + " s old", "<= " + maxAge + " s old",
                "stale marker: " + peer + " did not write it in this run: run the storage checks on every node together");
    }

    static String absolute(String param, String path) throws ModuleException {
        if (!path.startsWith("/") || List.of(path.split("/")).contains("..")) {
            throw new ModuleException(param + ": '" + path + "' must be an absolute path without '..'");
        }
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** A host name as part of a file name: no separators, no leading dot. */
    private static String hostName(String host) throws ModuleException {
        if (!host.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new ModuleException("read_markers_from: '" + host + "' is not a host name");
        }
        return host;
    }
}
