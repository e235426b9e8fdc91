package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Loads a playbook file into the immutable model, validating everything that can be known without a
 * host: YAML syntax, keywords, module names and parameter names (against a {@link ModuleCatalog}),
 * value shapes, and that every imported file, role and vars file exists.
 *
 * <p>What the loader resolves, so that the executor never has to:
 * <ul>
 *   <li>{@code import_role} and {@code include_role} among tasks (both static, see {@link RoleLoader}).</li>
 *   <li>{@code import_tasks} and {@code include_tasks} (both static; a templated file name or a loop
 *       on an include is an error), {@code import_playbook} at the top level; relative names are looked
 *       up beside the including file, then in the role's {@code tasks/} (role tasks) or the playbook's
 *       directory.</li>
 *   <li>Keywords of blocks, includes and role entries ({@code when}, {@code tags}, {@code vars},
 *       {@code become}, {@code become_user}, {@code ignore_errors}, {@code no_log}, {@code run_once},
 *       {@code delegate_to}, {@code environment}: {@link TaskKeywords}) are pushed down onto their tasks: conditions of the outer level first, tags
 *       united, vars merged with the inner level winning, other keywords inherited unless set.</li>
 *   <li>Play {@code tags} are pushed down onto every task and handler as well (they are kept on the
 *       {@link Play} too). Play {@code become}/{@code become_user} are not: a task whose
 *       {@code become} is empty follows the play.</li>
 *   <li>Roles ({@code roles/NAME} beside the playbook, else {@code NAME} beside it; a name that is
 *       absolute or backs out with {@code ..} is refused): tasks go at the
 *       start of {@link Play#tasks}, handlers at the start of {@link Play#handlers}, each with its
 *       {@link RoleContext}. In a role entry, keys other than {@code role}/{@code name} and the
 *       keywords above are role parameters (as in Ansible) and join {@code vars:} in
 *       {@link RoleContext#vars}. A role listed twice runs twice.</li>
 *   <li>{@code vars_files} are read relative to the playbook's directory and merged in order.</li>
 * </ul>
 *
 * <p>Every problem is an {@link InvalidInputException} at the file, line and column it comes from,
 * with a one-line message that says what to do. The first problem stops the load. Stateless and
 * thread-safe.
 */
public final class PlaybookLoader {
    /** Most used first: on a tie in edit distance the first is suggested ('taks' -> 'tasks'). */
    private static final List<String> PLAY_KEYWORDS = List.of("hosts", "tasks", "name", "vars", "roles", "handlers", "environment",
            "become", "become_user", "gather_facts", "pre_tasks", "post_tasks", "vars_files", "serial", "tags",
            "max_fail_percentage", "any_errors_fatal", "strategy", "connection", "become_method");
    private static final Pattern PERCENT = Pattern.compile("\\d{1,3}%");

    private final ModuleCatalog catalog;
    private final TaskParser tasks;

    private PlaybookLoader(ModuleCatalog catalog, List<Path> rolesPath) {
        this.catalog = catalog;
        this.tasks = new TaskParser(catalog, rolesPath);
    }

    /**
     * Loads {@code file} and everything it imports.
     *
     * @param file positions in messages name it (and the files it imports) relative to it, as given
     * @throws InvalidInputException the first problem found, at its file:line:column
     */
    public static Playbook load(Path file, ModuleCatalog catalog) throws InvalidInputException {
        return load(file, catalog, List.of());
    }

    /**
     * As {@link #load(Path, ModuleCatalog)}, finding roles also in {@code rolesPath} (Ansible's
     * {@code roles_path}): after {@code roles/} beside the playbook, before the playbook's directory.
     */
    public static Playbook load(Path file, ModuleCatalog catalog, List<Path> rolesPath) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(catalog, "catalog cannot be null");
        PlaybookLoader loader = new PlaybookLoader(catalog, List.copyOf(rolesPath));
        List<Play> plays = loader.plays(file, List.of(file.toAbsolutePath().normalize()));
        return new Playbook(file, plays, loader.tasks.warnings());
    }

    private List<Play> plays(Path file, List<Path> chain) throws InvalidInputException {
        YamlDocument doc = YamlDocument.read(file, "playbook");
        Node root = doc.root().orElseThrow(() -> new InvalidInputException(doc.start(),
                "playbook is empty; write a list of plays ('- hosts: all' with 'tasks:')"));
        if (!(root instanceof SequenceNode seq)) {
            String hint = root instanceof MappingNode ? "; start each play with '- ' ('- hosts: all')" : "";
            throw doc.error(root, "a playbook must be a list of plays, not " + YamlDocument.describe(root) + hint);
        }
        List<Play> plays = new ArrayList<>();
        for (Node item : seq.getValue()) {
            if (!(item instanceof MappingNode mapping)) {
                throw doc.error(item, "a play must be a mapping (hosts: ..., tasks: ...), not " + YamlDocument.describe(item));
            }
            List<YamlDocument.Entry> entries = doc.entries(mapping);
            Optional<YamlDocument.Entry> imported = entries.stream()
                    .filter(e -> TaskParser.canonical(e.key()).equals("import_playbook")).findFirst();
            if (imported.isPresent()) {
                plays.addAll(importPlaybook(doc, entries, imported.get(), chain));
            } else {
                plays.add(play(doc, mapping, entries));
            }
        }
        return plays;
    }

    private List<Play> importPlaybook(YamlDocument doc, List<YamlDocument.Entry> entries, YamlDocument.Entry imported,
                                      List<Path> chain) throws InvalidInputException {
        Set<String> tags = new LinkedHashSet<>();
        List<Expression> when = new ArrayList<>();
        Map<String, Object> vars = new LinkedHashMap<>();
        for (YamlDocument.Entry e : entries) {
            if (e.key().equals("vars")) {
                vars.putAll(doc.mapping(e.value(), "'vars'")); // Ansible: each imported play gets them, over its own
            } else if (e.key().equals("tags")) {
                tags.addAll(Values.tags(doc, e.value())); // Ansible: every task of the imported plays gets them
            } else if (e.key().equals("when")) {
                when.addAll(Values.conditions(doc, e.value(), "when")); // likewise: a condition on each task
            } else if (e != imported && !e.key().equals("name")) {
                throw doc.error(e.keyNode(), "'" + e.key() + "' is not supported on 'import_playbook'; "
                        + "set it inside the imported playbook");
            }
        }
        String name = Values.string(doc, imported.value(), "import_playbook");
        if (name.contains("${") || name.contains("{{")) {
            throw doc.error(imported.value(), "dynamic includes are not supported; 'import_playbook' needs a fixed file name");
        }
        List<String> words = name.strip().matches("\\S+\\s+.*=.*") ? List.of(name.strip().split("\\s+")) : List.of(name);
        if (words.size() > 1) {
            // Ansible's older form "import_playbook: other.yml hostlist=gpu": the words after the name are vars
            for (String word : words.subList(1, words.size())) {
                int eq = word.indexOf('=');
                if (eq < 1 || !dev.provision.modules.text.ShellWords.isName(word.substring(0, eq))) {
                    throw doc.error(imported.value(), "'import_playbook: " + name + "': after the file name only name=value "
                            + "words may follow (vars for the imported plays), not '" + word + "'; or use 'vars:'");
                }
                vars.putIfAbsent(word.substring(0, eq), word.substring(eq + 1));
            }
            name = words.getFirst();
        }
        Path dir = TaskParser.parentOf(doc.file());
        Path found = TaskParser.resolve(doc, imported.value(), dir, name);
        if (!Files.isRegularFile(found)) {
            throw doc.error(imported.value(), "playbook '" + name + "' not found; looked in "
                    + dir.toAbsolutePath().normalize());
        }
        Path absolute = found.toAbsolutePath().normalize();
        if (chain.contains(absolute)) {
            throw doc.error(imported.value(), "import cycle: '" + name + "' is already being imported; remove this import");
        }
        List<Path> longer = new ArrayList<>(chain);
        longer.add(absolute);
        Set<String> outer = importTags;
        List<Expression> outerWhen = importWhen;
        importTags = new LinkedHashSet<>(outer);
        importTags.addAll(tags);
        importWhen = new ArrayList<>(outerWhen);
        importWhen.addAll(when);
        try {
            List<Play> plays = plays(found, longer);
            return vars.isEmpty() ? plays : plays.stream().map(p -> p.withVarsOver(vars)).toList();
        } finally {
            importTags = outer;
            importWhen = outerWhen;
        }
    }

    /** The tags of the {@code import_playbook} entries the plays being read sit under. */
    private Set<String> importTags = new LinkedHashSet<>();
    /** Their conditions: every task of the imported plays has them, the outermost first. */
    private List<Expression> importWhen = new ArrayList<>();

    private Play play(YamlDocument doc, MappingNode mapping, List<YamlDocument.Entry> entries) throws InvalidInputException {
        String name = "";
        String hosts = null;
        SourcePosition hostsPosition = null;
        Map<String, Object> vars = new LinkedHashMap<>();
        Map<String, Object> varsFiles = new LinkedHashMap<>();
        boolean gatherFacts = true;
        List<String> serial = List.of();
        Optional<Integer> maxFail = Optional.empty();
        boolean anyErrorsFatal = false;
        Optional<Boolean> become = Optional.empty();
        Optional<String> becomeUser = Optional.empty();
        Set<String> tags = new LinkedHashSet<>();
        Node preTasks = null;
        Node roles = null;
        Node mainTasks = null;
        Node postTasks = null;
        Node handlers = null;
        Keywords playLevel = Keywords.none();
        for (YamlDocument.Entry e : entries) {
            Node v = e.value();
            switch (e.key()) {
                case "name" -> name = Values.string(doc, v, "name");
                case "hosts" -> {
                    hosts = hosts(doc, v);
                    hostsPosition = doc.position(v);
                }
                case "vars" -> vars.putAll(doc.mapping(v, "'vars'"));
                case "vars_files" -> varsFiles.putAll(varsFiles(doc, v));
                case "gather_facts" -> gatherFacts = Values.bool(doc, v, "gather_facts");
                case "serial" -> serial = serial(doc, v);
                case "max_fail_percentage" -> maxFail = Optional.of(percentage(doc, v));
                case "any_errors_fatal" -> anyErrorsFatal = Values.bool(doc, v, "any_errors_fatal");
                case "become" -> become = Optional.of(Values.bool(doc, v, "become"));
                case "become_user" -> becomeUser = Optional.of(Values.string(doc, v, "become_user"));
                case "tags" -> tags.addAll(Values.tags(doc, v));
                case "pre_tasks" -> preTasks = v;
                case "roles" -> roles = v;
                case "tasks" -> mainTasks = v;
                case "post_tasks" -> postTasks = v;
                case "handlers" -> handlers = v;
                case "environment" -> playLevel.read(doc, e);
                case "become_method", "connection" -> playLevel.read(doc, e);
                case "strategy" -> strategy(doc, v);
                default -> throw unknownPlayKeyword(doc, e);
            }
        }
        if (hosts == null) {
            throw doc.error(mapping, "play" + (name.isEmpty() ? "" : " '" + name + "'")
                    + " has no 'hosts'; add 'hosts: all' or a group name");
        }
        playLevel.add(Keyword.TAGS, java.util.Collections.unmodifiableSet(new LinkedHashSet<>(importTags)));
        playLevel.add(Keyword.WHEN, List.copyOf(importWhen));
        playLevel.add(Keyword.TAGS, java.util.Collections.unmodifiableSet(tags));
        Path directory = doc.file().toAbsolutePath().normalize().getParent();
        List<Task> allHandlers = new ArrayList<>();
        // handlers of roles imported among the tasks are the play's too
        List<Task> importedHandlers = new ArrayList<>();
        TaskParser.Source source = new TaskParser.Source(doc, directory, Optional.empty(),
                List.of(TaskParser.parentOf(doc.file())), List.of(doc.file().toAbsolutePath().normalize()),
                directory, importedHandlers);
        // read in run order so that the first error reported is the first one met
        List<TaskNode> pre = tasks.tasks(source, preTasks, playLevel, "pre_tasks");
        List<TaskNode> allTasks = new ArrayList<>();
        if (roles != null) {
            readRoles(doc, roles, playLevel, allTasks, allHandlers);
        }
        allTasks.addAll(tasks.tasks(source, mainTasks, playLevel, "tasks"));
        List<TaskNode> post = tasks.tasks(source, postTasks, playLevel, "post_tasks");
        allHandlers.addAll(importedHandlers);
        allHandlers.addAll(tasks.handlers(source, handlers, playLevel));
        return new Play(name, hosts, vars, varsFiles, gatherFacts, serial, maxFail, anyErrorsFatal, become, becomeUser,
                tags, pre, allTasks, post, allHandlers, doc.position(mapping), hostsPosition);
    }

    private InvalidInputException unknownPlayKeyword(YamlDocument doc, YamlDocument.Entry e) {
        String key = e.key();
        if (catalog.names().contains(TaskParser.canonical(key)) || key.equals("block")) {
            return doc.error(e.keyNode(), "'" + key + "' is a task, not a play keyword; put it in a list under 'tasks:'");
        }
        if (TaskParser.NOT_SUPPORTED.containsKey(key) && !key.equals("any_errors_fatal") && !key.equals("vars_files")) {
            return doc.error(e.keyNode(), "'" + key + "' is not supported yet; " + TaskParser.NOT_SUPPORTED.get(key));
        }
        Set<String> playOnlyUnsupported = Set.of("order", "force_handlers", "collections", "module_defaults",
                "vars_prompt", "gather_subset", "gather_timeout", "fact_path", "port", "ignore_unreachable",
                "ignore_errors", "no_log", "run_once", "debugger", "become_flags", "timeout");
        if (playOnlyUnsupported.contains(key)) {
            return doc.error(e.keyNode(), "'" + key + "' is not supported on a play yet; remove it");
        }
        return TaskParser.unknownKeyword(doc, e, PLAY_KEYWORDS, "a play");
    }

    /**
     * Ansible's {@code strategy}: {@code linear} is how provision runs a play, and {@code free} is met
     * by it too: a host goes through host-local tasks without waiting for the others, and only tasks
     * that join or compare hosts wait for all (a free strategy would run those on partial results).
     */
    private static void strategy(YamlDocument doc, Node v) throws InvalidInputException {
        String strategy = Values.string(doc, v, "strategy");
        if (!strategy.equals("linear") && !strategy.equals("free")) {
            throw doc.error(v, "strategy '" + strategy + "' is not supported: provision runs linear (and runs hosts ahead"
                    + " through host-local tasks, as free does); remove it or write linear or free");
        }
    }

    private static String hosts(YamlDocument doc, Node node) throws InvalidInputException {
        List<String> patterns = Values.strings(doc, node, "hosts");
        String joined = String.join(":", patterns).trim();
        if (joined.isEmpty()) {
            throw doc.error(node, "'hosts' is empty; write 'all', a group or a host pattern");
        }
        return joined;
    }

    private Map<String, Object> varsFiles(YamlDocument doc, Node node) throws InvalidInputException {
        Map<String, Object> merged = new LinkedHashMap<>();
        List<Node> items = node instanceof SequenceNode seq ? seq.getValue() : List.of(node);
        Path dir = TaskParser.parentOf(doc.file());
        for (Node item : items) {
            if (item instanceof SequenceNode) {
                throw doc.error(item, "a list of alternatives in 'vars_files' is not supported; name one file");
            }
            String name = Values.string(doc, item, "vars_files");
            if (name.contains("${") || name.contains("{{")) {
                throw doc.error(item, "a templated file name in 'vars_files' is not supported; write a fixed name");
            }
            Path file = TaskParser.resolve(doc, item, dir, name);
            if (!Files.isRegularFile(file)) {
                throw doc.error(item, "vars file '" + name + "' not found; looked in " + dir.toAbsolutePath().normalize());
            }
            merged.putAll(VarsFile.read(file, VarsFile.Keys.ANY));
        }
        return merged;
    }

    private static List<String> serial(YamlDocument doc, Node node) throws InvalidInputException {
        List<Node> items = node instanceof SequenceNode seq ? seq.getValue() : List.of(node);
        List<String> batches = new ArrayList<>();
        for (Node item : items) {
            String text = item instanceof ScalarNode s ? s.getValue().trim() : "";
            if (!(text.matches("\\d{1,9}") && Integer.parseInt(text) > 0) && !PERCENT.matcher(text).matches()) {
                throw doc.error(item, "'serial' must be a number of hosts (5), a percentage ('30%') or a list of them, not "
                        + YamlDocument.describe(item));
            }
            batches.add(text);
        }
        return batches;
    }

    private static int percentage(YamlDocument doc, Node node) throws InvalidInputException {
        if (node instanceof ScalarNode s) {
            String text = s.getValue().trim();
            text = text.endsWith("%") ? text.substring(0, text.length() - 1) : text;
            if (text.matches("\\d{1,3}") && Integer.parseInt(text) <= 100) {
                return Integer.parseInt(text);
            }
        }
        throw doc.error(node, "'max_fail_percentage' must be a number from 0 to 100, not " + YamlDocument.describe(node));
    }

    private void readRoles(YamlDocument doc, Node node, Keywords playLevel, List<TaskNode> into,
                           List<Task> handlersInto) throws InvalidInputException {
        if (YamlDocument.isNull(node)) {
            return;
        }
        if (!(node instanceof SequenceNode seq)) {
            throw doc.error(node, "'roles' must be a list of role names, not " + YamlDocument.describe(node));
        }
        Path directory = TaskParser.parentOf(doc.file()).toAbsolutePath().normalize();
        tasks.roles().newPlay();
        tasks.roles().entries(doc, seq, directory, Optional.empty(), List.of(), playLevel, into, handlersInto);
    }
}
