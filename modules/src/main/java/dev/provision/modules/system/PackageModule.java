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
 */
public final class PackageModule implements TaskModule {
    // No leading '-' (an option to apt-get or dnf), no blanks.
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_+.:~@-]*");
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
        List<String> names = new ArrayList<>();
        for (Object o : params.list("name")) {
            String name = String.valueOf(o).strip();
            if (!NAME.matcher(name).matches()) {
                throw new ModuleException("'" + name + "' is not a package name");
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            throw new ModuleException("name lists no package");
        }
        HostView host = context.host();
        String manager = String.valueOf(host.facts().getOrDefault("pkg_mgr", "unknown"));
        Optional<Boolean> updateCache = params.has("update_cache") ? Optional.of(params.bool("update_cache")) : Optional.empty();
        String state = params.string("state");
        return switch (manager) {
            case "apt" -> new Apt(host, updateCache, params.optInteger("cache_valid_time")).plan(names, state);
            case "dnf", "yum" -> new Dnf(host, manager, updateCache.orElse(false)).plan(names, state);
            default -> throw new ModuleException("package supports apt and dnf/yum; this host's package manager (facts.pkg_mgr) is " + manager);
        };
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
    private record Apt(HostView host, Optional<Boolean> updateCache, Optional<Long> cacheValidTime) {
        private static final List<String> APT_GET = List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get");

        Plan plan(List<String> names, String state) throws ModuleException {
            Map<String, String> installed = installed(names);
            List<Change> changes = new ArrayList<>();
            boolean staleLists = cacheValidTime.isPresent() && updateCache.orElse(true) && listsAge() > cacheValidTime.get();
            if (staleLists) {
                changes.add(refresh("package lists are older than " + cacheValidTime.get() + " s"));
            } else if (host.changesPending("/etc/apt") && !state.equals("absent")
                    && names.stream().anyMatch(n -> !installed.containsKey(n) || state.equals("latest"))) {
                // A dry run, and an earlier task changes apt's sources: the lists apt has now are not
                // the ones the run will install from; the run finds no candidate and refreshes.
                changes.add(refresh("the apt sources change earlier in this run"));
                staleLists = true;
            }
            switch (state) {
                case "absent" -> {
                    List<String> doomed = names.stream().filter(installed::containsKey).toList();
                    if (doomed.isEmpty()) {
                        return Plan.of(changes, String.join(", ", names) + (names.size() == 1 ? " is not installed" : " are not installed"));
                    }
                    Map<String, String> after = new LinkedHashMap<>();
                    changes.add(new Change("remove " + String.join(", ", doomed), List.of(diff(doomed, installed, after)),
                            List.of(exec(concat(APT_GET, "remove", "-y"), doomed))));
                    return Plan.of(changes, "");
                }
                case "present" -> {
                    List<String> missing = names.stream().filter(n -> !installed.containsKey(n)).toList();
                    if (missing.isEmpty()) {
                        return Plan.of(changes, versions(installed) + isOrAre(installed.size()) + "installed");
                    }
                    Map<String, String> candidates = updateCache.isEmpty() && !staleLists ? candidates(missing) : Map.of();
                    boolean refresh = !staleLists && updateCache.orElseGet(() -> missing.stream().anyMatch(n -> !candidates.containsKey(n)));
                    if (refresh) {
                        changes.add(refresh(updateCache.isPresent() ? "update_cache is set"
                                : "no install candidate yet for " + String.join(", ", missing.stream().filter(n -> !candidates.containsKey(n)).toList())));
                    }
                    Map<String, String> after = new LinkedHashMap<>(installed);
                    missing.forEach(n -> after.put(n, candidates.getOrDefault(n, "installed")));
                    changes.add(new Change("install " + String.join(", ", missing), List.of(diff(missing, installed, after)),
                            List.of(exec(concat(APT_GET, "install", "-y", "--no-install-recommends"), missing))));
                    return Plan.of(changes, "");
                }
                case "latest" -> {
                    Map<String, String> candidates = candidates(names);
                    List<String> behind = new ArrayList<>();
                    List<String> unavailable = new ArrayList<>();
                    for (String n : names) {
                        String candidate = candidates.get(n);
                        if (candidate == null) {
                            unavailable.add(n);
                        } else if (!candidate.equals(installed.get(n))) {
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
                    toInstall.forEach(n -> after.put(n, candidates.getOrDefault(n, "latest")));
                    changes.add(new Change("install the latest " + String.join(", ", toInstall), List.of(diff(toInstall, installed, after)),
                            List.of(exec(concat(APT_GET, "install", "-y", "--no-install-recommends"), toInstall))));
                    return Plan.of(changes, "");
                }
                default -> throw new ModuleException("unsupported state " + state);
            }
        }

        private Change refresh(String why) {
            return Change.of("refresh apt package lists (" + why + ")", Command.Exec.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "update"));
        }

        /** Installed versions from dpkg's database; packages unknown to it or only configured are not installed. */
        private Map<String, String> installed(List<String> names) throws ModuleException {
            List<String> argv = new ArrayList<>(List.of("dpkg-query", "-W", "-f=${Package} ${Status} ${Version}\\n"));
            argv.addAll(names);
            ProbeResult probe = host.probe(argv.toArray(String[]::new));
            // Exit 1 with "no packages found matching" is dpkg-query's answer for unknown names.
            if (!probe.ok() && !probe.stderr().contains("no packages found")) {
                throw new ModuleException("dpkg-query failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            Map<String, String> installed = new LinkedHashMap<>();
            for (String line : probe.stdout().lines().toList()) {
                String[] f = line.strip().split("\\s+");
                // ${Package} ${Status} ${Version}: "numactl install ok installed 2.0.16-1"
                if (f.length == 5 && f[3].equals("installed")) {
                    for (String n : names) {
                        if (n.equals(f[0]) || n.startsWith(f[0] + ":")) {
                            installed.put(n, f[4]);
                        }
                    }
                }
            }
            Map<String, String> ordered = new LinkedHashMap<>();
            names.stream().filter(installed::containsKey).forEach(n -> ordered.put(n, installed.get(n)));
            return ordered;
        }

        /** Install candidates from {@code apt-cache policy}; names without one are left out. */
        private Map<String, String> candidates(List<String> names) throws ModuleException {
            List<String> argv = new ArrayList<>(List.of("apt-cache", "policy"));
            argv.addAll(names);
            ProbeResult probe = host.probe(argv.toArray(String[]::new));
            if (!probe.ok()) {
                throw new ModuleException("apt-cache policy failed (exit " + probe.exitCode() + "): " + probe.stderr().strip());
            }
            return parsePolicy(probe.stdout());
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

    /** Package name to candidate version from {@code apt-cache policy} output. */
    static Map<String, String> parsePolicy(String output) {
        Map<String, String> candidates = new LinkedHashMap<>();
        String current = null;
        for (String line : output.lines().toList()) {
            if (!line.startsWith(" ") && line.endsWith(":")) {
                current = line.substring(0, line.length() - 1);
            } else if (current != null && line.strip().startsWith("Candidate:")) {
                String candidate = line.strip().substring("Candidate:".length()).strip();
                if (!candidate.equals("(none)")) {
                    candidates.put(current, candidate);
                }
            }
        }
        return candidates;
    }

    private static List<String> concat(List<String> prefix, String... more) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(more));
        return all;
    }

    /** Fedora, RHEL and their rebuilds. */
    private record Dnf(HostView host, String binary, boolean refresh) {
        Plan plan(List<String> names, String state) throws ModuleException {
            Map<String, String> installed = installed(names);
            List<String> base = refresh ? List.of(binary, "--refresh") : List.of(binary);
            switch (state) {
                case "absent" -> {
                    List<String> doomed = names.stream().filter(installed::containsKey).toList();
                    if (doomed.isEmpty()) {
                        return Plan.converged(String.join(", ", names) + (names.size() == 1 ? " is not installed" : " are not installed"));
                    }
                    return Plan.of(new Change("remove " + String.join(", ", doomed), List.of(diff(doomed, installed, Map.of())),
                            List.of(exec(List.of(binary, "remove", "-y"), doomed))));
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
                                List.of(exec(concat(base, "upgrade", "-y"), behind))));
                    }
                    return Plan.of(changes, versions(installed) + (installed.size() == 1 ? " is the latest version" : " are the latest versions"));
                }
                default -> throw new ModuleException("unsupported state " + state);
            }
        }

        private Change install(List<String> missing, Map<String, String> installed) {
            Map<String, String> after = new LinkedHashMap<>(installed);
            missing.forEach(n -> after.put(n, "installed"));
            List<String> base = refresh ? List.of(binary, "--refresh") : List.of(binary);
            return new Change("install " + String.join(", ", missing), List.of(diff(missing, installed, after)),
                    List.of(exec(concat(base, "install", "-y"), missing)));
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
            List<String> argv = new ArrayList<>(List.of(binary, "-q", "check-update"));
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
