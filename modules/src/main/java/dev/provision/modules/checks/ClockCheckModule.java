package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.Verdict;
import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.FleetCheck;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code clock}: the node's clock agrees with the controller's and chrony keeps it synchronised.
 *
 * <p>The controller offset: the module runs on the controller, so it brackets one
 * {@code date +%s.%N} probe with the controller's clock; the offset is the host's time minus the
 * midpoint, uncertain by half the round trip (which is granted before failing). chrony's own view
 * comes from {@code chronyc tracking}: chronyd not answering ({@code 506 Cannot talk to daemon})
 * fails, so does "Not synchronised" or a system offset above {@code max_offset}.
 *
 * <p>Parameters: {@code max_offset} (seconds, default 1.0), {@code require_chrony} (default true:
 * a node without chronyc fails; false skips those rows). Result: {@code epoch} (the host's clock),
 * {@code controller_offset_seconds}, {@code round_trip_seconds}, {@code chrony_offset_seconds}; the
 * spread across nodes is the engine's fleet step over {@code controller_offset_seconds}.
 */
public final class ClockCheckModule implements TaskModule, FleetCheck {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("max_offset", Type.ANY, 1.0)
            .withDefault("max_spread", Type.ANY, 1.0)
            .withDefault("require_chrony", Type.BOOL, true)
            .build();

    private final InstantSource clock;

    public ClockCheckModule() {
        this(InstantSource.system());
    }

    ClockCheckModule(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock cannot be null");
    }

    @Override
    public String name() {
        return "clock";
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
        CheckReport report = new CheckReport(name());
        double max = Probes.number(params, "max_offset").orElse(1.0);
        report.measured("max_spread", Probes.number(params, "max_spread").orElse(1.0));
        String bound = "|offset| <= " + Probes.figure(max) + " s";

        Instant before = clock.instant();
        ProbeResult date = context.host().probe("date", "+%s.%N");
        Instant after = clock.instant();
        double hostEpoch;
        try {
            hostEpoch = Double.parseDouble(date.stdout().strip());
        } catch (NumberFormatException e) {
            hostEpoch = Double.NaN;
        }
        if (!date.ok() || Double.isNaN(hostEpoch)) {
            report.add(new CheckResult("clock.controller_offset", "unknown", bound, Verdict.UNKNOWN,
                    "could not run: date +%s.%N failed: " + Probes.firstLine(date)));
        } else {
            double start = seconds(before);
            double end = seconds(after);
            double offset = hostEpoch - (start + end) / 2;
            double uncertainty = (end - start) / 2;
            report.measured("epoch", hostEpoch).measured("controller_offset_seconds", offset).measured("round_trip_seconds", end - start);
            report.add(CheckResult.of(Math.abs(offset) - uncertainty <= max, "clock.controller_offset",
                    String.format(Locale.ROOT, "%+.3f s (±%.3f)", offset, uncertainty), bound,
                    "the node's clock is " + String.format(Locale.ROOT, "%.3f", Math.abs(offset)) + " s "
                            + (offset > 0 ? "ahead of" : "behind") + " the controller's: step it (chronyc makestep) and check its time"
                            + " sources (chronyc sources), or the controller's"));
        }
        chrony(params.bool("require_chrony"), max, bound, context, report);
        return report.plan();
    }

    private static void chrony(boolean required, double max, String bound, TaskContext context, CheckReport report) throws ModuleException {
        ProbeResult tracking = context.host().probe("chronyc", "tracking");
        if (tracking.exitCode() == Probes.NOT_FOUND) {
            report.add(required ? CheckResult.fail("clock.chronyd", "chronyc missing", "running",
                    "chrony not installed: install it (cluster.yml's clock setup) or set require_chrony: false")
                    : CheckResult.skip("clock.chronyd", "chrony not installed"));
            return;
        }
        if (!tracking.ok()) {
            report.add(CheckResult.fail("clock.chronyd", "not running", "running", "chronyd not running: " + Probes.firstLine(tracking)
                    + ": start it (systemctl enable --now chronyd)"));
            return;
        }
        ChronyTracking t;
        try {
            t = ChronyTracking.parse(tracking.stdout());
        } catch (IllegalArgumentException e) {
            report.add(new CheckResult("clock.chronyd", "unreadable", "running", Verdict.UNKNOWN,
                    "could not judge: chronyc tracking printed " + e.getMessage() + ": run chronyc tracking on the node"));
            return;
        }
        report.measured("chrony_offset_seconds", t.systemOffsetSeconds());
        report.add(CheckResult.pass("clock.chronyd", "running", "running"));
        report.add(CheckResult.of(t.synchronised(), "clock.chrony_sync", t.leapStatus() + ", stratum " + t.stratum(),
                "synchronised", "chrony is not synchronised to a source (reference " + t.referenceId() + "): check that its"
                        + " servers answer (chronyc sources) and that UDP 123 is open"));
        report.add(CheckResult.of(Math.abs(t.systemOffsetSeconds()) <= max, "clock.chrony_offset",
                String.format(Locale.ROOT, "%+.6f s", t.systemOffsetSeconds()), bound,
                "chrony's system time offset is too large: step the clock (chronyc makestep) and check its sources"));
    }

    private static double seconds(Instant instant) {
        return instant.getEpochSecond() + instant.getNano() / 1e9;
    }

    /** The fleet step: the spread of the nodes' offsets from the controller stays within {@code max_spread}. */
    @Override
    public Map<String, List<CheckResult>> compare(Map<String, Map<String, Object>> resultsByHost) {
        double spread = resultsByHost.values().stream().map(r -> r.get("max_spread")).filter(Number.class::isInstance)
                .mapToDouble(n -> ((Number) n).doubleValue()).findFirst().orElse(1.0);
        return Fleet.withinSpread("clock.fleet_spread", resultsByHost, "controller_offset_seconds", spread);
    }
}
