package dev.provision.modules.system;

import dev.provision.modules.files.FileContentPlanner;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code yum_repository} (Ansible's {@code ansible.builtin.yum_repository}): a {@code [name]} section
 * of {@code REPOSDIR/FILE.repo} with exactly the options given ({@code state: present}), or no such
 * section ({@code absent}). The file is read and written as Ansible's configparser does
 * ({@link RepoIni}): the section holds the options in alphabetical order, {@code description} as
 * {@code name}, booleans as {@code 1}/{@code 0}, {@code baseurl} and {@code gpgkey} one URL a line,
 * {@code exclude} and {@code includepkgs} joined with blanks. A section whose options already say
 * the same (in any order or spelling) is left alone; a file that changes is written back whole as
 * Ansible writes it (comments dropped, the section moved to the end), and removed when its last
 * section goes. {@code mode}, {@code owner}, {@code group} apply to the file.
 */
public final class YumRepositoryModule implements TaskModule {
    static final String REPOSDIR = "/etc/yum.repos.d";
    private static final List<String> STRINGS = List.of("bandwidth", "cost", "deltarpm_metadata_percentage",
            "deltarpm_percentage", "gpgcakey", "include", "metadata_expire", "metalink", "mirrorlist", "mirrorlist_expire",
            "priority", "proxy", "proxy_username", "retries", "throttle", "timeout", "ui_repoid_vars", "username");
    private static final List<String> BOOLS = List.of("async", "enabled", "enablegroups", "gpgcheck", "keepalive",
            "module_hotfixes", "protect", "repo_gpgcheck", "s3_enabled", "skip_if_unavailable", "ssl_check_cert_permissions");
    /** Ansible joins these with a newline: one URL a line. */
    private static final List<String> URL_LISTS = List.of("baseurl", "gpgkey");
    /** ... and these with a blank. */
    private static final List<String> WORD_LISTS = List.of("exclude", "includepkgs");
    private static final List<String> SECRETS = List.of("password", "proxy_password");
    private static final ParamSpec SPEC = spec();

    public YumRepositoryModule() {
    }

    private static ParamSpec spec() {
        ParamSpec.Builder b = ParamSpec.builder()
                .required("name", Type.STRING)
                .choice("state", "present", "present", "absent")
                .optional("description", Type.STRING)
                .optional("file", Type.STRING)
                .withDefault("reposdir", Type.STRING, REPOSDIR)
                .optional("mode", Type.STRING)
                .optional("owner", Type.STRING)
                .optional("group", Type.STRING)
                .optional("sslcacert", Type.STRING, "ca_cert")
                .optional("sslclientcert", Type.STRING, "client_cert")
                .optional("sslclientkey", Type.STRING, "client_key")
                .optional("sslverify", Type.BOOL, "validate_certs")
                .choice("failovermethod", null, "roundrobin", "priority")
                .choice("http_caching", null, "all", "packages", "none")
                .choice("ip_resolve", null, "4", "6", "IPv4", "IPv6", "whatever")
                .choice("keepcache", null, "0", "1")
                .choice("metadata_expire_filter", null, "never", "read-only:past", "read-only:present", "read-only:future");
        STRINGS.forEach(s -> b.optional(s, Type.STRING));
        BOOLS.forEach(s -> b.optional(s, Type.BOOL));
        URL_LISTS.forEach(s -> b.optional(s, Type.LIST));
        WORD_LISTS.forEach(s -> b.optional(s, Type.LIST));
        SECRETS.forEach(s -> b.secret(s, Type.STRING, false));
        String selinux = "provision sets mode, owner and group only; set the SELinux context with 'command: chcon ...'";
        return b.refused("params", "Ansible removed it in 2.5: give each option as a parameter of its own")
                .refused("seuser", selinux).refused("serole", selinux).refused("setype", selinux).refused("selevel", selinux)
                .refused("attributes", "provision does not set file attributes; run 'command: chattr ...'", "attr")
                .refused("unsafe_writes", "provision always writes files atomically")
                .build();
    }

    @Override
    public String name() {
        return "yum_repository";
    }

    @Override
    public String description() {
        return """
                A [name] section of REPOSDIR/FILE.repo (default /etc/yum.repos.d/NAME.repo) with exactly the
                options given (present: description, and baseurl, metalink or mirrorlist, are required), or
                no such section (absent; the file is removed with its last section). Written as Ansible
                writes it: options in alphabetical order as 'key = value', description as 'name', booleans
                as 1/0, baseurl and gpgkey one URL a line. A section that already says the same, in any
                order or spelling, is left alone; a file that changes is rewritten whole (comments dropped).
                mode, owner and group apply to the file. No cache is refreshed: dnf reads it when needed.""";
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
        String name = params.string("name");
        if (!name.matches("[A-Za-z0-9_.:-]+")) {
            throw new ModuleException("name '" + name + "' is not a repository id (letters, digits and - _ . :)");
        }
        boolean present = params.string("state").equals("present");
        if (present && !(params.has("baseurl") || params.has("metalink") || params.has("mirrorlist"))) {
            throw new ModuleException("Parameter 'baseurl', 'metalink' or 'mirrorlist' is required.");
        }
        if (present && !params.has("description")) {
            throw new ModuleException("Parameter 'description' is required.");
        }
        String reposdir = params.string("reposdir");
        if (!reposdir.startsWith("/")) {
            throw new ModuleException("reposdir '" + reposdir + "' is not an absolute path");
        }
        reposdir = reposdir.length() > 1 && reposdir.endsWith("/") ? reposdir.substring(0, reposdir.length() - 1) : reposdir;
        HostView host = context.host();
        Optional<FileStat> dir = host.stat(reposdir);
        if (dir.isEmpty() || dir.get().type() != FileStat.Type.DIRECTORY) {
            throw new ModuleException("Repo directory '" + reposdir + "' does not exist.");
        }
        String file = RepoFiles.fileName("file", params.optString("file").orElse(name), reposdir);
        String dest = (reposdir.equals("/") ? "" : reposdir) + "/" + file + ".repo";
        Attributes attributes = new Attributes(RepoFiles.mode(params.optString("mode")), params.optString("owner"),
                params.optString("group"));

        Optional<FileContentPlanner.Existing> existing = FileContentPlanner.read(host, dest);
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        if (existing.isPresent()) {
            try {
                sections.putAll(RepoIni.parse(dest, existing.get().text(dest)));
            } catch (IllegalArgumentException e) {
                throw new ModuleException("cannot read " + dest + " as Ansible would: " + e.getMessage());
            }
        }
        Map<String, Map<String, String>> after = new LinkedHashMap<>(sections);
        after.remove(name);
        if (present) {
            after.put(name, options(params));
        }
        boolean sensitive = SECRETS.stream().anyMatch(params::has);
        if (dumped(sections).equals(dumped(after))) {
            String reason = present ? dest + " has [" + name + "] with these options" : "[" + name + "] is not in " + dest;
            if (existing.isEmpty()) {
                return Plan.converged(reason);
            }
            return sensitively(FileContentPlanner.update(dest, existing.get(), existing.get().content(), attributes, "", reason),
                    sensitive);
        }
        byte[] wanted = RepoIni.render(after).getBytes(StandardCharsets.UTF_8);
        if (existing.isEmpty()) {
            Attributes created = new Attributes(Optional.of(attributes.mode().orElse("0644")), attributes.owner(), attributes.group());
            return sensitively(FileContentPlanner.create(host, dest, wanted, created), sensitive);
        }
        if (after.isEmpty()) {
            return sensitively(Plan.of(Change.withDiff("remove " + dest + " (its last section was [" + name + "])",
                    new Diff(dest, existing.get().text(dest), ""), new Command.Remove(dest))), sensitive);
        }
        String summary = (present ? (sections.containsKey(name) ? "update [" : "add [") : "remove [") + name + "] "
                + (present ? "in " : "from ") + dest;
        return sensitively(FileContentPlanner.update(dest, existing.get(), wanted, attributes, summary, ""), sensitive);
    }

    /** The section's options as Ansible writes them: sorted by key, booleans 1/0, lists joined. */
    private static Map<String, String> options(Params params) {
        Map<String, String> options = new TreeMap<>();
        for (Map.Entry<String, Object> e : params.asMap().entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            if (key.equals("description")) {
                options.put("name", text(value));
            } else if (URL_LISTS.contains(key)) {
                options.put(key, String.join("\n", params.list(key).stream().map(YumRepositoryModule::text).toList()));
            } else if (WORD_LISTS.contains(key)) {
                options.put(key, String.join(" ", params.list(key).stream().map(YumRepositoryModule::text).toList()));
            } else if (value instanceof Boolean b && (BOOLS.contains(key) || key.equals("sslverify"))) {
                options.put(key, b ? "1" : "0");
            } else if (STRINGS.contains(key) || SECRETS.contains(key) || key.startsWith("ssl") || key.equals("failovermethod")
                    || key.equals("http_caching") || key.equals("ip_resolve") || key.equals("keepcache")
                    || key.equals("metadata_expire_filter")) {
                options.put(key, text(value));
            }
        }
        return options;
    }

    /** A value as configparser reads it back (stripped), so that what is written compares equal on the next run. */
    private static String text(Object value) {
        return String.valueOf(value).strip();
    }

    /** What Ansible compares: sections and keys sorted. */
    private static Map<String, Map<String, String>> dumped(Map<String, Map<String, String>> sections) {
        Map<String, Map<String, String>> sorted = new TreeMap<>();
        sections.forEach((k, v) -> sorted.put(k, new TreeMap<>(v)));
        return sorted;
    }

    private static Plan sensitively(Plan plan, boolean sensitive) {
        if (!sensitive || plan.isEmpty()) {
            return plan;
        }
        return Plan.of(plan.changes().stream().map(Change::asSensitive).toList(), plan.reason());
    }
}
