package dev.provision.modules.checks;

import dev.provision.modules.spi.Verdict;
import dev.provision.modules.spi.CheckResult;
import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.FleetCheck;
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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code checkpoint_storage}: the checkpoint path (or the scratch path, {@code label: scratch}) has
 * room for a checkpoint and writes fast enough. A 70B ZeRO-3 checkpoint is 1.5-2 TB; a slow NAS
 * stalls every rank for minutes per save.
 *
 * <p>Read-only row: {@code LABEL.free} ({@code df -Pk}): available space at least
 * {@code expected_size} ({@code 1.5T}, {@code 500G}; powers of 1024), else, without it, the
 * filesystem less than 95% full.
 *
 * <p>The throughput needs a write, and checks do not write behind the engine's back (as the
 * {@code storage} marker): with {@code write_test: true} the plan holds one change, summarised as a
 * check write, that runs {@link #SCRIPT}: {@code dd} of {@code test_size} (default 1G) zeros with
 * {@code oflag=direct conv=fsync} (buffered with {@code conv=fsync} where the filesystem refuses
 * O_DIRECT) into {@code PATH/.provision-writetest-HOST}, stopped after {@code max_seconds}
 * (default 60; dd reports what it wrote so far), the test file removed after, dd's report kept in
 * {@code PATH/.provision-writetest-HOST.result}. No test is planned when less than twice
 * {@code test_size} is free. A later task with {@code read_result: true} reads that report back
 * ({@code LABEL.write_throughput}), failing below {@code min_write_mbps} (MB/s, 10^6 bytes) or when
 * the report is missing or older than {@code max_result_age} seconds (default 3600). Under
 * --check the write is only forecast: read results only when applying. Every node writes at the
 * same time (the task is not host-local), so a shared filesystem is measured under the load of a
 * fleet-wide checkpoint save. Result: {@code free_bytes}, {@code write_mbps}, {@code min_write_mbps}, {@code label},
 * {@code min_fraction} (for the fleet step: write throughput below that fraction of the fleet
 * median fails, default 0.5).
 */
public final class CheckpointStorageCheckModule implements TaskModule, FleetCheck {
    static final String TEST_PREFIX = ".provision-writetest-";
    /**
     * The write test: {@code $1} test file, {@code $2} report file, {@code $3} MiB to write,
     * {@code $4} seconds allowed, {@code $5} host, {@code $6} epoch seconds. The report: a
     * {@code provision-writetest HOST EPOCH} line, {@code mode=}, {@code exit=}, then dd's stderr.
     */
    static final String SCRIPT = "export LC_ALL=C; mode=direct; "
            + "timeout -s INT \"$4\" dd if=/dev/zero of=\"$1\" bs=1M count=\"$3\" oflag=direct conv=fsync 2>\"$2.dd\"; rc=$?; "
            + "if [ $rc -ne 0 ] && grep -q 'Invalid argument' \"$2.dd\"; then mode=buffered; "
            + "timeout -s INT \"$4\" dd if=/dev/zero of=\"$1\" bs=1M count=\"$3\" conv=fsync 2>\"$2.dd\"; rc=$?; fi; "
            + "rm -f \"$1\"; { printf 'provision-writetest %s %s\\nmode=%s\\nexit=%s\\n' \"$5\" \"$6\" \"$mode\" \"$rc\"; cat \"$2.dd\"; } >\"$2.tmp\"; "
            + "rm -f \"$2.dd\"; mv \"$2.tmp\" \"$2\"";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("path", Type.STRING)
            .withDefault("label", Type.STRING, "checkpoint")
            .optional("expected_size", Type.STRING)
            .withDefault("write_test", Type.BOOL, false)
            .withDefault("read_result", Type.BOOL, false)
            .withDefault("test_size", Type.STRING, "1G")
            .withDefault("max_seconds", Type.INT, 60L)
            .optional("min_write_mbps", Type.ANY)
            .withDefault("min_fraction", Type.ANY, 0.5)
            .withDefault("max_result_age", Type.INT, 3600L)
            .build();

    private final InstantSource clock;

    public CheckpointStorageCheckModule() {
        this(InstantSource.system());
    }

    CheckpointStorageCheckModule(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

    @Override
    public String name() {
        return "checkpoint_storage";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String path = StorageCheckModule.absolute("path", params.string("path"));
        String label = params.string("label");
        if (!label.matches("[a-z][a-z_]*")) {
            throw new ModuleException("label: '" + label + "' must be a lowercase word (checkpoint, scratch)");
        }
        String host = context.host().name();
        if (!host.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new ModuleException("host name '" + host + "' cannot be part of a file name");
        }
        String testFile = path + "/" + TEST_PREFIX + host;
        CheckReport report = new CheckReport(name()).measured("label", label)
                .measured("min_fraction", Probes.number(params, "min_fraction").orElse(0.5));
        if (params.bool("read_result")) {
            return report.add(throughput(params, context, label, testFile + ".result", report)).plan();
        }
        ProbeResult df = context.host().probe(DfOutput.command(path).toArray(String[]::new));
        Optional<DfOutput> fs = df.ok() ? DfOutput.parse(df.stdout()) : Optional.empty();
        if (fs.isEmpty()) {
            return report.add(CheckResult.fail(label + ".free", "unknown", "-", "df failed on " + path + ": " + Probes.firstLine(df)
                    + ": create the path or fix the " + label + " path")).plan();
        }
        DfOutput f = fs.get();
        report.measured("free_bytes", f.availableBytes());
        String measured = ByteSize.shown(f.availableBytes()) + " free (" + f.capacityPercent() + "% used, " + f.mountedOn() + ")";
        Optional<String> expected = Probes.expectation(params, "expected_size");
        if (expected.isPresent()) {
            long need = size("expected_size", expected.get());
            report.add(CheckResult.of(f.availableBytes() >= need, label + ".free", measured, ">= " + ByteSize.shown(need),
                    "no room for a " + ByteSize.shown(need) + " " + label + " on " + path + ": free space there or give it a larger filesystem"));
        } else {
            report.add(CheckResult.of(f.capacityPercent() < 95, label + ".free", measured, "< 95% used",
                    path + " is nearly full: free space there (du -sh) or grow the filesystem"));
        }
        if (params.bool("write_test")) {
            long testBytes = size("test_size", params.string("test_size"));
            long mib = Math.max(1, testBytes / (1024 * 1024));
            if (f.availableBytes() < 2 * mib * 1024 * 1024) {
                report.add(new CheckResult(label + ".write_test", "not run", ByteSize.shown(2 * mib * 1024 * 1024) + " free", Verdict.UNKNOWN,
                        "could not run: too little space to write a " + ByteSize.shown(mib * 1024 * 1024) + " test file: free space there"));
            } else {
                long epoch = clock.instant().getEpochSecond();
                report.change(Change.of("check write: " + ByteSize.shown(mib * 1024 * 1024) + " dd oflag=direct test of " + path
                                + " (at most " + params.integer("max_seconds") + " s, removed after)",
                        Command.Exec.of("sh", "-c", SCRIPT, "sh", testFile, testFile + ".result", String.valueOf(mib),
                                String.valueOf(params.integer("max_seconds")), host, String.valueOf(epoch))));
            }
        }
        return report.plan();
    }

    private CheckResult throughput(Params params, TaskContext context, String label, String resultFile, CheckReport report)
            throws ModuleException {
        String check = label + ".write_throughput";
        Optional<Double> min = Probes.number(params, "min_write_mbps");
        min.ifPresent(m -> report.measured("min_write_mbps", m));
        String expected = min.map(m -> ">= " + Probes.figure(m) + " MB/s").orElse("-");
        Optional<byte[]> content = context.host().readFile(resultFile);
        if (content.isEmpty()) {
            return new CheckResult(check, "no result", expected, Verdict.UNKNOWN, "could not judge: " + resultFile
                    + " missing: the write test did not run (see the write_test row)");
        }
        List<String> lines = new String(content.get(), StandardCharsets.UTF_8).lines().toList();
        String[] head = lines.isEmpty() ? new String[0] : lines.get(0).strip().split("\\s+");
        if (head.length != 3 || !head[0].equals("provision-writetest") || !head[2].matches("\\d+")) {
            return new CheckResult(check, "unreadable", expected, Verdict.UNKNOWN, "could not judge: " + resultFile
                    + " is not a write test report: remove it, then run again");
        }
        long age = clock.instant().getEpochSecond() - Long.parseLong(head[2]);
        if (age > params.integer("max_result_age")) {
            return new CheckResult(check, "stale (" + age + " s old)", expected, Verdict.UNKNOWN,
                    "could not judge: the write test did not run in this run (see the write_test row)");
        }
        String mode = lines.stream().filter(l -> l.startsWith("mode=")).findFirst().map(l -> l.substring(5)).orElse("?");
        String exit = lines.stream().filter(l -> l.startsWith("exit=")).findFirst().map(l -> l.substring(5)).orElse("?");
        String dd = String.join("\n", lines.subList(1, lines.size()));
        Optional<DdOutput> out = DdOutput.parse(dd);
        if (out.isEmpty() || out.get().bytes() == 0 || !exit.equals("0") && !exit.equals("124")) {
            return CheckResult.fail(check, "write failed", expected, "dd exit " + exit + ": "
                    + lines.stream().filter(l -> l.startsWith("dd:")).findFirst().orElse("no transfer report")
                    + ": check the filesystem (dmesg, df -i, quotas)");
        }
        double mbps = out.get().megabytesPerSecond();
        report.measured("write_mbps", mbps);
        report.measured("write_seconds", out.get().seconds());
        String measured = String.format(Locale.ROOT, "%.0f MB/s (%s in %.1f s, %s%s)", mbps, ByteSize.shown(out.get().bytes()),
                out.get().seconds(), mode, exit.equals("124") ? ", stopped at the time limit" : "");
        if (min.isEmpty()) {
            return new CheckResult(check, measured, expected, Verdict.PASS, "no min_write_mbps: compared with the fleet only");
        }
        return CheckResult.of(mbps >= min.get(), check, measured, expected, "slow " + label + " storage: "
                + String.format(Locale.ROOT, "%.0f%%", 100 * mbps / min.get()) + " of the minimum write rate: check the filesystem's load"
                + " and this node's network path to it");
    }

    private static long size(String param, String value) throws ModuleException {
        try {
            return ByteSize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new ModuleException(param + ": " + e.getMessage());
        }
    }

    /** The fleet step: write throughput below {@code min_fraction} of the fleet median fails (a slow node's path). */
    /** A write test shorter than this is not timed finely enough to compare nodes by. */
    static final double MIN_TIMED_SECONDS = 1.0;

    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        double fraction = resultsByHost.values().stream().map(r -> r.get("min_fraction")).filter(Number.class::isInstance)
                .mapToDouble(n -> ((Number) n).doubleValue()).findFirst().orElse(0.5);
        String label = resultsByHost.values().stream().map(r -> r.get("label")).filter(String.class::isInstance)
                .map(String::valueOf).findFirst().orElse("checkpoint");
        // A write over in a blink says nothing about speed (timer and scheduling noise: 4 MiB in 0.002 s
        // or 0.06 s on the same disk); such a host is never called slow against the others.
        Map<String, String> tooShort = new java.util.LinkedHashMap<>();
        resultsByHost.forEach((host, r) -> {
            if (r.get("write_seconds") instanceof Number s && s.doubleValue() < MIN_TIMED_SECONDS) {
                tooShort.put(host, String.format(Locale.ROOT, "written in %.2f s, too short to call slow (under %.0f s); "
                        + "a larger test_size compares the nodes", s.doubleValue(), MIN_TIMED_SECONDS));
            }
        });
        return Fleet.notBelowMedian(label + ".write_vs_fleet", "MB/s", resultsByHost, "write_mbps", fraction, tooShort);
    }
}
