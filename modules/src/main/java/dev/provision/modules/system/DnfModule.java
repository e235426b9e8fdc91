package dev.provision.modules.system;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code dnf} (Ansible's {@code ansible.builtin.dnf}): RPM packages with Ansible's parameter
 * names, planned by {@link PackageModule}. {@link YumModule} is the same with {@code yum}.
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code name} (alias {@code pkg}), required: package names.
 *   <li>{@code state}: {@code present} (default) or {@code installed}, {@code absent} or
 *       {@code removed}, {@code latest}.
 *   <li>{@code enablerepo}, {@code disablerepo}: repository ids (globs as dnf takes them), passed to
 *       every command and probe of the task, disabled ones first.
 *   <li>{@code update_cache} (alias {@code expire-cache}): {@code --refresh} (yum: expire the cache
 *       first).
 *   <li>{@code disable_gpg_check}: {@code --nogpgcheck}.
 * </ul>
 * Ansible's other dnf parameters are refused before any host is contacted, each with what to do
 * instead. {@code dnf} on a host without dnf (facts.pkg_mgr is yum or apt) fails and names the
 * module to use; {@code yum} on a dnf host runs dnf, as yum is dnf there.
 */
public final class DnfModule implements TaskModule {
    private static final Pattern REPO = Pattern.compile("[A-Za-z0-9_*?\\[\\]][A-Za-z0-9_.:*?\\[\\]-]*");
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("name", Type.LIST, "pkg")
            .choice("state", "present", "present", "installed", "absent", "removed", "latest")
            .optional("enablerepo", Type.LIST)
            .optional("disablerepo", Type.LIST)
            .optional("update_cache", Type.BOOL, "expire-cache")
            .withDefault("disable_gpg_check", Type.BOOL, false)
            .refused("autoremove", "which dependencies become unused is decided while dnf runs, so a plan cannot say what"
                    + " it removes; name the packages under state: absent, or run 'command: dnf autoremove -y'")
            .refused("list", "it is a query; run 'command: dnf list ...' with register and changed_when: false")
            .refused("security", "list the packages with state: latest, or run 'command: dnf upgrade --security -y'")
            .refused("bugfix", "list the packages with state: latest, or run 'command: dnf upgrade --bugfix -y'")
            .refused("exclude", "exclude them in the repository's .repo file (exclude=) with a copy or lineinfile task")
            .refused("conf_file", "provision uses the host's dnf.conf; change it with a copy or lineinfile task")
            .refused("installroot", "provision manages the host's own root; run dnf --installroot with command")
            .refused("releasever", "set it in /etc/dnf/vars/releasever with a copy task")
            .refused("download_only", "run 'command: dnf download ...'")
            .refused("download_dir", "run 'command: dnf download --destdir ...'")
            .refused("allow_downgrade", "name the version in the package (name-VERSION) and run 'command: dnf downgrade -y ...'")
            .refused("allowerasing", "remove the conflicting packages with state: absent first")
            .refused("skip_broken", "a plan installs every package it names or fails; leave the broken one out")
            .refused("nobest", "set best=False in dnf.conf with a lineinfile task")
            .refused("update_only", "use state: latest on names that are installed")
            .refused("install_weak_deps", "set install_weak_deps=False in dnf.conf with a lineinfile task")
            .refused("disable_excludes", "run 'command: dnf --disableexcludes=...'")
            .refused("enable_plugin", "enable the plugin in its /etc/dnf/plugins/ file with a lineinfile task")
            .refused("disable_plugin", "disable the plugin in its /etc/dnf/plugins/ file with a lineinfile task")
            .refused("cacheonly", "run 'command: dnf --cacheonly ...'")
            .refused("lock_timeout", "dnf waits for its lock by itself")
            .refused("validate_certs", "certificates are always validated; add the site's CA to the host's trust store",
                    "sslverify")
            .refused("use_backend", "provision runs dnf where the host has it, else yum")
            .build();

    private final String binary;

    public DnfModule() {
        this("dnf");
    }

    DnfModule(String binary) {
        this.binary = binary;
    }

    @Override
    public String name() {
        return binary;
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
        List<PackageModule.Pkg> packages = PackageModule.packages(params.list("name"));
        if (packages.isEmpty()) {
            throw new ModuleException("name lists no package");
        }
        String state = switch (params.string("state")) {
            case "installed" -> "present";
            case "removed" -> "absent";
            default -> params.string("state");
        };
        HostView host = context.host();
        String manager = PackageModule.manager(host);
        String runs = switch (manager) {
            case "dnf" -> "dnf";
            case "yum" -> {
                if (binary.equals("dnf")) {
                    throw new ModuleException("this host has no dnf (facts.pkg_mgr is yum): use yum or package");
                }
                yield "yum";
            }
            default -> throw new ModuleException(binary + " manages RPM packages; this host's package manager (facts.pkg_mgr) is "
                    + manager + (manager.equals("apt") ? ": use apt or package" : ""));
        };
        PackageModule.DnfOptions options = new PackageModule.DnfOptions(repos(params, "disablerepo"), repos(params, "enablerepo"),
                params.bool("disable_gpg_check"));
        PackageModule.Request request = new PackageModule.Request(packages, state, PackageModule.optBool(params, "update_cache"),
                java.util.Optional.empty(), PackageModule.AptOptions.PACKAGE, options);
        return PackageModule.planDnf(host, runs, request);
    }

    /** Repository ids; Ansible takes a list or one comma-separated string. */
    private static List<String> repos(Params params, String name) throws ModuleException {
        List<String> repos = new ArrayList<>();
        for (Object o : params.list(name)) {
            for (String id : String.valueOf(o).split(",")) {
                String repo = id.strip();
                if (!REPO.matcher(repo).matches()) {
                    throw new ModuleException(name + ": '" + repo + "' is not a repository id");
                }
                repos.add(repo);
            }
        }
        return repos;
    }
}
