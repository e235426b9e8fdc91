package dev.provision.modules.system;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.files.FileContentPlanner;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Command.Attributes;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code limits}: resource limits (ulimits) for login sessions through a pam_limits drop-in, and
 * for services through systemd's manager defaults where systemd runs.
 *
 * <p>Parameters (Ansible's {@code pam_limits} names where it has them):
 * <ul>
 *   <li>{@code domain} (default {@code *}): a user, {@code @group}, {@code *} or a uid/gid range.
 *   <li>{@code items}: a map of item to value, e.g. {@code {nofile: 1048576, memlock: unlimited}};
 *       each item gets a {@code soft} and a {@code hard} line with the same value. Or, for one
 *       limit, {@code limit_item}, {@code value} and {@code limit_type} ({@code soft}, {@code hard}
 *       or {@code -} for both, the default).
 *   <li>{@code dest} (default {@code /etc/security/limits.d/90-provision.conf}): the drop-in. Lines
 *       are keyed by (domain, type, item): a line this task owns is replaced where it stands, others
 *       (another task's, the administrator's) are kept, so several tasks may share the file. The
 *       whole new content is planned as one file write with a diff.
 * </ul>
 *
 * <p>When {@code facts.service_mgr} is {@code systemd}, {@code nofile}, {@code memlock} and
 * {@code nproc} also go to {@code /etc/systemd/system.conf.d/90-provision-limits.conf} as
 * {@code [Manager]} {@code DefaultLimitNOFILE=} etc. ({@code unlimited} becomes {@code infinity},
 * differing soft and hard values {@code soft:hard}; an item with only one side given is left out,
 * since one systemd value sets both), and a change of that file is followed by a change running
 * {@code systemctl daemon-reexec} so that services started afterwards get the limits. pam_limits
 * applies to new login sessions only; running sessions keep their limits.
 */
public final class LimitsModule implements TaskModule {
    static final String DEFAULT_DEST = "/etc/security/limits.d/90-provision.conf";
    static final String SYSTEMD_DROP_IN = "/etc/systemd/system.conf.d/90-provision-limits.conf";
    private static final Set<String> ITEMS = Set.of("core", "data", "fsize", "memlock", "nofile", "rss", "stack", "cpu",
            "nproc", "as", "maxlogins", "maxsyslogins", "priority", "locks", "sigpending", "msgqueue", "nice", "rtprio", "chroot");
    private static final Map<String, String> SYSTEMD_NAMES = Map.of("nofile", "DefaultLimitNOFILE",
            "memlock", "DefaultLimitMEMLOCK", "nproc", "DefaultLimitNPROC");
    private static final Pattern VALUE = Pattern.compile("-?[0-9]+|unlimited|infinity");
    private static final Pattern DOMAIN = Pattern.compile("[^\\s#]+");
    private static final Attributes FILE_ATTRIBUTES = new Attributes(Optional.of("0644"), Optional.of("root"), Optional.of("root"));
    private static final Attributes DIRECTORY_ATTRIBUTES = new Attributes(Optional.of("0755"), Optional.of("root"), Optional.of("root"));
    private static final ParamSpec SPEC = ParamSpec.builder()
            .withDefault("domain", Type.STRING, "*")
            .optional("items", Type.MAP)
            .choice("limit_type", "-", "soft", "hard", "-")
            .optional("limit_item", Type.STRING)
            .optional("value", Type.STRING)
            .withDefault("dest", Type.STRING, DEFAULT_DEST)
            .mutuallyExclusive("items", "limit_item")
            .requiredOneOf("items", "limit_item")
            .build();

    /** One line of limits.conf: {@code domain type item value}. */
    record Limit(String domain, String type, String item, String value) {
        Limit {
            requireNonNull(domain, "domain cannot be null");
            requireNonNull(type, "type cannot be null");
            requireNonNull(item, "item cannot be null");
            requireNonNull(value, "value cannot be null");
        }

        String key() {
            return domain + " " + type + " " + item;
        }

        String line() {
            return domain + " " + type + " " + item + " " + value;
        }
    }

    public LimitsModule() {
    }

    @Override
    public String name() {
        return "limits";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** Each item (a domain) edits the same files: what it does to them is forecast exactly. */
    @Override
    public boolean plansTogether() {
        return true;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        String domain = params.string("domain");
        if (!DOMAIN.matcher(domain).matches()) {
            throw new ModuleException("domain '" + domain + "' must be one word: a user, @group, * or a uid range");
        }
        String dest = params.string("dest");
        if (!dest.startsWith("/")) {
            throw new ModuleException("dest must be an absolute path, got '" + dest + "'");
        }
        List<Limit> limits = limits(params, domain);
        HostView host = context.host();
        List<Change> changes = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        Plan pam = planLimitsFile(host, dest, limits);
        changes.addAll(pam.changes());
        if (pam.isEmpty()) {
            reasons.add(pam.reason());
        }
        if ("systemd".equals(host.facts().get("service_mgr"))) {
            Map<String, String> managerDefaults = systemdDefaults(limits);
            if (!managerDefaults.isEmpty()) {
                Plan systemd = planSystemdDropIn(host, managerDefaults);
                if (systemd.isEmpty()) {
                    reasons.add(systemd.reason());
                } else {
                    changes.addAll(systemd.changes());
                    changes.add(Change.of("re-execute systemd so that new services get the default limits",
                            Command.Exec.of("systemctl", "daemon-reexec")));
                }
            }
        }
        return Plan.of(changes, String.join("; ", reasons));
    }

    private static List<Limit> limits(Params params, String domain) throws ModuleException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> types;
        if (params.has("items")) {
            for (Map.Entry<String, Object> e : params.map("items").entrySet()) {
                values.put(e.getKey(), String.valueOf(e.getValue()));
            }
            if (values.isEmpty()) {
                throw new ModuleException("items is empty; give at least one limit such as {nofile: 65535}");
            }
            types = List.of("soft", "hard");
        } else {
            String value = params.optString("value")
                    .orElseThrow(() -> new ModuleException("value is required with limit_item"));
            values.put(params.string("limit_item"), value);
            String type = params.string("limit_type");
            types = type.equals("-") ? List.of("soft", "hard") : List.of(type);
        }
        List<Limit> limits = new ArrayList<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!ITEMS.contains(e.getKey())) {
                throw new ModuleException("'" + e.getKey() + "' is not a pam_limits item; known items: " + String.join(", ", new java.util.TreeSet<>(ITEMS)));
            }
            String value = e.getValue().strip();
            if (!VALUE.matcher(value).matches()) {
                throw new ModuleException("value of " + e.getKey() + " must be a number or unlimited, got '" + e.getValue() + "'");
            }
            for (String type : types) {
                limits.add(new Limit(domain, type, e.getKey(), value.equals("infinity") ? "unlimited" : value));
            }
        }
        return limits;
    }

    private static Plan planLimitsFile(HostView host, String dest, List<Limit> limits) throws ModuleException {
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, dest);
        List<String> lines = new ArrayList<>();
        if (existing.isPresent()) {
            lines.addAll(existing.get().text(dest).lines().toList());
        } else {
            lines.add("# Resource limits managed by provision; lines for the same domain, type and item are replaced.");
        }
        for (Limit limit : limits) {
            replaceOrAppend(lines, limit);
        }
        byte[] wanted = render(lines);
        String converged = dest + " sets " + describe(limits);
        if (existing.isPresent()) {
            if (existing.get().text(dest).lines().toList().equals(lines)) {
                return Plan.converged(converged);
            }
            return FileContentPlanner.update(dest, existing.get(), wanted, Attributes.NONE, "set " + describe(limits) + " in " + dest, converged);
        }
        return FileContentPlanner.planInDirectory(host, dest, wanted, FILE_ATTRIBUTES, DIRECTORY_ATTRIBUTES, converged);
    }

    /** Replaces the first line with the limit's key (dropping later ones, which would win), else appends. */
    private static void replaceOrAppend(List<String> lines, Limit limit) {
        boolean placed = false;
        for (int i = 0; i < lines.size(); i++) {
            String[] fields = lines.get(i).strip().split("\\s+");
            if (fields.length != 4 || fields[0].startsWith("#")
                    || !(fields[0] + " " + fields[1] + " " + fields[2]).equals(limit.key())) {
                continue;
            }
            if (placed) {
                lines.remove(i--);
            } else {
                if (!fields[3].equals(limit.value())) {
                    lines.set(i, limit.line());
                }
                placed = true;
            }
        }
        if (!placed) {
            lines.add(limit.line());
        }
    }

    /** systemd's values for the items it has a manager default for; an item needs both sides. */
    private static Map<String, String> systemdDefaults(List<Limit> limits) {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : SYSTEMD_NAMES.entrySet().stream().sorted(Map.Entry.comparingByValue()).toList()) {
            Optional<String> soft = value(limits, "soft", e.getKey());
            Optional<String> hard = value(limits, "hard", e.getKey());
            if (soft.isPresent() && hard.isPresent()) {
                String s = systemdValue(soft.get());
                String h = systemdValue(hard.get());
                defaults.put(e.getValue(), s.equals(h) ? s : s + ":" + h);
            }
        }
        return defaults;
    }

    private static Optional<String> value(List<Limit> limits, String type, String item) {
        return limits.stream().filter(l -> l.type().equals(type) && l.item().equals(item)).map(Limit::value).findFirst();
    }

    private static String systemdValue(String value) {
        return value.equals("unlimited") ? "infinity" : value;
    }

    /** The [Manager] drop-in: our keys replaced or added, other keys (another task's) kept. */
    private static Plan planSystemdDropIn(HostView host, Map<String, String> defaults) throws ModuleException {
        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, SYSTEMD_DROP_IN);
        Map<String, String> merged = new LinkedHashMap<>();
        if (existing.isPresent()) {
            for (String line : existing.get().text(SYSTEMD_DROP_IN).lines().toList()) {
                int eq = line.indexOf('=');
                if (eq > 0 && !line.startsWith("#") && !line.startsWith("[")) {
                    merged.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
                }
            }
        }
        merged.putAll(defaults);
        List<String> lines = new ArrayList<>();
        lines.add("# Default resource limits for services, managed by provision.");
        lines.add("[Manager]");
        merged.forEach((k, v) -> lines.add(k + "=" + v));
        String converged = SYSTEMD_DROP_IN + " sets " + String.join(", ", defaults.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
        byte[] wanted = render(lines);
        if (existing.isPresent()) {
            return FileContentPlanner.update(SYSTEMD_DROP_IN, existing.get(), wanted, Attributes.NONE, "update " + SYSTEMD_DROP_IN, converged);
        }
        return FileContentPlanner.planInDirectory(host, SYSTEMD_DROP_IN, wanted, FILE_ATTRIBUTES, DIRECTORY_ATTRIBUTES, converged);
    }

    private static byte[] render(List<String> lines) {
        StringBuilder sb = new StringBuilder();
        lines.forEach(l -> sb.append(l).append('\n'));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String describe(List<Limit> limits) {
        Map<String, String> byItem = new LinkedHashMap<>();
        limits.forEach(l -> byItem.merge(l.item(), l.type() + " " + l.value(), (a, b) -> a + ", " + b));
        List<String> parts = new ArrayList<>();
        byItem.forEach((item, v) -> parts.add(item + " (" + v + ")"));
        return limits.getFirst().domain() + " " + String.join(", ", parts);
    }
}
