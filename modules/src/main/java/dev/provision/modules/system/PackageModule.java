package dev.provision.modules.system;

import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Command;
import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code package}: operating-system packages, installed, removed or at the latest version, decided
 * from the package database (never by running an install to see what happens).
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code name} (aliases {@code pkg}, {@code names}), required: one or more package names.
 *   <li>{@code state}: {@code present} (default), {@code absent} or {@code latest}.
 *   <li>{@code update_cache}: unset (default) refreshes the apt package lists only when a package to
 *       install has no install candidate in them ({@code apt-cache policy}); {@code true} refreshes
 *       before every install or upgrade this task plans; {@code false} never.
 *   <li>{@code cache_valid_time} (seconds, apt only): package lists older than this are refreshed, as
 *       their own change, even when nothing is to be installed.
 * </ul>
 *
 * <p>Backends by {@code facts.pkg_mgr}:
 * <ul>
 *   <li>{@code apt}: installed versions from {@code dpkg-query -W}; install with
 *       {@code env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends NAMES},
 *       remove with {@code apt-get remove -y}; {@code latest} compares the installed version with
 *       the candidate of {@code apt-cache policy} (the lists as they are: combine with
 *       {@code cache_valid_time} to compare against fresh lists).
 *   <li>{@code dnf} and {@code yum}: installed versions from {@code rpm -q}; {@code dnf install -y},
 *       {@code dnf remove -y}; {@code latest} asks {@code dnf check-update NAMES} (exit 100 when
 *       updates exist) and plans {@code dnf upgrade -y}. {@code update_cache: true} adds
 *       {@code --refresh}; dnf refreshes expired metadata by itself otherwise.
 * </ul>
 * Other package managers fail the task with a message naming the fact.
 *
 * <p>The planning here is shared by {@code apt}, {@code dnf} and {@code yum} (Ansible's names and
 * parameters, see {@link AptModule} and {@link DnfModule}): one {@link Request} whichever name the
 * task used. On apt a name may pin a version ({@code numactl=2.0.16-1}).
 */
public final class PackageModule implements TaskModule {
    // No leading '-' (an option to apt-get or dnf), no blanks.
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_+.:~@-]*");
    // A Debian version: [epoch:]upstream[-revision]; no leading '-', no blanks, no glob.
    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.+~:-]*");
    /** The age of apt's lists in seconds: the newest of the success stamp and the lists directory. */
    static final String APT_CACHE_AGE = "now=$(date +%s); "
            + "t=$(stat -c %Y /var/lib/apt/periodic/update-success-stamp /var/lib/apt/lists 2>/dev/null | sort -n | tail -n 1); "
            + "echo $((now - ${t:-0}))";
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.LIST, "pkg", "names")
            .choice("state", "present", "present", "absent", "latest")
            .optional("update_cache", Type.BOOL)
            .optional("cache_valid_time", Type.INT)
            .build();

    public PackageModule() {
    }

    @Override
    public String name() {
        return "package";
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
        List<Pkg> packages = packages(params.list("name"));
        if (packages.isEmpty()) {
            throw new ModuleException("name lists no package");
        }
        HostView host = context.host();
        Request request = new Request(packages, params.string("state"), optBool(params, "update_cache"),
                params.optInteger("cache_valid_time"), AptOptions.PACKAGE, DnfOptions.NONE);
        String manager = manager(host);
        return switch (manager) {
            case "apt" -> planApt(host, request);
            case "dnf", "yum" -> planDnf(host, manager, request);
            default -> throw new ModuleException("package supports apt and dnf/yum; this host's package manager (facts.pkg_mgr) is " + manager);
        };
    }

    /** {@code facts.pkg_mgr}, or {@code unknown}. */
    static String manager(HostView host) {
        return String.valueOf(host.facts().getOrDefault("pkg_mgr", "unknown"));
    }

    static Optional<Boolean> optBool(Params params, String name) {
        return params.has(name) ? Optional.of(params.bool(name)) : Optional.empty();
    }

    /**
     * What a package task asks for, whichever module name it was written with.
     *
     * @param state {@code present}, {@code absent} or {@code latest}
     * @param updateCache empty: refresh apt's lists only when a package to install has no candidate
     */
    record Request(List<Pkg> packages, String state, Optional<Boolean> updateCache, Optional<Long> cacheValidTime,
                   AptOptions apt, DnfOptions dnf) {
        Request {
            packages = List.copyOf(packages);
        }

        List<String> names() {
            return packages.stream().map(Pkg::name).toList();
        }
    }

    /** A package name and, on apt, the version it is pinned to ({@code name=version}). */
    record Pkg(String name, Optional<String> version) {
        /** The argument apt-get or dnf takes for it. */
        String argument() {
            return version.map(v -> name + "=" + v).orElse(name);
        }
    }

    /**
     * apt's own options.
     *
     * @param installRecommends empty: apt's configured default; {@code package} never installs them
     * @param purge remove configuration files too (also of packages removed earlier)
     * @param defaultRelease {@code apt-get -t}: the release whose versions win
     * @param lockTimeout seconds apt-get waits for the dpkg lock
     */
    record AptOptions(Optional<Boolean> installRecommends, boolean purge, Optional<String> defaultRelease,
                      boolean allowDowngrade, Optional<Long> lockTimeout) {
        static final AptOptions PACKAGE = new AptOptions(Optional.of(false), false, Optional.empty(), false, Optional.empty());
    }

    /** dnf's and yum's own options: repositories turned off, then on, and the GPG check. */
    record DnfOptions(List<String> disableRepos, List<String> enableRepos, boolean noGpgCheck) {
        static final DnfOptions NONE = new DnfOptions(List.of(), List.of(), false);

        DnfOptions {
            disableRepos = List.copyOf(disableRepos);
            enableRepos = List.copyOf(enableRepos);
        }

        /** Disabled first, so that {@code disablerepo: '*'} with {@code enablerepo: site} leaves only site. */
        List<String> flags() {
            List<String> flags = new ArrayList<>();
            disableRepos.forEach(r -> flags.add("--disablerepo=" + r));
            enableRepos.forEach(r -> flags.add("--enablerepo=" + r));
            if (noGpgCheck) {
                flags.add("--nogpgcheck");
            }
            return flags;
        }
    }

    /** Names as given, checked, without repeats; {@code name=version} pins a version. */
    static List<Pkg> packages(List<Object> raw) throws ModuleException {
        List<Pkg> packages = new ArrayList<>();
        for (Object o : raw) {
            String given = String.valueOf(o).strip();
            int eq = given.indexOf('=');
            String name = eq < 0 ? given : given.substring(0, eq);
            Optional<String> version = eq < 0 ? Optional.empty() : Optional.of(given.substring(eq + 1));
            if (!NAME.matcher(name).matches()) {
                throw new ModuleException("'" + given + "' is not a package name");
            }
            if (version.isPresent() && !VERSION.matcher(version.get()).matches()) {
                throw new ModuleException("'" + given + "' does not pin a version: write name=VERSION with an exact version"
                        + (version.get().contains("*") ? " (no wildcards; apt-cache policy " + name + " lists the versions)" : ""));
            }
            if (packages.stream().anyMatch(p -> p.name().equals(name))) {
                if (packages.stream().noneMatch(p -> p.name().equals(name) && p.version().equals(version))) {
                    throw new ModuleException(name + " is named twice with different versions");
                }
                continue;
            }
            packages.add(new Pkg(name, version));
        }
        return packages;
    }

    /** Plans a request on an apt host. */
    static Plan planApt(HostView host, Request request) throws ModuleException {
        return new Apt(host, request).plan();
    }

    /** Plans a request with {@code binary} ({@code dnf} or {@code yum}). */
    static Plan planDnf(HostView host, String binary, Request request) throws ModuleException {
        Optional<Pkg> pinned = request.packages().stream().filter(p -> p.version().isPresent()).findFirst();
        if (pinned.isPresent()) {
            throw new ModuleException("'" + pinned.get().argument() + "': name=version pins are apt's spelling; " + binary
                    + " takes the version in the name (" + pinned.get().name() + "-" + pinned.get().version().get() + ")");
        }
        return new Dnf(host, binary, request).plan(request.names(), request.state());
    }

    /** {@code numactl 2.0.16-1, htop 3.2.2-2}. */
    private static String versions(Map<String, String> installed) {
        List<String> parts = new ArrayList<>();
        installed.forEach((n, v) -> parts.add(n + " " + v));
        return String.join(", ", parts);
    }

    private static String isOrAre(int count) {
        return count == 1 ? " is " : " are ";
    }

    private static Diff diff(List<String> names, Map<String, String> before, Map<String, String> after) {
        StringBuilder b = new StringBuilder();
        StringBuilder a = new StringBuilder();
        for (String n : names) {
            b.append(n).append(": ").append(before.getOrDefault(n, "not installed")).append('\n');
            a.append(n).append(": ").append(after.getOrDefault(n, "not installed")).append('\n');
        }
        return new Diff("packages", b.toString(), a.toString());
    }

    private static Command.Exec exec(List<String> prefix, List<String> names) {
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(names);
        return new Command.Exec(argv, new byte[0]);
    }

    /** Debian and Ubuntu. */
    private record Apt(HostView host, Request request) {
        private static final List<String> DPKG_QUERY = List.of("dpkg-query", "-W", "-f=${Package} ${Status} ${Version}\\n");

        Plan plan() throws ModuleException {
            List<Pkg> packages = request.packages();
            String state = request.state();
            Optional<Long> cacheValidTime = request.cacheValidTime();
            Optional<Boolean> updateCache = request.updateCache();
            if (state.equals("latest")) {
                Optional<Pkg> pinned = packages.stream().filter(p -> p.version().isPresent()).findFirst();
                if (pinned.isPresent()) {
                    throw new ModuleException("'" + pinned.get().argument() + "' pins a version, and state latest asks for the newest;"
                            + " use state present to hold that version, or drop the pin");
                }
            }
            List<String> names = request.names();
            List<Change> changes = new ArrayList<>();
            boolean staleLists = cacheValidTime.isPresent() && updateCache.orElse(true) && listsAge() > cacheValidTime.get();
            if (staleLists) {
                changes.add(refresh("package lists are older than " + cacheValidTime.get() + " s"));
            }
            if (packages.isEmpty()) {
                // Ansible's apt with only update_cache/cache_valid_time: a refresh of the lists.
                if (cacheValidTime.isPresent()) {
                    return Plan.of(changes, "the package lists are younger than " + cacheValidTime.get() + " s");
                }
                if (!updateCache.orElse(false)) {
                    throw new ModuleException("name lists no package; give name, or update_cache (with cache_valid_time) to refresh the package lists only");
                }
                return Plan.of(refresh("update_cache is set"));
            }
            Dpkg db = dpkg(names);
            Map<String, String> installed = db.installed();
            if (!staleLists && host.changesPending("/etc/apt") && !state.equals("absent")
                    && packages.stream().anyMatch(p -> !satisfied(p, installed) || state.equals("latest"))) {
                // A dry run, and an earlier task changes apt's sources: the lists apt has now are not
                // the ones the run will install from; the run finds no candidate and refreshes.
                changes.add(refresh("the apt sources change earlier in this run"));
                staleLists = true;
            }
            switch (state) {
                case "absent" -> {
                    AptOptions apt = request.apt();
                    List<String> doomed = packages.stream()
                            .filter(p -> installed.containsKey(p.name()) && p.version().map(v -> v.equals(installed.get(p.name()))).orElse(true)
                                    || apt.purge() && db.configOnly().contains(p.name()))
                            .map(Pkg::name).toList();
                    if (doomed.isEmpty()) {
                        return Plan.of(changes, notInstalled(packages, installed));
                    }
                    Map<String, String> before = new LinkedHashMap<>(installed);
                    doomed.stream().filter(n -> !before.containsKey(n)).forEach(n -> before.put(n, "configuration files only"));
                    String verb = apt.purge() ? "purge " : "remove ";
                    List<String> remove = concat(aptGet(), "remove", "-y");
                    if (apt.purge()) {
                        remove.add("--purge");
                    }
                    changes.add(new Change(verb + String.join(", ", doomed), List.of(diff(doomed, before, Map.of())),
                            List.of(exec(remove, doomed))));
                    return Plan.of(changes, "");
                }
                case "present" -> {
                    List<Pkg> missing = packages.stream().filter(p -> !satisfied(p, installed)).toList();
                    if (missing.isEmpty()) {
                        return Plan.of(changes, versions(installed) + isOrAre(installed.size()) + "installed");
                    }
                    List<String> missingNames = missing.stream().map(Pkg::name).toList();
                    Map<String, Policy> policy = updateCache.isEmpty() && !staleLists ? policy(missingNames) : Map.of();
                    List<String> unknown = missing.stream().filter(p -> !known(p, policy)).map(Pkg::argument).toList();
                    boolean refresh = !staleLists && updateCache.orElseGet(() -> !unknown.isEmpty());
                    if (refresh) {
                        changes.add(refresh(updateCache.isPresent() ? "update_cache is set" : "no install candidate yet for " + String.join(", ", unknown)));
                    }
                    Map<String, String> after = new LinkedHashMap<>(installed);
                    missing.forEach(p -> after.put(p.name(), p.version().orElseGet(() -> candidate(policy, p.name()).orElse("installed"))));
                    boolean versionsKnown = missing.stream().allMatch(p -> p.version().isPresent() || candidate(policy, p.name()).isPresent());
                    return install("install ", missing, installed, after, changes, versionsKnown && !refresh, db);
                }
                case "latest" -> {
                    Map<String, Policy> policy = policy(names);
                    List<String> behind = new ArrayList<>();
                    List<String> unavailable = new ArrayList<>();
                    for (String n : names) {
                        Optional<String> candidate = candidate(policy, n);
                        if (candidate.isEmpty()) {
                            unavailable.add(n);
                        } else if (!candidate.get().equals(installed.get(n))) {
                            behind.add(n);
                        }
                    }
                    // Installed but without a candidate (a local build): nothing newer can come from the lists.
                    List<String> notYetKnown = unavailable.stream().filter(n -> !installed.containsKey(n)).toList();
                    List<String> toInstall = new ArrayList<>(behind);
                    toInstall.addAll(notYetKnown);
                    boolean refresh = !staleLists && !toInstall.isEmpty() && updateCache.orElse(!notYetKnown.isEmpty());
                    if (toInstall.isEmpty()) {
                        return Plan.of(changes, versions(installed) + (installed.size() == 1 ? " is the latest version" : " are the latest versions")
                                + " in the package lists");
                    }
                    if (refresh) {
                        changes.add(refresh(updateCache.isPresent() ? "update_cache is set" : "no install candidate yet for " + String.join(", ", notYetKnown)));
                    }
                    Map<String, String> after = new LinkedHashMap<>(installed);
                    toInstall.forEach(n -> after.put(n, candidate(policy, n).orElse("latest")));
                    List<Pkg> pkgs = toInstall.stream().map(n -> new Pkg(n, Optional.empty())).toList();
                    return install("install the latest ", pkgs, installed, after, changes, notYetKnown.isEmpty() && !refresh && !staleLists, db);
                }
                default -> throw new ModuleException("unsupported state " + state);
            }
        }

        /**
         * The install change; when every version it installs is known, the plan also says what
         * dpkg-query answers for this task's names afterwards, so a later task of a dry run sees them.
         */
        private Plan install(String verb, List<Pkg> pkgs, Map<String, String> installed, Map<String, String> after,
                             List<Change> changes, boolean versionsKnown, Dpkg db) {
            List<String> names = pkgs.stream().map(Pkg::name).toList();
            List<String> argv = concat(aptGet(), "install", "-y");
            AptOptions apt = request.apt();
            apt.installRecommends().ifPresent(yes -> argv.addAll(yes ? List.of("-o", "APT::Install-Recommends=true") : List.of("--no-install-recommends")));
            apt.defaultRelease().ifPresent(release -> argv.addAll(List.of("-t", release)));
            if (apt.allowDowngrade()) {
                argv.add("--allow-downgrades");
            }
            changes.add(new Change(verb + String.join(", ", pkgs.stream().map(Pkg::argument).toList()),
                    List.of(diff(names, installed, after)), List.of(exec(argv, pkgs.stream().map(Pkg::argument).toList()))));
            Plan plan = Plan.of(changes, "");
            return versionsKnown ? plan.withProbeAfterwards(dpkgProbe(request.names()), dpkgAnswer(request.names(), after, db.configOnly()))
                    : plan;
        }

        /** {@code env DEBIAN_FRONTEND=noninteractive apt-get}, with the dpkg lock timeout when one is given. */
        private List<String> aptGet() {
            List<String> argv = new ArrayList<>(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"));
            request.apt().lockTimeout().ifPresent(t -> argv.addAll(List.of("-o", "DPkg::Lock::Timeout=" + t)));
            return argv;
        }

        private Change refresh(String why) {
            List<String> argv = aptGet();
            argv.add("update");
            return Change.of("refresh apt package lists (" + why + ")", new Command.Exec(argv, new byte[0]));
        }

        private static boolean satisfied(Pkg p, Map<String, String> installed) {
            return installed.containsKey(p.name()) && p.version().map(v -> v.equals(installed.get(p.name()))).orElse(true);
        }

        /** Whether the lists can install it: a candidate, or the pinned version in the version table. */
        private static boolean known(Pkg p, Map<String, Policy> policy) {
            Policy entry = policy.get(p.name());
            return entry != null && p.version().map(entry.versions()::contains).orElse(entry.candidate().isPresent());
        }

        private static Optional<String> candidate(Map<String, Policy> policy, String name) {
            return Optional.ofNullable(policy.get(name)).flatMap(Policy::candidate);
        }

        private static String notInstalled(List<Pkg> packages, Map<String, String> installed) {
            List<String> parts = new ArrayList<>();
            for (Pkg p : packages) {
                String has = installed.get(p.name());
                parts.add(has == null ? p.name() + " is not installed" : p.name() + " " + has + " is installed, not " + p.version().orElseThrow());
            }
            if (parts.stream().allMatch(x -> x.endsWith(" is not installed"))) {
                return String.join(", ", packages.stream().map(Pkg::name).toList())
                        + (packages.size() == 1 ? " is not installed" : " are not installed");
            }
            return String.join("; ", parts);
        }

        /** What dpkg knows of the names: installed versions, and those removed with their configuration left. */
        private record Dpkg(Map<String, String> installed, List<String> configOnly) {
        }

        private static List<String> dpkgProbe(List<String> names) {
            List<String> argv = new ArrayList<>(DPKG_QUERY);
            argv.addAll(names);
            return argv;
        }

        /** dpkg-query's answer for {@code names} when {@code installed} are installed (for the forecast). */
        private static ProbeResult dpkgAnswer(List<String> names, Map<String, String> installed, List<String> configOnly) {
            StringBuilder out = new StringBuilder();
            StringBuilder err = new StringBuilder();
            for (String n : names) {
                if (installed.containsKey(n)) {
                    out.append(n).append(" install ok installed ").append(installed.get(n)).append('\n');
                } else if (configOnly.contains(n)) {
                    out.append(n).append(" deinstall ok config-files\n");
                } else {
                    err.append("dpkg-query: no packages found matching ").append(n).append('\n');
                }
            }
            return new ProbeResult(err.isEmpty() ? 0 : 1, out.toString(), err.toString());
        }

        /** Installed versions from dpkg's database; packages unknown to it or only configured are not installed. */
        private Dpkg dpkg(List<String> names) throws ModuleException {
            ProbeResult probe = host.probe(dpkgProbe(names).toArray(String[]::new));
            // Exit 1 with "no packages found matching" is dpkg-query's answer for unknown names.
            if (!probe.ok() && !probe.stderr().contains("no packages found")) {
                throw new ModuleException("dpkg-query failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            Map<String, String> installed = new LinkedHashMap<>();
            List<String> configOnly = new ArrayList<>();
            for (String line : probe.stdout().lines().toList()) {
                String[] f = line.strip().split("\\s+");
                // ${Package} ${Status} ${Version}: "numactl install ok installed 2.0.16-1"
                for (String n : names) {
                    if (f.length >= 4 && (n.equals(f[0]) || n.startsWith(f[0] + ":"))) {
                        if (f.length == 5 && f[3].equals("installed")) {
                            installed.put(n, f[4]);
                        } else if (f[3].equals("config-files")) {
                            configOnly.add(n);
                        }
                    }
                }
            }
            Map<String, String> ordered = new LinkedHashMap<>();
            names.stream().filter(installed::containsKey).forEach(n -> ordered.put(n, installed.get(n)));
            return new Dpkg(ordered, configOnly);
        }

        /** Install candidates and version tables from {@code apt-cache policy} (with the default release, if any). */
        private Map<String, Policy> policy(List<String> names) throws ModuleException {
            List<String> argv = new ArrayList<>(List.of("apt-cache"));
            request.apt().defaultRelease().ifPresent(release -> argv.addAll(List.of("-o", "APT::Default-Release=" + release)));
            argv.add("policy");
            argv.addAll(names);
            ProbeResult probe = host.probe(argv.toArray(String[]::new));
            if (!probe.ok()) {
                throw new ModuleException("apt-cache policy failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            return parsePolicyTable(probe.stdout());
        }

        private long listsAge() throws ModuleException {
            ProbeResult probe = host.probe("sh", "-c", APT_CACHE_AGE);
            try {
                return Long.parseLong(probe.stdout().strip());
            } catch (NumberFormatException e) {
                throw new ModuleException("cannot read the age of apt's package lists: " + probe.stderr().strip(), e);
            }
        }
    }

    /** One package in {@code apt-cache policy}: its candidate and every version its table lists. */
    record Policy(Optional<String> candidate, List<String> versions) {
        Policy {
            versions = List.copyOf(versions);
        }
    }

    /** Package name to candidate version from {@code apt-cache policy} output. */
    static Map<String, String> parsePolicy(String output) {
        Map<String, String> candidates = new LinkedHashMap<>();
        parsePolicyTable(output).forEach((n, p) -> p.candidate().ifPresent(c -> candidates.put(n, c)));
        return candidates;
    }

    // A version line of the table: " *** 2.0.16-1 500" or "     2.0.14-3 100"; source lines are indented further.
    private static final Pattern TABLE_VERSION = Pattern.compile("(?: \\*\\*\\* | {5})(\\S+) -?\\d+");

    /** Package name to its candidate and version table from {@code apt-cache policy} output. */
    static Map<String, Policy> parsePolicyTable(String output) {
        Map<String, Policy> table = new LinkedHashMap<>();
        String current = null;
        Optional<String> candidate = Optional.empty();
        List<String> versions = new ArrayList<>();
        for (String line : output.lines().toList()) {
            if (!line.startsWith(" ") && line.endsWith(":")) {
                if (current != null) {
                    table.put(current, new Policy(candidate, versions));
                }
                current = line.substring(0, line.length() - 1);
                candidate = Optional.empty();
                versions = new ArrayList<>();
            } else if (current != null && line.strip().startsWith("Candidate:")) {
                String c = line.strip().substring("Candidate:".length()).strip();
                candidate = c.equals("(none)") ? Optional.empty() : Optional.of(c);
            } else if (current != null) {
                java.util.regex.Matcher m = TABLE_VERSION.matcher(line);
                if (m.matches()) {
                    versions.add(m.group(1));
                }
            }
        }
        if (current != null) {
            table.put(current, new Policy(candidate, versions));
        }
        return table;
    }

    private static List<String> concat(List<String> prefix, String... more) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(more));
        return all;
    }

    /** Fedora, RHEL and their rebuilds. */
    private record Dnf(HostView host, String binary, Request request) {
        /** {@code dnf [--refresh] FLAGS}: yum has no --refresh (its install change expires the cache first). */
        private List<String> base() {
            List<String> base = new ArrayList<>(List.of(binary));
            if (refresh() && binary.equals("dnf")) {
                base.add("--refresh");
            }
            base.addAll(request.dnf().flags());
            return base;
        }

        private boolean refresh() {
            return request.updateCache().orElse(false);
        }

        /** yum 3 refreshes expired metadata by itself; update_cache expires it first. */
        private List<Command> withRefresh(Command command) {
            if (refresh() && binary.equals("yum")) {
                return List.of(exec(concat(base(), "clean", "expire-cache"), List.of()), command);
            }
            return List.of(command);
        }

        Plan plan(List<String> names, String state) throws ModuleException {
            Map<String, String> installed = installed(names);
            List<String> base = base();
            switch (state) {
                case "absent" -> {
                    List<String> doomed = names.stream().filter(installed::containsKey).toList();
                    if (doomed.isEmpty()) {
                        return Plan.converged(String.join(", ", names) + (names.size() == 1 ? " is not installed" : " are not installed"));
                    }
                    List<String> remove = new ArrayList<>(List.of(binary));
                    remove.addAll(request.dnf().flags());
                    return Plan.of(new Change("remove " + String.join(", ", doomed), List.of(diff(doomed, installed, Map.of())),
                            List.of(exec(concat(remove, "remove", "-y"), doomed))));
                }
                case "present" -> {
                    List<String> missing = names.stream().filter(n -> !installed.containsKey(n)).toList();
                    if (missing.isEmpty()) {
                        return Plan.converged(versions(installed) + isOrAre(installed.size()) + "installed");
                    }
                    return Plan.of(install(missing, installed));
                }
                case "latest" -> {
                    List<String> missing = names.stream().filter(n -> !installed.containsKey(n)).toList();
                    List<String> present = names.stream().filter(installed::containsKey).toList();
                    List<String> behind = present.isEmpty() ? List.of() : updatable(present);
                    List<Change> changes = new ArrayList<>();
                    if (!missing.isEmpty()) {
                        changes.add(install(missing, installed));
                    }
                    if (!behind.isEmpty()) {
                        Map<String, String> after = new LinkedHashMap<>(installed);
                        behind.forEach(n -> after.put(n, "latest"));
                        changes.add(new Change("upgrade " + String.join(", ", behind), List.of(diff(behind, installed, after)),
                                withRefresh(exec(concat(base, "upgrade", "-y"), behind))));
                    }
                    return Plan.of(changes, versions(installed) + (installed.size() == 1 ? " is the latest version" : " are the latest versions"));
                }
                default -> throw new ModuleException("unsupported state " + state);
            }
        }

        private Change install(List<String> missing, Map<String, String> installed) {
            Map<String, String> after = new LinkedHashMap<>(installed);
            missing.forEach(n -> after.put(n, "installed"));
            return new Change("install " + String.join(", ", missing), List.of(diff(missing, installed, after)),
                    withRefresh(exec(concat(base(), "install", "-y"), missing)));
        }

        private Map<String, String> installed(List<String> names) throws ModuleException {
            List<String> argv = new ArrayList<>(List.of("rpm", "-q", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\\n"));
            argv.addAll(names);
            // rpm exits with the number of packages not installed, and says so on stdout.
            ProbeResult probe = host.probe(argv.toArray(String[]::new));
            Map<String, String> found = new LinkedHashMap<>();
            for (String line : probe.stdout().lines().toList()) {
                String[] f = line.strip().split("\\s+");
                if (f.length == 2 && !line.startsWith("package ")) {
                    found.put(f[0], f[1]);
                }
            }
            if (!probe.ok() && found.size() + notInstalledCount(probe.stdout()) < names.size()) {
                throw new ModuleException("rpm -q failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            Map<String, String> installed = new LinkedHashMap<>();
            for (String n : names) {
                String key = found.containsKey(n) ? n : found.keySet().stream().filter(k -> n.startsWith(k + ".")).findFirst().orElse(null);
                if (key != null) {
                    installed.put(n, found.get(key));
                }
            }
            return installed;
        }

        private static long notInstalledCount(String stdout) {
            return stdout.lines().filter(l -> l.startsWith("package ") && l.endsWith(" is not installed")).count();
        }

        /** Names with an update in the repositories: {@code dnf check-update} lists them and exits 100. */
        private List<String> updatable(List<String> names) throws ModuleException {
            List<String> argv = new ArrayList<>(List.of(binary, "-q"));
            argv.addAll(request.dnf().flags());
            argv.add("check-update");
            argv.addAll(names);
            ProbeResult probe = host.probe(argv.toArray(String[]::new));
            if (probe.exitCode() == 0) {
                return List.of();
            }
            if (probe.exitCode() != 100) {
                throw new ModuleException(binary + " check-update failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            List<String> behind = new ArrayList<>();
            for (String line : probe.stdout().lines().toList()) {
                String[] f = line.strip().split("\\s+");
                if (f.length >= 3) {
                    String nameArch = f[0];
                    for (String n : names) {
                        if ((nameArch.equals(n) || nameArch.startsWith(n + ".")) && !behind.contains(n)) {
                            behind.add(n);
                        }
                    }
                }
            }
            return behind;
        }
    }
}
