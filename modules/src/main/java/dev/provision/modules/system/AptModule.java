package dev.provision.modules.system;

import dev.provision.modules.spi.HostView;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.Optional;

/**
 * {@code apt} (Ansible's {@code ansible.builtin.apt}): Debian and Ubuntu packages with Ansible's
 * parameter names, planned by {@link PackageModule} (the same probes, commands and forecast).
 *
 * <p>Parameters:
 * <ul>
 *   <li>{@code name} (aliases {@code package}, {@code pkg}): names; {@code name=VERSION} pins an exact
 *       version (present: installed at that version; absent: removed only at that version). Optional
 *       when {@code update_cache} or {@code cache_valid_time} is given: then the task refreshes the
 *       package lists only.
 *   <li>{@code state}: {@code present} (default), {@code absent}, {@code latest}; {@code build-dep}
 *       and {@code fixed} are refused with the reason.
 *   <li>{@code update_cache}, {@code cache_valid_time}: as {@code package} (lists older than
 *       {@code cache_valid_time} seconds are refreshed, as their own change).
 *   <li>{@code install_recommends}: unset leaves apt's configuration to decide (Ansible's default);
 *       false is {@code --no-install-recommends}, true {@code -o APT::Install-Recommends=true}.
 *   <li>{@code purge}: with {@code absent}, remove configuration files too ({@code --purge}), also of
 *       packages removed earlier whose configuration is left.
 *   <li>{@code default_release}: {@code apt-get -t RELEASE}; candidates are read with the same
 *       release ({@code apt-cache -o APT::Default-Release=RELEASE policy}).
 *   <li>{@code allow_downgrade}: {@code --allow-downgrades}, so a pin below the installed version holds.
 *   <li>{@code lock_timeout}: seconds apt-get waits for the dpkg lock ({@code -o DPkg::Lock::Timeout}).
 *   <li>{@code force_apt_get}: accepted; provision always runs apt-get.
 * </ul>
 * Parameters of Ansible's apt that provision does not plan ({@code deb}, {@code autoremove},
 * {@code upgrade}, ...) are refused before any host is contacted, each with what to do instead. On a
 * host whose {@code facts.pkg_mgr} is not apt the task fails and names the module to use.
 */
public final class AptModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .optional("name", Type.LIST, "package", "pkg")
            .choice("state", "present", "present", "absent", "latest", "build-dep", "fixed")
            .optional("update_cache", Type.BOOL, "update-cache")
            .optional("cache_valid_time", Type.INT)
            .optional("install_recommends", Type.BOOL, "install-recommends")
            .withDefault("purge", Type.BOOL, false)
            .optional("default_release", Type.STRING, "default-release")
            .withDefault("allow_downgrade", Type.BOOL, false, "allow-downgrade", "allow_downgrades", "allow-downgrades")
            .optional("lock_timeout", Type.INT)
            .optional("force_apt_get", Type.BOOL)
            .refused("deb", "provision installs from the package lists only; serve the .deb from an apt repository"
                    + " (the test cluster's services do), or copy it and run 'command: dpkg -i FILE' with 'creates:'")
            .refused("autoremove", "which dependencies become unused is decided while apt-get runs, so a plan cannot say"
                    + " what it removes; name the packages under state: absent, or run 'command: apt-get autoremove -y'")
            .refused("autoclean", "it changes only apt's download cache; run 'command: apt-get autoclean'")
            .refused("clean", "it changes only apt's download cache; run 'command: apt-get clean'")
            .refused("upgrade", "upgrading every package is not planned package by package; list the packages with"
                    + " state: latest, or run 'command: apt-get upgrade -y'")
            .refused("only_upgrade", "use state: latest on names that are installed")
            .refused("dpkg_options", "provision runs apt-get noninteractive with dpkg's defaults; set them in"
                    + " /etc/apt/apt.conf.d/ with a copy task")
            .refused("allow_unauthenticated", "install only signed packages: add the repository's key (signed-by) instead",
                    "allow-unauthenticated")
            .refused("allow_change_held_packages", "unhold the package first ('command: apt-mark unhold NAME')")
            .refused("force", "it disables apt's safety checks; fix the conflict it reports instead")
            .refused("policy_rc_d", "write /usr/sbin/policy-rc.d with a copy task before the install, and remove it after")
            .refused("fail_on_autoremove", "provision never autoremoves, so there is nothing to fail on")
            .build();

    public AptModule() {
    }

    @Override
    public String name() {
        return "apt";
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
        String state = params.string("state");
        if (state.equals("build-dep") || state.equals("fixed")) {
            throw new ModuleException("state " + state + " is not supported: it installs what apt-get resolves while it runs,"
                    + " which a plan cannot show; run 'command: apt-get " + (state.equals("fixed") ? "install -f -y" : "build-dep -y NAME") + "'");
        }
        HostView host = context.host();
        String manager = PackageModule.manager(host);
        if (!manager.equals("apt")) {
            throw new ModuleException("apt manages Debian and Ubuntu packages; this host's package manager (facts.pkg_mgr) is "
                    + manager + (manager.equals("dnf") || manager.equals("yum") ? ": use " + manager + " or package" : ""));
        }
        Optional<Boolean> updateCache = PackageModule.optBool(params, "update_cache");
        Optional<Long> cacheValidTime = params.optInteger("cache_valid_time");
        PackageModule.AptOptions apt = new PackageModule.AptOptions(PackageModule.optBool(params, "install_recommends"),
                params.bool("purge"), params.optString("default_release").filter(r -> !r.isBlank()),
                params.bool("allow_downgrade"), params.optInteger("lock_timeout"));
        if (apt.defaultRelease().isPresent() && !apt.defaultRelease().get().matches("[A-Za-z0-9][A-Za-z0-9._/+~-]*")) {
            throw new ModuleException("default_release '" + apt.defaultRelease().get() + "' is not a release name");
        }
        PackageModule.Request request = new PackageModule.Request(PackageModule.packages(params.list("name")), state, updateCache,
                cacheValidTime, apt, PackageModule.DnfOptions.NONE);
        return PackageModule.planApt(host, request);
    }
}
