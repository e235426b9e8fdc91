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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code apt_repository} (Ansible's {@code ansible.builtin.apt_repository}): a one-line apt source
 * present in, or absent from, the host's source lists, with Ansible 2.14's file names and file
 * content ({@link AptSources}).
 *
 * <p>The lists read are {@code /etc/apt/sources.list} and {@code /etc/apt/sources.list.d/*.list}
 * (deb822 {@code .sources} files are not read, as in Ansible). {@code present}: a source that is
 * already in any of them, as written, is left where it is (a commented-out copy is enabled in
 * place); otherwise the line is added to {@code sources.list.d/FILENAME.list}. {@code absent}: every
 * enabled copy is removed from whichever file holds it, and a file left with no line at all is
 * removed. A file that changes is written back whole, normalised as Ansible writes it. When
 * anything changed and {@code update_cache} is true, a second change runs {@code apt-get update}.
 * PPAs ({@code ppa:OWNER/NAME}) are refused: Ansible looks their key up on Launchpad.
 */
public final class AptRepositoryModule implements TaskModule {
    static final String SOURCES_LIST = "/etc/apt/sources.list";
    static final String SOURCES_DIR = "/etc/apt/sources.list.d";

    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("repo", Type.STRING)
            .choice("state", "present", "present", "absent")
            .optional("mode", Type.STRING)
            .withDefault("update_cache", Type.BOOL, true, "update-cache")
            .optional("update_cache_retries", Type.INT)
            .optional("update_cache_retry_max_delay", Type.INT)
            .optional("filename", Type.STRING)
            .withDefault("validate_certs", Type.BOOL, true)
            .optional("codename", Type.STRING)
            .withDefault("install_python_apt", Type.BOOL, true)
            .build();

    public AptRepositoryModule() {
    }

    @Override
    public String name() {
        return "apt_repository";
    }

    @Override
    public String description() {
        return """
                A one-line apt source (deb or deb-src, with [options]) present in or absent from the host's
                lists: /etc/apt/sources.list and /etc/apt/sources.list.d/*.list.
                  present: a line already in any list (as written; blanks do not count) is left where it is,
                    a commented-out copy is enabled; else the line goes to sources.list.d/FILENAME.list
                  absent: the line is removed from every list that holds it; a list left empty is removed
                  filename: without .list; by default derived from the repo as Ansible 2.14 does
                    ('deb [arch=amd64] https://download.docker.com/linux/ubuntu focal stable'
                     -> download_docker_com_linux_ubuntu.list)
                  mode: of the list the line is added to (default: a new file gets 0644)
                  update_cache (default true): when a list changed, 'apt-get update' runs next;
                    update_cache_retries N is apt's own -o Acquire::Retries=N (retry_max_delay: unused)
                A list that changes is rewritten as Ansible writes it ('#comment' becomes '# comment').
                Not supported: ppa:OWNER/NAME (write the deb line with signed-by= and fetch the key first).
                codename, validate_certs and install_python_apt only matter to Ansible for PPAs or its
                own Python; they are accepted and change nothing here.""";
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
        String repo = params.string("repo").strip();
        if (repo.startsWith("ppa:")) {
            throw new ModuleException("repo '" + repo + "': PPAs are not supported (Ansible looks the PPA's signing key up on"
                    + " Launchpad while it runs); write the source line instead, e.g. 'deb [signed-by=/etc/apt/keyrings/OWNER-NAME.gpg]"
                    + " https://ppa.launchpadcontent.net/OWNER/NAME/ubuntu CODENAME main', with a task that fetches the key before it");
        }
        String source = AptSources.repo(repo).orElseThrow(() -> new ModuleException(
                "Invalid repository string: '" + repo + "' (an enabled one-line source starting with deb or deb-src)"));
        Optional<String> mode = RepoFiles.mode(params.optString("mode"));
        HostView host = context.host();
        Map<String, List<AptSources.Line>> lists = readLists(host);
        List<Change> changes = params.string("state").equals("present")
                ? present(host, source, fileName(params, source), mode, lists)
                : absent(host, source, lists);
        if (changes.isEmpty()) {
            return Plan.converged(params.string("state").equals("present")
                    ? "'" + source + "' is in " + String.join(", ", holders(source, lists, false))
                    : "'" + source + "' is in no apt source list");
        }
        if (params.bool("update_cache")) {
            List<String> argv = new ArrayList<>(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"));
            params.optInteger("update_cache_retries").ifPresent(n -> argv.addAll(List.of("-o", "Acquire::Retries=" + n)));
            argv.add("update");
            changes.add(Change.of("refresh apt package lists (sources changed)", new Command.Exec(argv, new byte[0])));
        }
        return Plan.of(changes, "");
    }

    /** {@code filename} (checked), or the name Ansible derives from the source; with {@code .list}. */
    private static String fileName(Params params, String source) throws ModuleException {
        Optional<String> given = params.optString("filename");
        if (given.isPresent()) {
            return RepoFiles.fileName("filename", given.get(), SOURCES_DIR) + ".list";
        }
        String derived = AptSources.suggestedName(source);
        if (derived.isEmpty()) {
            throw new ModuleException("cannot derive a file name from '" + source + "'; give filename");
        }
        return derived + ".list";
    }

    /** The lists apt reads, by path: sources.list first, then sources.list.d/*.list in name order. */
    private static Map<String, List<AptSources.Line>> readLists(HostView host) throws ModuleException {
        Map<String, List<AptSources.Line>> lists = new LinkedHashMap<>();
        read(host, SOURCES_LIST, lists);
        Optional<FileStat> dir = host.stat(SOURCES_DIR);
        if (dir.isPresent() && dir.get().type() == FileStat.Type.DIRECTORY) {
            for (Map.Entry<String, FileStat> e : host.walk(SOURCES_DIR).entrySet()) {
                String name = e.getKey().substring(SOURCES_DIR.length() + 1);
                // glob('*.list'): one level, no dot files; a link is read through
                if (!name.contains("/") && !name.startsWith(".") && name.endsWith(".list")
                        && e.getValue().type() != FileStat.Type.DIRECTORY) {
                    read(host, e.getKey(), lists);
                }
            }
        }
        return lists;
    }

    private static void read(HostView host, String path, Map<String, List<AptSources.Line>> lists) throws ModuleException {
        Optional<byte[]> content = host.readFile(path);
        if (content.isPresent()) {
            String text = FileContentPlanner.decode(content.get())
                    .orElseThrow(() -> new ModuleException(path + " is not UTF-8 text"));
            lists.put(path, AptSources.parseFile(text));
        }
    }

    private static List<String> holders(String source, Map<String, List<AptSources.Line>> lists, boolean enabledOnly) {
        List<String> paths = new ArrayList<>();
        lists.forEach((path, lines) -> {
            if (lines.stream().anyMatch(l -> l.valid() && l.source().equals(source) && (l.enabled() || !enabledOnly))) {
                paths.add(path);
            }
        });
        return paths;
    }

    private static List<Change> present(HostView host, String source, String fileName, Optional<String> mode,
                                        Map<String, List<AptSources.Line>> lists) throws ModuleException {
        List<Change> changes = new ArrayList<>();
        List<String> holders = holders(source, lists, false);
        for (String path : holders) {
            List<AptSources.Line> before = lists.get(path);
            List<AptSources.Line> after = before.stream()
                    .map(l -> l.valid() && l.source().equals(source) ? l.enable() : l).toList();
            if (!after.equals(before)) {
                changes.add(rewrite(host, path, after, Attributes.NONE, "enable '" + source + "' in " + path));
            }
        }
        if (!holders.isEmpty()) {
            return changes;
        }
        String path = SOURCES_DIR + "/" + fileName;
        Attributes attributes = new Attributes(mode, Optional.empty(), Optional.empty());
        List<AptSources.Line> before = lists.get(path);
        if (before == null && host.stat(path).isPresent()) {
            throw new ModuleException(path + " exists but is not a readable list file");
        }
        if (before == null) {
            Attributes created = new Attributes(Optional.of(mode.orElse("0644")), Optional.empty(), Optional.empty());
            byte[] content = (source + "\n").getBytes(StandardCharsets.UTF_8);
            Optional<FileStat> dir = host.stat(SOURCES_DIR);
            changes.addAll((dir.isPresent() ? FileContentPlanner.create(host, path, content, created)
                    : FileContentPlanner.createWithParents(host, path, content, created)).changes());
            return changes;
        }
        List<AptSources.Line> after = new ArrayList<>(before);
        after.add(new AptSources.Line(true, true, source, ""));
        changes.add(rewrite(host, path, after, attributes, "add '" + source + "' to " + path));
        return changes;
    }

    private static List<Change> absent(HostView host, String source, Map<String, List<AptSources.Line>> lists)
            throws ModuleException {
        List<Change> changes = new ArrayList<>();
        for (String path : holders(source, lists, true)) {
            List<AptSources.Line> before = lists.get(path);
            List<AptSources.Line> after = before.stream()
                    .filter(l -> !(l.valid() && l.enabled() && l.source().equals(source))).toList();
            if (after.isEmpty()) {
                String beforeText = host.readFile(path).flatMap(FileContentPlanner::decode).orElse(AptSources.render(before));
                changes.add(Change.withDiff("remove " + path + " (its only line was '" + source + "')",
                        new Diff(path, beforeText, ""), new Command.Remove(path)));
            } else {
                changes.add(rewrite(host, path, after, Attributes.NONE, "remove '" + source + "' from " + path));
            }
        }
        return changes;
    }

    /** The whole file written as Ansible writes it, its mode set when asked; owner and mode otherwise kept. */
    private static Change rewrite(HostView host, String path, List<AptSources.Line> after, Attributes attributes,
                                      String summary) throws ModuleException {
        FileContentPlanner.Existing existing = FileContentPlanner.read(host, path)
                .orElseThrow(() -> new ModuleException("cannot read " + path));
        byte[] wanted = AptSources.render(after).getBytes(StandardCharsets.UTF_8);
        Plan plan = FileContentPlanner.update(path, existing, wanted, attributes, summary, "");
        if (plan.isEmpty()) {
            throw new IllegalStateException("a rewrite that changes nothing: " + path);
        }
        return plan.changes().getFirst();
    }
}
