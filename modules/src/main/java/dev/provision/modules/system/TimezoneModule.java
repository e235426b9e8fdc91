package dev.provision.modules.system;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.files.FileContentPlanner.Existing;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.FileStat;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code timezone} (Ansible's {@code community.general.timezone}) on a Linux host: the system time
 * zone as {@code /etc/localtime} and, on Debian and Ubuntu, {@code /etc/timezone}; and whether the
 * hardware clock keeps local time or UTC, as the third line of {@code /etc/adjtime}. Written as files
 * and a link, without {@code timedatectl}, so that a node without systemd (a container, a namespace)
 * converges the same way.
 *
 * <p>Parameters, at least one of them: {@code name}, an IANA zone ({@code Etc/UTC},
 * {@code America/New_York}) that must be a zone file under {@code /usr/share/zoneinfo} (else the
 * task fails, as Ansible's does); {@code hwclock} (alias {@code rtc}): {@code local} or {@code UTC}.
 *
 * <p>The zone is set when {@code /etc/localtime} is a link that names {@code /usr/share/zoneinfo/NAME}
 * (absolute, or relative as {@code timedatectl} writes it), or a regular file with that zone file's
 * bytes (Ansible compares a copy the same way; a container's bind-mounted {@code /etc/localtime}
 * cannot be replaced by a link anyway). Otherwise the link is made with the engine's
 * {@link Command.Symlink}: GNU {@code ln -sfn} makes the new link under a temporary name and renames it
 * over the old one, so a reader never finds the path missing. {@code /etc/timezone} is written when it
 * exists or when the host's {@code os_family} is Debian; Red Hat's {@code /etc/sysconfig/clock} is not
 * (RHEL 7 and later read the zone from {@code /etc/localtime} only).
 *
 * <p>{@code hwclock} changes how the hardware clock is read from then on, not the clock itself: a
 * missing {@code /etc/adjtime} or third line means UTC (as {@code hwclock} and {@code timedatectl}
 * read it), and nothing runs {@code hwclock --systohc} (there is no RTC in a container, and a test
 * must never set the machine's clock); NTP or the next {@code hwclock --systohc} writes the RTC.
 */
public final class TimezoneModule implements TaskModule {
    static final String LOCALTIME = "/etc/localtime";
    static final String TIMEZONE_FILE = "/etc/timezone";
    static final String ADJTIME = "/etc/adjtime";
    static final String ZONEINFO = "/usr/share/zoneinfo/";
    /** hwclock(8)'s first two lines of a new {@code /etc/adjtime}: no drift, never calibrated. */
    private static final List<String> ADJTIME_DEFAULTS = List.of("0.0 0 0.0", "0");
    /** Path segments of zone names ({@code Etc/GMT+5}, {@code America/Port-au-Prince}): never {@code .}, {@code ..} or an option. */
    private static final Pattern ZONE_NAME =
            Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._+-]*(?:/[A-Za-z0-9_][A-Za-z0-9._+-]*)*");
    private static final byte[] TZIF_MAGIC = "TZif".getBytes(StandardCharsets.US_ASCII);
    private static final Attributes NEW_FILE = new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("name", Type.STRING)
            .add(new ParamSpec.Param("hwclock", Type.STRING, false, Optional.empty(), List.of("local", "UTC"), List.of("rtc"), false))
            .requiredOneOf("name", "hwclock")
            .build();

    public TimezoneModule() {
    }

    @Override
    public String name() {
        return "timezone";
    }

    @Override
    public String description() {
        return """
                the system time zone: /etc/localtime a link to /usr/share/zoneinfo/NAME (a copy with the
                zone's bytes counts), and /etc/timezone holding NAME where it exists or os_family is Debian;
                no timedatectl, so hosts without systemd converge too. hwclock (local|UTC): the third line
                of /etc/adjtime (missing means UTC); the hardware clock itself is not rewritten. Running
                programs keep the zone they started with: restart cron and the like after a change.""";
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
        HostView host = context.host();
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Optional<String> name = params.optString("name");
        if (name.isPresent()) {
            String zone = name.get();
            byte[] zoneFile = zoneFile(host, zone);
            collect(localtime(host, zone, zoneFile), changes, reasons);
            Optional<Plan> timezoneFile = timezoneFile(host, zone);
            if (timezoneFile.isPresent()) {
                collect(timezoneFile.get(), changes, reasons);
            }
        }
        Optional<String> hwclock = params.optString("hwclock");
        if (hwclock.isPresent()) {
            collect(adjtime(host, hwclock.get()), changes, reasons);
        }
        return changes.isEmpty() ? Plan.converged(String.join("; ", reasons)) : new Plan(changes, "", Map.of(), Map.of());
    }

    private static void collect(Plan plan, List<Change> changes, List<String> reasons) {
        if (plan.isEmpty()) {
            reasons.add(plan.reason());
        } else {
            changes.addAll(plan.changes());
        }
    }

    /** The zone's file under /usr/share/zoneinfo, checked to be one (a name that is not fails, as in Ansible). */
    private static byte[] zoneFile(HostView host, String zone) throws ModuleException {
        if (zone.length() > 255 || !ZONE_NAME.matcher(zone).matches()) {
            throw new ModuleException("name: '" + zone + "' is not a time zone name (such as Etc/UTC or America/New_York: "
                    + "letters, digits, '_', '+', '-' and '.', parts separated by '/')");
        }
        String path = ZONEINFO + zone;
        Optional<Existing> file;
        try {
            file = FileContentPlanner.read(host, path);
        } catch (ModuleException e) {
            throw new ModuleException("given timezone \"" + zone + "\" is not available: " + e.getMessage(), e);
        }
        if (file.isEmpty()) {
            throw new ModuleException("given timezone \"" + zone + "\" is not available: there is no " + path
                    + " (is the tzdata package installed?)");
        }
        byte[] content = file.get().content();
        if (content.length < TZIF_MAGIC.length || !Arrays.equals(content, 0, TZIF_MAGIC.length, TZIF_MAGIC, 0, TZIF_MAGIC.length)) {
            throw new ModuleException("given timezone \"" + zone + "\" is not available: " + path + " is not a zone file (TZif)");
        }
        return content;
    }

    /** {@code /etc/localtime}: a link to the zone's file, unless it already names the zone or holds its bytes. */
    private static Plan localtime(HostView host, String zone, byte[] zoneFile) throws ModuleException {
        String target = ZONEINFO + zone;
        Optional<FileStat> stat = host.stat(LOCALTIME);
        String before;
        if (stat.isEmpty()) {
            before = "";
        } else {
            FileStat current = stat.get();
            switch (current.type()) {
                case LINK -> {
                    Optional<String> linked = zoneOfLink(current.linkTarget());
                    if (linked.isPresent() && linked.get().equals(zone)) {
                        return Plan.converged("the time zone is " + zone);
                    }
                    before = linked.orElse(LOCALTIME + " -> " + current.linkTarget());
                }
                case FILE -> {
                    if (host.readFile(LOCALTIME).map(b -> Arrays.equals(b, zoneFile)).orElse(false)) {
                        return Plan.converged("the time zone is " + zone + " (" + LOCALTIME + " is a copy of " + target + ")");
                    }
                    before = "unknown (" + LOCALTIME + " is a file that is not " + target + ")";
                }
                case DIRECTORY -> throw new ModuleException(LOCALTIME + " is a directory; refusing to replace it with a link to " + target);
                default -> throw new ModuleException(LOCALTIME + " is not a file nor a link; refusing to replace it");
            }
        }
        String summary = "set the time zone to " + zone + (before.isEmpty() ? "" : " (was " + before + ")")
                + ": link " + LOCALTIME + " -> " + target;
        String beforeText = before.isEmpty() ? "" : before + "\n";
        return Plan.of(Change.withDiff(summary, new Diff("timezone", beforeText, zone + "\n"), new Command.Symlink(LOCALTIME, target)));
    }

    /**
     * The zone a link at {@code /etc/localtime} names: what follows {@code /usr/share/zoneinfo/} in its
     * target, relative ({@code ../usr/share/zoneinfo/Europe/Berlin}, as timedatectl writes it) or not.
     */
    static Optional<String> zoneOfLink(String linkTarget) {
        String resolved;
        try {
            resolved = Path.of("/etc").resolve(linkTarget).normalize().toString();
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
        if (resolved.startsWith(ZONEINFO) && resolved.length() > ZONEINFO.length()) {
            return Optional.of(resolved.substring(ZONEINFO.length()));
        }
        return Optional.empty();
    }

    /** {@code /etc/timezone} where the host keeps one (Debian and Ubuntu); empty elsewhere. */
    private static Optional<Plan> timezoneFile(HostView host, String zone) throws ModuleException {
        boolean exists = host.stat(TIMEZONE_FILE).isPresent();
        if (!exists && !"Debian".equals(host.facts().get("os_family"))) {
            return Optional.empty();
        }
        // An existing file keeps its owner and mode; a new one is Debian's 0644 root root.
        return Optional.of(FileContentPlanner.plan(host, TIMEZONE_FILE, (zone + "\n").getBytes(StandardCharsets.UTF_8),
                exists ? Attributes.NONE : NEW_FILE, TIMEZONE_FILE + " holds " + zone));
    }

    /** The third line of {@code /etc/adjtime}: {@code UTC} or {@code LOCAL}; missing means UTC. */
    private static Plan adjtime(HostView host, String hwclock) throws ModuleException {
        String wanted = hwclock.equals("local") ? "LOCAL" : "UTC";
        String reason = "the hardware clock keeps " + (hwclock.equals("local") ? "local time" : "UTC");
        Optional<Existing> existing = FileContentPlanner.read(host, ADJTIME);
        List<String> lines = new ArrayList<>();
        String current = "UTC";
        if (existing.isPresent()) {
            lines.addAll(existing.get().text(ADJTIME).lines().toList());
            if (lines.size() >= 3 && !lines.get(2).isBlank()) {
                current = lines.get(2).strip();
            }
        }
        if (current.equals(wanted)) {
            return Plan.converged(reason + (existing.isEmpty() ? " (no " + ADJTIME + ")" : " (" + ADJTIME + ")"));
        }
        for (int i = lines.size(); i < ADJTIME_DEFAULTS.size(); i++) {
            lines.add(ADJTIME_DEFAULTS.get(i));
        }
        if (lines.size() == 2) {
            lines.add(wanted);
        } else {
            lines.set(2, wanted);
        }
        byte[] content = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        String summary = "set the hardware clock to " + (hwclock.equals("local") ? "local time" : "UTC") + " in " + ADJTIME;
        Plan file = existing.isPresent()
                ? FileContentPlanner.update(ADJTIME, existing.get(), content, Attributes.NONE, summary, reason)
                : FileContentPlanner.create(host, ADJTIME, content, NEW_FILE);
        Diff value = new Diff("hwclock", (current.equals("LOCAL") ? "local" : current) + "\n", hwclock + "\n");
        List<Change> changes = new ArrayList<>();
        for (Change c : file.changes()) {
            List<Diff> diffs = new ArrayList<>(List.of(value));
            diffs.addAll(c.diffs());
            changes.add(new Change(summary, diffs, c.commands()));
        }
        return Plan.of(changes, reason);
    }
}
