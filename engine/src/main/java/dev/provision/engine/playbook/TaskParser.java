package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Suggestions;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads task lists (tasks, handlers, block parts, included task files) into {@link TaskNode}s,
 * resolving includes and pushing block and include keywords down onto the tasks.
 */
final class TaskParser {
    // lists, most used first: a misspelling equally close to two keywords suggests the more likely one
    private static final List<String> TASK_KEYWORDS = List.of("name", "register", "notify", "loop", "args",
            "loop_control", "with_items", "changed_when", "failed_when", "until", "retries", "delay", "listen");
    private static final List<String> BLOCK_KEYWORDS = List.of("name", "block", "rescue", "always");
    private static final Set<String> INCLUDE_KEYWORDS = Set.of("import_tasks", "include_tasks");
    private static final Set<String> ROLE_INCLUDE_KEYWORDS = Set.of("import_role", "include_role");
    private static final List<String> ROLE_INCLUDE_ARGS = List.of("name", "tasks_from", "vars_from", "defaults_from",
            "handlers_from");
    private static final List<String> LOOP_CONTROL_KEYS = List.of("loop_var", "label");
    private static final int DEFAULT_UNTIL_RETRIES = 3;
    private static final int DEFAULT_DELAY_SECONDS = 5;

    /** Ansible keywords we know but do not implement, with what to do instead. */
    static final Map<String, String> NOT_SUPPORTED = Map.ofEntries(
            Map.entry("remote_user", "set ansible_user in the inventory instead"),
            Map.entry("diff", "run the whole playbook with --diff instead"),
            Map.entry("throttle", "lower --forks instead"),
            Map.entry("any_errors_fatal", "set it on the play"),
            Map.entry("include", "use 'import_tasks:' or 'include_tasks:'"),
            Map.entry("import_playbook", "use it at the top level of a playbook, not among tasks"),
            Map.entry("with_nested", "use 'loop:' with an expression instead"),
            Map.entry("with_sequence", "use 'loop:' with an expression instead"),
            Map.entry("with_together", "use 'loop:' with an expression instead"),
            Map.entry("with_indexed_items", "use 'loop:' with 'loop_control:' instead"),
            Map.entry("vars_files", "set it on the play"));

    /**
     * Where tasks being read came from: their file, base directory, role, the include chain, the
     * playbook's directory (where roles are found), and the play's list that handlers of roles
     * imported among these tasks join (the same list, not a copy).
     */
    record Source(YamlDocument doc, Path baseDirectory, Optional<RoleContext> role, List<Path> fallbackDirs,
                  List<Path> chain, Path playbookDirectory, List<Task> importedHandlers) {
        Source {
            requireNonNull(doc, "doc cannot be null");
            requireNonNull(baseDirectory, "baseDirectory cannot be null");
            requireNonNull(role, "role cannot be null");
            fallbackDirs = List.copyOf(fallbackDirs);
            chain = List.copyOf(chain);
            requireNonNull(playbookDirectory, "playbookDirectory cannot be null");
            requireNonNull(importedHandlers, "importedHandlers cannot be null");
        }
    }

    private final ModuleCatalog catalog;
    private final RoleLoader roles;
    /** What loads but may fail when it runs (an {@code include_role} of a role not installed), at file:line:column. */
    private final List<String> warnings = new ArrayList<>();

    TaskParser(ModuleCatalog catalog, List<Path> rolesPath) {
        this.catalog = requireNonNull(catalog, "catalog cannot be null");
        this.roles = new RoleLoader(this, rolesPath);
    }

    RoleLoader roles() {
        return roles;
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** A list of tasks under {@code section} ({@code tasks}, {@code block}, ...); null or empty = none. */
    List<TaskNode> tasks(Source src, Node node, Keywords inherited, String section) throws InvalidInputException {
        List<TaskNode> out = new ArrayList<>();
        readList(src, node, inherited, section, false, out);
        return out;
    }

    /** A list of handlers; blocks are not allowed there, includes are. */
    List<Task> handlers(Source src, Node node, Keywords inherited) throws InvalidInputException {
        List<TaskNode> out = new ArrayList<>();
        readList(src, node, inherited, "handlers", true, out);
        List<Task> handlers = new ArrayList<>();
        for (TaskNode n : out) {
            handlers.add((Task) n); // readList never yields a Block for handlers
        }
        return handlers;
    }

    private void readList(Source src, Node node, Keywords inherited, String section, boolean handler,
                          List<TaskNode> out) throws InvalidInputException {
        YamlDocument doc = src.doc();
        if (node == null || YamlDocument.isNull(node)) {
            return; // the section is absent or empty
        }
        if (!(node instanceof SequenceNode seq)) {
            throw doc.error(node, "'" + section + "' must be a list of tasks (each starting with '- '), not "
                    + YamlDocument.describe(node));
        }
        for (Node item : seq.getValue()) {
            if (!(item instanceof MappingNode mapping)) {
                throw doc.error(item, "a task must be a mapping (name: ..., module: ...), not " + YamlDocument.describe(item));
            }
            List<YamlDocument.Entry> entries = doc.entries(mapping);
            Set<String> keys = YamlDocument.keysOf(entries);
            if (keys.contains("block")) {
                if (handler) {
                    throw doc.error(item, "blocks are not supported in handlers; write the handlers one by one");
                }
                out.add(block(src, mapping, entries, inherited));
            } else if (entries.stream().anyMatch(e -> ROLE_INCLUDE_KEYWORDS.contains(canonical(e.key())))) {
                if (handler) {
                    throw doc.error(item, "roles cannot be imported in handlers; import the role among the tasks "
                            + "(its handlers join the play's)");
                }
                roleInclude(src, mapping, entries, inherited, out);
            } else if (entries.stream().anyMatch(e -> INCLUDE_KEYWORDS.contains(canonical(e.key())))) {
                out.addAll(include(src, mapping, entries, inherited, handler));
            } else if (keys.contains("rescue") || keys.contains("always")) {
                throw doc.error(item, "'rescue' and 'always' need a 'block' in the same mapping; add 'block:'");
            } else {
                out.add(task(src, mapping, entries, inherited, handler));
            }
        }
    }

    private Block block(Source src, MappingNode mapping, List<YamlDocument.Entry> entries, Keywords inherited)
            throws InvalidInputException {
        YamlDocument doc = src.doc();
        Keywords own = new Keywords();
        String name = "";
        Node block = null;
        Node rescue = null;
        Node always = null;
        for (YamlDocument.Entry e : entries) {
            switch (e.key()) {
                case "name" -> name = Values.string(doc, e.value(), "name");
                case "block" -> block = e.value();
                case "rescue" -> rescue = e.value();
                case "always" -> always = e.value();
                default -> {
                    if (!common(doc, e, own)) {
                        throw unknownKeyword(doc, e, concat(BLOCK_KEYWORDS, Keywords.NAMES), "a block");
                    }
                }
            }
        }
        Keywords children = inherited.inherit(own);
        return new Block(name,
                tasks(src, block, children, "block"),
                rescue == null ? List.of() : tasks(src, rescue, children, "rescue"),
                always == null ? List.of() : tasks(src, always, children, "always"),
                doc.position(mapping));
    }

    private List<TaskNode> include(Source src, MappingNode mapping, List<YamlDocument.Entry> entries,
                                   Keywords inherited, boolean handler) throws InvalidInputException {
        YamlDocument doc = src.doc();
        Keywords own = new Keywords();
        Node fileNode = null;
        String keyword = "";
        for (YamlDocument.Entry e : entries) {
            String key = canonical(e.key());
            if (INCLUDE_KEYWORDS.contains(key)) {
                if (fileNode != null) {
                    throw doc.error(e.keyNode(), "two includes in one task ('" + keyword + "' and '" + key
                            + "'); split them into two tasks");
                }
                keyword = key;
                fileNode = e.value();
            } else if (key.equals("name")) {
                Values.string(doc, e.value(), "name");
            } else if (key.equals("loop") || key.equals("with_items") || key.equals("loop_control")) {
                throw doc.error(e.keyNode(), "dynamic includes are not supported; '" + key + "' on an include "
                        + "would run it once per item: put the loop on the tasks inside the file instead");
            } else if (!common(doc, e, own)) {
                throw unknownKeyword(doc, e, concat(List.of("name"), Keywords.NAMES), "'" + keyword + "'");
            }
        }
        requireNonNull(fileNode, "an include entry was expected");
        Node nameNode = fileNode;
        if (fileNode instanceof MappingNode fileMapping) {
            nameNode = null;
            for (YamlDocument.Entry e : doc.entries(fileMapping)) {
                if (!e.key().equals("file")) {
                    throw doc.error(e.keyNode(), "'" + keyword + "' takes only 'file' here ('" + e.key()
                            + "' is not supported); remove it");
                }
                nameNode = e.value();
            }
            if (nameNode == null) {
                throw doc.error(fileNode, "'" + keyword + "' needs a file name ('file: tasks.yml')");
            }
        }
        String name = Values.string(doc, nameNode, keyword);
        if (name.contains("{{")) {
            throw doc.error(nameNode, "'" + keyword + "' names its file with Jinja2, which provision does not evaluate; "
                    + "write it in FreeMarker ('${...}'; provision migrate FILE rewrites it)");
        }
        if (name.contains("${")) {
            if (!keyword.equals("include_tasks")) {
                throw doc.error(nameNode, "'import_tasks' reads its file when the playbook loads, so it needs a fixed "
                        + "name; use 'include_tasks' for a name computed per host");
            }
            return computedInclude(src, mapping, nameNode, name, inherited.inherit(own), handler);
        }
        return includeFile(src, find(src, name, nameNode, "task file"), nameNode, inherited.inherit(own), keyword, handler);
    }

    /** The tasks of one included file, read now with {@code keywords} pushed down onto them. */
    private List<TaskNode> includeFile(Source src, Path found, Node nameNode, Keywords keywords, String keyword,
                                       boolean handler) throws InvalidInputException {
        YamlDocument doc = src.doc();
        Path absolute = found.toAbsolutePath().normalize();
        if (src.chain().contains(absolute)) {
            throw doc.error(nameNode, "include cycle: " + cycle(src.chain(), absolute) + "; remove one of the includes");
        }
        YamlDocument included = YamlDocument.read(found, "task");
        List<Path> chain = new ArrayList<>(src.chain());
        chain.add(absolute);
        Source child = new Source(included, src.baseDirectory(), src.role(), src.fallbackDirs(), chain,
                src.playbookDirectory(), src.importedHandlers());
        List<TaskNode> out = new ArrayList<>();
        Optional<Node> root = included.root();
        if (root.isPresent()) {
            if (!(root.get() instanceof SequenceNode)) {
                throw included.error(root.get(), "a task file must be a list of tasks (each starting with '- '), not "
                        + YamlDocument.describe(root.get()));
            }
            readList(child, root.get(), keywords, keyword, handler, out);
        }
        return out;
    }

    /**
     * {@code include_tasks: "${ansible_os_family?lower_case}.yml"}: a file name computed per host. Every
     * file the name can match (each {@code ${...}} standing for any text within the file name) is read
     * now, so a mistake in any of them is found before the run, and each runs on the hosts whose
     * computed name is that file. A host whose name matches no file fails at this task, naming it.
     * The name is computed for each task of the file (Ansible computes it once, at the include).
     */
    private List<TaskNode> computedInclude(Source src, MappingNode mapping, Node nameNode, String name, Keywords keywords,
                                           boolean handler) throws InvalidInputException {
        YamlDocument doc = src.doc();
        ComputedName computed = ComputedName.parse(name).orElseThrow(() -> doc.error(nameNode, "'include_tasks: "
                + YamlDocument.printable(name) + "' is not a file name with '${...}' parts inside it (each '${' closed by "
                + "its '}', in the file name only, not in a directory and never a quote); write it so"));
        Set<Path> dirs = new LinkedHashSet<>();
        dirs.add(parentOf(doc.file()));
        dirs.addAll(src.fallbackDirs());
        Map<String, Path> files = new java.util.TreeMap<>();
        List<String> looked = new ArrayList<>();
        for (Path dir : dirs) {
            Path in = resolve(doc, nameNode, dir, computed.directory().isEmpty() ? "." : computed.directory()).normalize();
            looked.add(in.toAbsolutePath().normalize().toString());
            try (var listing = Files.list(in)) {
                for (Path f : listing.filter(Files::isRegularFile).sorted().toList()) {
                    String file = f.getFileName().toString();
                    // the including file (or one including it) is never a candidate: it would be a cycle
                    if (computed.matches(file) && !src.chain().contains(f.toAbsolutePath().normalize())) {
                        files.putIfAbsent(file, f); // beside the including file first, as for a fixed name
                    }
                }
            } catch (java.io.IOException e) {
                // a directory that is not there has no candidates
            }
        }
        if (files.isEmpty()) {
            throw doc.error(nameNode, "no task file matches '" + name + "' (each '${...}' standing for any text); "
                    + "looked in " + String.join(", ", new LinkedHashSet<>(looked)));
        }
        SourcePosition at = doc.position(nameNode);
        List<TaskNode> out = new ArrayList<>();
        List<String> literals = new ArrayList<>();
        for (Map.Entry<String, Path> file : files.entrySet()) {
            String literal = "r\"" + file.getKey() + "\"";
            literals.add(literal);
            Keywords chosen = new Keywords();
            chosen.add(Keyword.WHEN, List.of(new Expression(computed.fileExpression() + " == " + literal, at)));
            try {
                out.addAll(includeFile(src, file.getValue(), nameNode, keywords.inherit(chosen), "include_tasks", handler));
            } catch (InvalidInputException e) {
                // a file beside the task files that is no task file (vars, an inventory): what a host naming it meets
                warnings.add(at + ": " + file.getKey() + " matches '" + name + "' but does not load (" + e.getMessage()
                        + "); a host whose name for it is " + file.getKey() + " fails there");
                out.add(new Task("include_tasks " + file.getKey(), "fail", Map.of("msg", e.getMessage()), Map.of(),
                        keywords.inherit(chosen).freeze(), Optional.empty(), Optional.empty(), List.of(), Optional.empty(),
                        Optional.empty(), Optional.empty(), 0, DEFAULT_DELAY_SECONDS, List.of(), src.baseDirectory(), src.role(),
                        doc.position(mapping)));
            }
        }
        Keywords none = new Keywords();
        none.add(Keyword.WHEN, List.of(new Expression("![" + String.join(", ", literals) + "]?seq_contains(" + computed.fileExpression() + ")", at)));
        Map<String, Object> args = Map.of("msg", "include_tasks: no task file " + computed.directoryPrefix()
                + name.substring(name.lastIndexOf('/') + 1) + " here; the files it can name are " + String.join(", ", files.keySet()));
        out.add(new Task("include_tasks " + name, "fail", args, Map.of(), keywords.inherit(none).freeze(), Optional.empty(),
                Optional.empty(), List.of(), Optional.empty(), Optional.empty(), Optional.empty(), 0, DEFAULT_DELAY_SECONDS,
                List.of(), src.baseDirectory(), src.role(), doc.position(mapping)));
        return out;
    }

    /**
     * A file name with {@code ${...}} parts: the fixed directory before it, a pattern of the file names
     * it can be, and a FreeMarker expression that computes the file name.
     */
    record ComputedName(String directory, java.util.regex.Pattern pattern, String fileExpression) {
        static Optional<ComputedName> parse(String name) {
            int slash = name.lastIndexOf('/');
            String directory = slash < 0 ? "" : name.substring(0, slash);
            String file = name.substring(slash + 1);
            if (directory.contains("${") || file.contains("\"") || file.isEmpty()) {
                return Optional.empty();
            }
            StringBuilder regex = new StringBuilder();
            List<String> terms = new ArrayList<>();
            int i = 0;
            while (i < file.length()) {
                int open = file.indexOf("${", i);
                String literal = file.substring(i, open < 0 ? file.length() : open);
                if (!literal.isEmpty()) {
                    regex.append(java.util.regex.Pattern.quote(literal));
                    terms.add("r\"" + literal + "\"");
                }
                if (open < 0) {
                    break;
                }
                int close = closingBrace(file, open + 2);
                if (close < 0 || close == open + 2) {
                    return Optional.empty();
                }
                regex.append(".+");
                terms.add("(" + file.substring(open + 2, close) + ")?string");
                i = close + 1;
            }
            return Optional.of(new ComputedName(directory, java.util.regex.Pattern.compile(regex.toString()),
                    "(" + String.join(" + ", terms) + ")"));
        }

        boolean matches(String fileName) {
            return pattern.matcher(fileName).matches();
        }

        String directoryPrefix() {
            return directory.isEmpty() ? "" : directory + "/";
        }

        /** The index of the '}' closing a '${' whose inside starts at {@code from}; -1 if none. */
        private static int closingBrace(String s, int from) {
            int depth = 0;
            for (int i = from; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '{') {
                    depth++;
                } else if (c == '}') {
                    if (depth == 0) {
                        return i;
                    }
                    depth--;
                }
            }
            return -1;
        }
    }

    /**
     * {@code import_role}/{@code include_role}: the role's tasks in place, read now (both static here,
     * like {@code include_tasks}); the entry's keywords are pushed down onto them, its {@code vars}
     * are role vars, and the role's handlers join the play's.
     */
    private void roleInclude(Source src, MappingNode mapping, List<YamlDocument.Entry> entries, Keywords inherited,
                             List<TaskNode> out) throws InvalidInputException {
        YamlDocument doc = src.doc();
        Keywords own = new Keywords();
        YamlDocument.Entry include = null;
        String taskName = "";
        for (YamlDocument.Entry e : entries) {
            String key = canonical(e.key());
            if (ROLE_INCLUDE_KEYWORDS.contains(key)) {
                if (include != null) {
                    throw doc.error(e.keyNode(), "two role imports in one task; split them into two tasks");
                }
                include = e;
            } else if (key.equals("name")) {
                taskName = Values.string(doc, e.value(), "name");
            } else if (key.equals("loop") || key.equals("with_items") || key.equals("loop_control")) {
                throw doc.error(e.keyNode(), "a loop over a role is not supported ('" + key + "' would import it once "
                        + "per item); put the loop on the role's tasks instead");
            } else if (!common(doc, e, own)) {
                throw unknownKeyword(doc, e, concat(List.of("name"), Keywords.NAMES), "'" + canonical(include == null
                        ? "import_role" : include.key()) + "'");
            }
        }
        requireNonNull(include, "a role include entry was expected");
        String keyword = canonical(include.key());
        if (!(include.value() instanceof MappingNode args)) {
            throw doc.error(include.value(), "'" + keyword + "' takes a mapping ('name: ROLE', optionally tasks_from, "
                    + "vars_from, defaults_from, handlers_from), not " + YamlDocument.describe(include.value()));
        }
        Map<String, String> given = new LinkedHashMap<>();
        Node nameNode = null;
        for (YamlDocument.Entry e : doc.entries(args)) {
            switch (e.key()) {
                case "name", "tasks_from", "vars_from", "defaults_from", "handlers_from" -> {
                    String value = Values.string(doc, e.value(), keyword + "." + e.key());
                    if (value.contains("${") || value.contains("{{")) {
                        throw doc.error(e.value(), "a templated '" + e.key() + "' in '" + keyword + "' is not supported; "
                                + "write a fixed name (choose between roles with 'when:')");
                    }
                    given.put(e.key(), value);
                    if (e.key().equals("name")) {
                        nameNode = e.value();
                    }
                }
                case "apply" -> throw doc.error(e.keyNode(), "'" + keyword + ".apply' is not needed here: keywords "
                        + "written on the task (when, tags, become, ...) already apply to every task of the role");
                case "public" -> throw doc.error(e.keyNode(), "'" + keyword + ".public' is not supported: a role's "
                        + "defaults and vars are seen by its own tasks only; set shared variables with vars_files or set_fact");
                case "allow_duplicates", "rolespec_validate" -> throw doc.error(e.keyNode(), "'" + keyword + "."
                        + e.key() + "' is not supported; remove it (a role imported twice runs twice)");
                default -> throw doc.error(e.keyNode(), "unknown parameter '" + e.key() + "' for '" + keyword + "'"
                        + suggestion(e.key(), ROLE_INCLUDE_ARGS) + "; it takes " + String.join(", ", ROLE_INCLUDE_ARGS));
            }
        }
        if (nameNode == null) {
            throw doc.error(include.value(), "'" + keyword + "' needs the role's name ('name: ROLE')");
        }
        RoleLoader.FileNames files = new RoleLoader.FileNames(given.getOrDefault("tasks_from", "main"),
                given.getOrDefault("vars_from", "main"), given.getOrDefault("defaults_from", "main"),
                given.getOrDefault("handlers_from", "main"));
        Optional<Path> askingRole = src.role().map(RoleContext::directory);
        RoleLoader.Origin origin = new RoleLoader.Origin(doc, nameNode, src.playbookDirectory(), askingRole, src.chain());
        String role = given.get("name");
        if (keyword.equals("include_role")) {
            RoleLoader.Located located = roles.locate(origin, role);
            if (located.directory().isEmpty()) {
                out.add(missingRole(src, mapping, taskName, role, located, inherited.inherit(own)));
                return;
            }
        }
        roles.load(origin, role, own, Map.of(), inherited, files, out, src.importedHandlers());
    }

    /**
     * An {@code include_role} of a role that is not installed (a Galaxy role, say). Ansible reads such a
     * role only when the task runs, so a play whose hosts never reach the task (a false {@code when:})
     * still runs; the same here: a warning now, and the task fails on every host that reaches it.
     * {@code import_role} and {@code roles:} stay errors before any host is contacted.
     */
    private Task missingRole(Source src, MappingNode mapping, String taskName, String role, RoleLoader.Located located,
                             Keywords keywords) {
        YamlDocument doc = src.doc();
        String problem = "role '" + role + "' is not installed (looked in " + String.join(", ", located.looked()) + ")";
        warnings.add(doc.position(mapping) + ": " + problem + "; include_role reads a role when the task runs, so every "
                + "host that reaches this task fails there. Install it (ansible-galaxy install, into a directory of the "
                + "roles path) or use import_role to make this an error before the run");
        Map<String, Object> args = Map.of("msg", problem + "; install it into a directory of the roles path");
        return new Task(taskName.isEmpty() ? "include_role " + role : taskName, "fail", args, Map.of(), keywords.freeze(),
                Optional.empty(), Optional.empty(), List.of(), Optional.empty(), Optional.empty(), Optional.empty(), 0,
                DEFAULT_DELAY_SECONDS, List.of(), src.baseDirectory(), src.role(), doc.position(mapping));
    }

    private static String cycle(List<Path> chain, Path again) {
        StringBuilder text = new StringBuilder();
        boolean inCycle = false;
        for (Path p : chain) {
            inCycle |= p.equals(again);
            if (inCycle) {
                text.append(p.getFileName()).append(" -> ");
            }
        }
        return text.append(again.getFileName()).toString();
    }

    /**
     * Finds a file named by an include: beside the including file first, then in the fallback
     * directories (the role's {@code tasks/}, or the playbook's directory).
     */
    Path find(Source src, String name, Node at, String what) throws InvalidInputException {
        Set<Path> dirs = new LinkedHashSet<>();
        dirs.add(parentOf(src.doc().file()));
        dirs.addAll(src.fallbackDirs());
        Set<Path> seen = new LinkedHashSet<>();
        List<String> looked = new ArrayList<>();
        for (Path dir : dirs) {
            if (!seen.add(dir.toAbsolutePath().normalize())) {
                continue;
            }
            Path candidate = resolve(src.doc(), at, dir, name);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
            looked.add(dir.toAbsolutePath().normalize().toString());
        }
        throw src.doc().error(at, what + " '" + name + "' not found; looked in " + String.join(", ", looked));
    }

    /** {@code dir/name}, where a name that cannot be a file name (it holds a NUL) is the user's mistake. */
    static Path resolve(YamlDocument doc, Node at, Path dir, String name) throws InvalidInputException {
        try {
            return dir.resolve(name);
        } catch (InvalidPathException e) {
            throw doc.error(at, "'" + YamlDocument.printable(name) + "' is not a valid file name (" + e.getReason()
                    + "); write the file's name");
        }
    }

    static Path parentOf(Path file) {
        Path parent = file.getParent();
        return parent == null ? Path.of("") : parent;
    }

    private Task task(Source src, MappingNode mapping, List<YamlDocument.Entry> entries, Keywords inherited,
                      boolean handler) throws InvalidInputException {
        YamlDocument doc = src.doc();
        Keywords own = new Keywords();
        String name = "";
        String module = null;
        YamlDocument.Entry moduleEntry = null;
        Node argsNode = null;
        Node loopNode = null;
        String loopKeyword = "";
        Node loopControl = null;
        Optional<String> register = Optional.empty();
        List<String> notify = List.of();
        Optional<Expression> changedWhen = Optional.empty();
        Optional<Expression> failedWhen = Optional.empty();
        Optional<Expression> until = Optional.empty();
        Optional<Integer> retries = Optional.empty();
        Optional<Integer> delay = Optional.empty();
        List<String> listen = List.of();
        Optional<Integer> asyncSeconds = Optional.empty();
        Optional<Integer> poll = Optional.empty();
        for (YamlDocument.Entry written : entries) {
            YamlDocument.Entry e = written;
            if (e.key().equals("action") || e.key().equals("local_action")) {
                e = actionAsModule(doc, e);
                if (written.key().equals("local_action")) {
                    if (entries.stream().anyMatch(other -> other.key().equals("delegate_to"))) {
                        throw doc.error(written.keyNode(), "'local_action' runs the task on the controller; it cannot "
                                + "also have 'delegate_to' (keep one of them)");
                    }
                    own.set(Keyword.DELEGATE_TO, Optional.of("localhost"));
                }
            }
            Node v = e.value();
            switch (e.key()) {
                case "name" -> name = Values.string(doc, v, "name");
                case "args" -> argsNode = v;
                case "loop", "with_items", "with_list", "with_dict", "with_fileglob", "with_first_found", "with_subelements" -> {
                    if (loopNode != null) {
                        throw doc.error(e.keyNode(), "both '" + loopKeyword + "' and '" + e.key()
                                + "' are given; keep one of them");
                    }
                    loopNode = v;
                    loopKeyword = e.key();
                }
                case "loop_control" -> loopControl = v;
                case "async" -> asyncSeconds = Optional.of(Values.count(doc, v, "async"));
                case "poll" -> poll = Optional.of(Values.count(doc, v, "poll"));
                case "register" -> {
                    String variable = Values.string(doc, v, "register");
                    if (!dev.provision.modules.text.ShellWords.isName(variable)) {
                        throw doc.error(v, "'register' needs a variable name (letters, digits, '_'), not '"
                                + variable + "'");
                    }
                    register = Optional.of(variable);
                }
                case "notify" -> notify = Values.strings(doc, v, "notify");
                case "changed_when" -> changedWhen = Optional.of(Values.joinedCondition(doc, v, "changed_when"));
                case "failed_when" -> failedWhen = Optional.of(Values.joinedCondition(doc, v, "failed_when"));
                case "until" -> until = Optional.of(Values.joinedCondition(doc, v, "until"));
                case "retries" -> retries = Optional.of(Values.count(doc, v, "retries"));
                case "delay" -> delay = Optional.of(Values.count(doc, v, "delay"));
                case "listen" -> {
                    if (!handler) {
                        throw doc.error(e.keyNode(), "'listen' is only for handlers; move this task under "
                                + "'handlers:' or remove 'listen'");
                    }
                    listen = Values.strings(doc, v, "listen");
                }
                default -> {
                    if (common(doc, e, own)) {
                        break;
                    }
                    String candidate = canonical(e.key());
                    if (!catalog.names().contains(candidate) && catalog.names().contains(collectionFree(candidate))) {
                        candidate = collectionFree(candidate);
                    }
                    if (!catalog.names().contains(candidate)) {
                        throw unknownModuleOrKeyword(doc, e);
                    }
                    if (moduleEntry != null) {
                        throw doc.error(e.keyNode(), "two modules in one task ('" + module + "' at line "
                                + doc.position(moduleEntry.keyNode()).line() + " and '" + candidate
                                + "'); split them into two tasks");
                    }
                    module = candidate;
                    moduleEntry = e;
                }
            }
        }
        if (moduleEntry == null) {
            String which = name.isEmpty() ? "task" : "task '" + name + "'";
            throw doc.error(mapping, which + " names no module; add one such as 'command: ...' or 'copy: ...'");
        }
        ParamSpec spec = catalog.spec(module).orElseGet(() -> ParamSpec.builder().anyKeys().build());
        Map<String, Object> args = new LinkedHashMap<>();
        Map<String, SourcePosition> argPositions = new LinkedHashMap<>();
        if (argsNode != null) {
            if (!(argsNode instanceof MappingNode argsMapping)) {
                throw doc.error(argsNode, "'args' must be a mapping of module parameters, not " + YamlDocument.describe(argsNode));
            }
            readArgs(doc, argsMapping, module, spec, args, argPositions);
        }
        Node moduleValue = moduleEntry.value();
        boolean keyValueForm = moduleValue instanceof ScalarNode plain && !YamlDocument.isNull(plain) && spec.freeForm().isEmpty()
                && KEY_VALUE_ARGS.matcher(plain.getValue()).matches();
        switch (moduleValue) {
            case MappingNode m -> readArgs(doc, m, module, spec, args, argPositions);
            case ScalarNode s when YamlDocument.isNull(s) -> {
            }
            case ScalarNode s when keyValueForm -> {
                // Ansible's k=v form ("copy: src=a dest=/b mode=0644"): the same as the mapping
                SourcePosition at = doc.position(s);
                for (String word : dev.provision.modules.text.ShellWords.split(Values.string(doc, s, module))) {
                    int eq = word.indexOf('=');
                    String key = word.substring(0, eq);
                    java.util.Optional<String> refusal = spec.lookup(key).isEmpty() && !word.contains("${")
                            ? spec.refusal(key, word.substring(eq + 1)) : java.util.Optional.empty();
                    if (refusal.isPresent()) {
                        throw new InvalidInputException(at, refusal.get() + " (module '" + module + "')");
                    }
                    if (spec.lookup(key).isEmpty() && !spec.acceptsAnyKeys() && !spec.refused().containsKey(key)) {
                        throw new InvalidInputException(at, "module '" + module + "' has no parameter '" + key + "' ("
                                + paramList(spec) + ")");
                    }
                    args.put(spec.lookup(key).map(ParamSpec.Param::name).orElse(key), word.substring(eq + 1));
                    argPositions.put(key, at);
                }
            }
            case ScalarNode s -> {
                if (spec.freeForm().isEmpty()) {
                    throw doc.error(s, "module '" + module + "' takes no free-form string; write its parameters as a "
                            + "mapping (" + paramList(spec) + ")");
                }
                args.put(Task.FREE_FORM, Values.string(doc, s, module));
                argPositions.put(Task.FREE_FORM, doc.position(s));
            }
            default -> throw doc.error(moduleValue, "the parameters of module '" + module + "' must be a mapping, not "
                    + YamlDocument.describe(moduleValue));
        }
        literalChoices(module, spec, args, argPositions);
        Optional<Loop> loop = Optional.empty();
        if (loopNode != null) {
            loop = Optional.of(loop(doc, loopNode, loopKeyword, loopControl));
        } else if (loopControl != null) {
            throw doc.error(loopControl, "'loop_control' without 'loop'; add 'loop:' or remove 'loop_control'");
        }
        asynchronous(doc, mapping, module, asyncSeconds, poll, own);
        Keywords effective = inherited.inherit(own);
        int retryCount = retries.orElse(until.isPresent() ? DEFAULT_UNTIL_RETRIES : 0);
        return new Task(name, module, args, argPositions, effective.freeze(), loop, register, notify,
                changedWhen, failedWhen, until, retryCount, delay.orElse(DEFAULT_DELAY_SECONDS), listen,
                src.baseDirectory(), src.role(), doc.position(mapping));
    }

    /** Modules whose plan is one program run, the only ones {@code poll: 0} can start in the background. */
    private static final Set<String> BACKGROUND_MODULES = Set.of("command", "shell", "raw");

    /**
     * Ansible's {@code async:}/{@code poll:}. Polled ({@code poll} above 0, 10 by default), the task runs
     * as any other, within {@code async} seconds (its time limit). With {@code poll: 0} its program
     * starts detached on the host, stopped after {@code async} seconds, and the task does not wait:
     * for {@code command}, {@code shell} and {@code raw} only (there is no {@code async_status} to ask
     * about it later).
     */
    private static void asynchronous(YamlDocument doc, MappingNode task, String module, Optional<Integer> asyncSeconds,
                                     Optional<Integer> poll, Keywords own) throws InvalidInputException {
        if (asyncSeconds.isEmpty()) {
            if (poll.isPresent()) {
                throw doc.error(task, "'poll' without 'async' does nothing; add 'async: SECONDS' or remove 'poll'");
            }
            return;
        }
        int seconds = asyncSeconds.get();
        if (seconds < 1) {
            throw doc.error(task, "'async' is the task's time limit in seconds and must be at least 1");
        }
        if (poll.orElse(10) > 0) {
            own.set(Keyword.TIMEOUT, Optional.of(own.get(Keyword.TIMEOUT).map(t -> Math.min(t, seconds)).orElse(seconds)));
            return;
        }
        if (!BACKGROUND_MODULES.contains(module)) {
            throw doc.error(task, "'poll: 0' starts a program in the background and forgets it: only command, shell and raw "
                    + "can; for '" + module + "' remove 'poll: 0' (the task then waits, at most 'async' seconds)");
        }
        own.set(Keyword.BACKGROUND_SECONDS, Optional.of(seconds));
    }

    /**
     * Ansible's {@code action:}/{@code local_action:} forms, {@code local_action: copy src=a dest=b} or
     * a mapping with {@code module: copy}, as the plain {@code copy:} entry they stand for; positions
     * stay those of what was written.
     */
    private static YamlDocument.Entry actionAsModule(YamlDocument doc, YamlDocument.Entry e) throws InvalidInputException {
        String hint = "; write '" + e.key() + ": MODULE ARGS' or a mapping with 'module: MODULE' and its parameters";
        switch (e.value()) {
            case ScalarNode s when !YamlDocument.isNull(s) -> {
                String text = Values.string(doc, s, e.key()).strip();
                String[] split = text.split("\\s+", 2);
                if (split[0].isEmpty()) {
                    throw doc.error(s, "'" + e.key() + "' names no module" + hint);
                }
                ScalarNode rest = new ScalarNode(org.yaml.snakeyaml.nodes.Tag.STR, split.length > 1 ? split[1] : "",
                        s.getStartMark(), s.getEndMark(), org.yaml.snakeyaml.DumperOptions.ScalarStyle.PLAIN);
                Node args = split.length > 1 ? rest : new ScalarNode(org.yaml.snakeyaml.nodes.Tag.NULL, "null",
                        s.getStartMark(), s.getEndMark(), org.yaml.snakeyaml.DumperOptions.ScalarStyle.PLAIN);
                return new YamlDocument.Entry(split[0], s, args);
            }
            case MappingNode m -> {
                String module = null;
                Node moduleNode = null;
                List<org.yaml.snakeyaml.nodes.NodeTuple> rest = new ArrayList<>();
                for (org.yaml.snakeyaml.nodes.NodeTuple t : m.getValue()) {
                    if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("module")) {
                        module = Values.string(doc, t.getValueNode(), "module");
                        moduleNode = t.getValueNode();
                    } else {
                        rest.add(t);
                    }
                }
                if (module == null) {
                    throw doc.error(m, "'" + e.key() + "' names no module" + hint);
                }
                return new YamlDocument.Entry(module, moduleNode, new MappingNode(org.yaml.snakeyaml.nodes.Tag.MAP, rest,
                        m.getFlowStyle()));
            }
            default -> throw doc.error(e.value(), "'" + e.key() + "' must name a module, not "
                    + YamlDocument.describe(e.value()) + hint);
        }
    }

    private void readArgs(YamlDocument doc, MappingNode mapping, String module, ParamSpec spec,
                          Map<String, Object> args, Map<String, SourcePosition> positions) throws InvalidInputException {
        for (YamlDocument.Entry e : doc.entries(mapping)) {
            if (spec.ignored().containsKey(e.key())) {
                warnings.add(doc.position(e.keyNode()) + ": module '" + module + "' ignores '" + e.key() + "', as Ansible does; "
                        + spec.ignored().get(e.key()));
                continue;
            }
            if (spec.refused().containsKey(e.key()) && spec.lookup(e.key()).isEmpty()) {
                Object value = doc.value(e.value());
                // A value still to be rendered is judged when the task is planned.
                if (!(value instanceof String text && text.contains("${"))) {
                    java.util.Optional<String> refusal = spec.refusal(e.key(), value);
                    if (refusal.isPresent()) {
                        throw doc.error(e.keyNode(), refusal.get() + " (module '" + module + "')");
                    }
                }
            } else if (!spec.acceptsAnyKeys() && spec.lookup(e.key()).isEmpty()) {
                Set<String> known = new TreeSet<>();
                spec.params().values().forEach(p -> {
                    known.add(p.name());
                    known.addAll(p.aliases());
                });
                String hint = Suggestions.closest(e.key(), List.copyOf(known)).map(s -> " (did you mean '" + s + "'?)")
                        .orElse("; it takes " + paramList(spec));
                throw doc.error(e.keyNode(), "unknown parameter '" + e.key() + "' for module '" + module + "'" + hint);
            }
            args.put(e.key(), doc.value(e.value()));
            positions.put(e.key(), doc.position(e.keyNode()));
        }
    }

    /**
     * A value written out (not templated) that is not one of its parameter's choices fails here, at
     * its line, before any host is contacted ({@code meta: clear_facts}, {@code state: latest} where
     * only present/absent are known), with the message the module's own check gives.
     */
    private static void literalChoices(String module, ParamSpec spec, Map<String, Object> args,
                                       Map<String, SourcePosition> positions) throws InvalidInputException {
        for (Map.Entry<String, Object> e : args.entrySet()) {
            String key = e.getKey().equals(Task.FREE_FORM) ? spec.freeForm().orElse(e.getKey()) : e.getKey();
            Optional<ParamSpec.Param> param = spec.lookup(key);
            if (param.isEmpty() || param.get().choices().isEmpty() || !(e.getValue() instanceof String text) || text.contains("${")) {
                continue;
            }
            if (!param.get().choices().contains(text)) {
                throw new InvalidInputException(positions.get(e.getKey()), "value of '" + param.get().name() + "' must be one of: "
                        + String.join(", ", param.get().choices()) + "; got '" + YamlDocument.printable(text) + "' (module '" + module + "')");
            }
        }
    }

    private static String paramList(ParamSpec spec) {
        return String.join(", ", new TreeSet<>(spec.params().keySet()));
    }

    private Loop loop(YamlDocument doc, Node node, String keyword, Node control) throws InvalidInputException {
        Loop.Lookup lookup = Loop.Lookup.of(keyword).orElseThrow();
        Object items = switch (node) {
            case SequenceNode s when lookup == Loop.Lookup.FIRST_FOUND -> firstFoundTerms(doc, s);
            case SequenceNode s when lookup == Loop.Lookup.SUBELEMENTS -> subelementsTerms(doc, s);
            case Node n when lookup == Loop.Lookup.SUBELEMENTS -> throw doc.error(n, "'with_subelements' takes a list: "
                    + "the elements (an expression), the key of each element's sub-list, and optionally {skip_missing: true}; not "
                    + YamlDocument.describe(n));
            case SequenceNode s when lookup != Loop.Lookup.DICT -> {
                Object value = doc.value(s);
                yield keyword.equals("with_items") ? flattenOnce((List<?>) value) : value;
            }
            case MappingNode m when lookup == Loop.Lookup.DICT -> doc.value(m);
            case MappingNode m when lookup == Loop.Lookup.FIRST_FOUND -> firstFoundTerms(doc, m);
            case ScalarNode s when !YamlDocument.isNull(s) && lookup == Loop.Lookup.FILEGLOB
                    && !Values.string(doc, s, keyword).contains("${") -> List.of(Values.string(doc, s, keyword));
            case ScalarNode s when !YamlDocument.isNull(s) -> Values.string(doc, s, keyword);
            default -> throw doc.error(node, "'" + keyword + "' must be "
                    + (lookup == Loop.Lookup.DICT ? "a mapping" : "a list") + " or an expression that gives one, not "
                    + YamlDocument.describe(node));
        };
        String loopVar = "item";
        String label = "";
        if (control != null) {
            if (!(control instanceof MappingNode m)) {
                throw doc.error(control, "'loop_control' must be a mapping (loop_var, label), not "
                        + YamlDocument.describe(control));
            }
            for (YamlDocument.Entry e : doc.entries(m)) {
                switch (e.key()) {
                    case "loop_var" -> {
                        loopVar = Values.string(doc, e.value(), "loop_var");
                        if (!dev.provision.modules.text.ShellWords.isName(loopVar)) {
                            throw doc.error(e.value(), "'loop_var' needs a variable name (letters, digits, '_'), not '"
                                    + loopVar + "'");
                        }
                    }
                    case "label" -> label = Values.string(doc, e.value(), "label");
                    case "index_var", "pause", "extended", "extended_allitems", "break_when" ->
                            throw doc.error(e.keyNode(), "'loop_control." + e.key() + "' is not supported yet; remove it");
                    default -> throw doc.error(e.keyNode(), "unknown key '" + e.key() + "' in 'loop_control'"
                            + suggestion(e.key(), LOOP_CONTROL_KEYS) + "; it takes loop_var and label");
                }
            }
        }
        return new Loop(items, lookup, loopVar, label, doc.position(node));
    }

    private static final List<String> FIRST_FOUND_KEYS = List.of("files", "paths", "skip");

    /**
     * {@code with_subelements}' terms as written: the elements, a key path (dotted) and the optional
     * flags, checked here so that a wrong shape fails before any host is contacted.
     */
    private static List<Object> subelementsTerms(YamlDocument doc, SequenceNode node) throws InvalidInputException {
        List<Node> terms = node.getValue();
        if (terms.size() < 2 || terms.size() > 3) {
            throw doc.error(node, "'with_subelements' takes 2 or 3 items (the elements, the key of each element's "
                    + "sub-list, optionally {skip_missing: true}), not " + terms.size());
        }
        List<Object> out = new ArrayList<>();
        out.add(doc.value(terms.get(0)));
        out.add(Values.string(doc, terms.get(1), "with_subelements key"));
        boolean skipMissing = false;
        if (terms.size() == 3) {
            if (!(terms.get(2) instanceof MappingNode flags)) {
                throw doc.error(terms.get(2), "the third item of 'with_subelements' must be {skip_missing: true}, not "
                        + YamlDocument.describe(terms.get(2)));
            }
            for (YamlDocument.Entry e : doc.entries(flags)) {
                if (!e.key().equals("skip_missing")) {
                    throw doc.error(e.keyNode(), "unknown flag '" + e.key() + "' for 'with_subelements'; it takes skip_missing");
                }
                skipMissing = Values.bool(doc, e.value(), "skip_missing");
            }
        }
        out.add(Map.of("skip_missing", skipMissing));
        return out;
    }

    /**
     * {@code with_first_found}'s terms as written: file names, or mappings of {@code files},
     * {@code paths} (lists, or comma-separated strings as Ansible allows) and {@code skip}; each
     * mapping is checked here, so that a misspelt key fails before any host is contacted.
     */
    private static List<Object> firstFoundTerms(YamlDocument doc, Node node) throws InvalidInputException {
        List<Node> terms = node instanceof SequenceNode s ? s.getValue() : List.of(node);
        List<Object> out = new ArrayList<>();
        for (Node term : terms) {
            if (term instanceof MappingNode m) {
                Map<String, Object> spec = new LinkedHashMap<>();
                for (YamlDocument.Entry e : doc.entries(m)) {
                    switch (e.key()) {
                        case "files", "paths" -> spec.put(e.key(), e.value() instanceof SequenceNode
                                ? Values.strings(doc, e.value(), e.key()) : List.of(Values.string(doc, e.value(), e.key()).split("[,;:]")));
                        case "skip" -> spec.put("skip", Values.bool(doc, e.value(), "skip"));
                        default -> throw doc.error(e.keyNode(), "unknown key '" + e.key() + "' in 'with_first_found'"
                                + suggestion(e.key(), FIRST_FOUND_KEYS) + "; it takes files, paths and skip");
                    }
                }
                if (!spec.containsKey("files")) {
                    throw doc.error(m, "'with_first_found' needs 'files:' (the names to look for, first found wins)");
                }
                out.add(spec);
            } else if (term instanceof ScalarNode s && !YamlDocument.isNull(s)) {
                out.add(Values.string(doc, s, "with_first_found"));
            } else {
                throw doc.error(term, "'with_first_found' takes file names or a mapping of files, paths and skip, not "
                        + YamlDocument.describe(term));
            }
        }
        return out;
    }

    /** Ansible's {@code with_items} flattens one level of nested lists. */
    private static List<Object> flattenOnce(List<?> items) {
        List<Object> flat = new ArrayList<>();
        for (Object item : items) {
            if (item instanceof List<?> inner) {
                flat.addAll(inner);
            } else {
                flat.add(item);
            }
        }
        return flat;
    }

    /** Reads one of {@link Keywords#NAMES} into {@code into}; false when the key is not one of them. */
    static boolean common(YamlDocument doc, YamlDocument.Entry e, Keywords into) throws InvalidInputException {
        return into.read(doc, e);
    }

    private InvalidInputException unknownModuleOrKeyword(YamlDocument doc, YamlDocument.Entry e) {
        String key = e.key();
        if (NOT_SUPPORTED.containsKey(key)) {
            return doc.error(e.keyNode(), "'" + key + "' is not supported yet; " + NOT_SUPPORTED.get(key));
        }
        if (key.startsWith("with_")) {
            return doc.error(e.keyNode(), "'" + key + "' is not supported; use 'loop:' instead");
        }
        List<String> candidates = new ArrayList<>(TASK_KEYWORDS);
        candidates.addAll(Keywords.NAMES);
        candidates.addAll(new TreeSet<>(catalog.names()));
        return doc.error(e.keyNode(), "unknown module or keyword '" + key + "'"
                + Suggestions.closest(canonical(key), candidates).map(s -> " (did you mean '" + s + "'?)")
                .orElse("; check its spelling"));
    }

    /**
     * An unknown keyword, with a suggestion when one is close, else the list of what is allowed.
     *
     * @param allowed most used first: on a tie in edit distance the first candidate is suggested
     */
    static InvalidInputException unknownKeyword(YamlDocument doc, YamlDocument.Entry e, List<String> allowed, String where) {
        String key = e.key();
        if (NOT_SUPPORTED.containsKey(key)) {
            return doc.error(e.keyNode(), "'" + key + "' is not supported yet; " + NOT_SUPPORTED.get(key));
        }
        String hint = suggestion(key, allowed);
        return doc.error(e.keyNode(), "unknown keyword '" + key + "' in " + where
                + (hint.isEmpty() ? "; it takes " + String.join(", ", new TreeSet<>(allowed)) : hint));
    }

    /** {@code " (did you mean 'x'?)"} or nothing; candidates in a fixed order so that ties are stable. */
    static String suggestion(String typed, List<String> candidates) {
        return Suggestions.closest(typed, candidates).map(s -> " (did you mean '" + s + "'?)").orElse("");
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** {@code ansible.builtin.copy} and {@code ansible.legacy.copy} are {@code copy}. */
    /** {@code key=value} words, as Ansible's k=v module arguments (quoted values allowed). */
    private static final java.util.regex.Pattern KEY_VALUE_ARGS =
            java.util.regex.Pattern.compile("\\s*[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\\S*)(?:\\s+[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\\S*))*\\s*");

    /**
     * A module of a collection that provision has under its own name with the same meaning:
     * {@code ansible.posix.sysctl}, {@code community.general.*} (the caller checks that it exists).
     */
    static String collectionFree(String key) {
        for (String prefix : List.of("ansible.posix.", "community.general.")) {
            if (key.startsWith(prefix)) {
                return key.substring(prefix.length());
            }
        }
        return key;
    }

    static String canonical(String key) {
        for (String prefix : List.of("ansible.builtin.", "ansible.legacy.")) {
            if (key.startsWith(prefix)) {
                return key.substring(prefix.length());
            }
        }
        return key;
    }
}
