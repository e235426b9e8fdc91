package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads one role into tasks and handlers: for a play's {@code roles:} entry and for
 * {@code import_role}/{@code include_role} among tasks alike (both static here). A role is
 * {@code roles/NAME} beside the playbook, else {@code NAME} in a directory of the roles path
 * ({@code --roles-path}, {@code ANSIBLE_ROLES_PATH}, {@code ansible.cfg}'s {@code roles_path}), else
 * {@code NAME} beside the playbook, else (from inside a role) a sibling of that role; a name that is absolute or backs out with {@code ..} is refused.
 */
final class RoleLoader {
    /**
     * Which files of the role to read: {@code main} unless {@code tasks_from}, {@code vars_from},
     * {@code defaults_from} or {@code handlers_from} name another ({@code setup} finds {@code setup.yml}).
     */
    record FileNames(String tasks, String vars, String defaults, String handlers) {
        static final FileNames MAIN = new FileNames("main", "main", "main", "main");
    }

    /**
     * Where a role is wanted from: the playbook's directory, the role whose task asks for it (if any),
     * and the chain of files being read (a role that imports itself, directly or not, is a cycle).
     */
    record Origin(YamlDocument doc, Node at, Path playbookDirectory, Optional<Path> askingRole, List<Path> chain) {
        Origin {
            chain = List.copyOf(chain);
            requireNonNull(doc, "doc cannot be null");
            requireNonNull(at, "at cannot be null");
            requireNonNull(playbookDirectory, "playbookDirectory cannot be null");
            requireNonNull(askingRole, "askingRole cannot be null");
        }
    }

    private static final java.util.Set<String> ROLE_ENTRY_KEYWORDS = java.util.Set.of("role", "name");

    private final TaskParser tasks;
    private final List<Path> rolesPath;
    /** The play's roles and their dependencies so far (directory, files and parameters): each runs once. */
    private final java.util.Set<String> playRoles = new java.util.HashSet<>();

    RoleLoader(TaskParser tasks, List<Path> rolesPath) {
        this.tasks = requireNonNull(tasks, "tasks cannot be null");
        this.rolesPath = List.copyOf(rolesPath);
    }

    /** A new play: its {@code roles:} and their dependencies are counted afresh. */
    void newPlay() {
        playRoles.clear();
    }

    /**
     * A list of role entries: a play's {@code roles:} or a role's {@code meta/main.yml}
     * {@code dependencies:}. Each is a name or a mapping with {@code role:} (or {@code name:}), keywords
     * ({@code when}, {@code tags}, {@code vars}, ...) and role parameters. As in Ansible, a role (with the
     * same parameters) that the play already has runs once, unless its meta says
     * {@code allow_duplicates: true}.
     */
    void entries(YamlDocument doc, SequenceNode seq, Path playbookDirectory, Optional<Path> askingRole, List<Path> chain,
                 Keywords inherited, List<TaskNode> into, List<Task> handlersInto) throws InvalidInputException {
        for (Node item : seq.getValue()) {
            Keywords own = new Keywords();
            Map<String, Object> params = new LinkedHashMap<>();
            Node nameNode;
            if (item instanceof org.yaml.snakeyaml.nodes.ScalarNode) {
                nameNode = item;
            } else if (item instanceof MappingNode m) {
                nameNode = null;
                for (YamlDocument.Entry e : doc.entries(m)) {
                    if (ROLE_ENTRY_KEYWORDS.contains(e.key())) {
                        if (nameNode != null) {
                            throw doc.error(e.keyNode(), "a role entry names its role once; use 'role:' only");
                        }
                        nameNode = e.value();
                    } else if (!TaskParser.common(doc, e, own)) {
                        params.put(e.key(), doc.value(e.value()));
                    }
                }
                if (nameNode == null) {
                    throw doc.error(item, "role entry has no 'role:'; add 'role: NAME'");
                }
            } else {
                throw doc.error(item, "a role entry must be a name or a mapping with 'role:', not " + YamlDocument.describe(item));
            }
            String name = Values.string(doc, nameNode, "role");
            if (name.contains("${") || name.contains("{{")) {
                throw doc.error(nameNode, "a templated role name is not supported; write a fixed name");
            }
            load(new Origin(doc, nameNode, playbookDirectory, askingRole, chain), name, own, params, inherited,
                    FileNames.MAIN, into, handlersInto, true);
        }
    }

    void load(Origin origin, String name, Keywords entry, Map<String, Object> params, Keywords inherited, FileNames files,
              List<TaskNode> into, List<Task> handlersInto) throws InvalidInputException {
        load(origin, name, entry, params, inherited, files, into, handlersInto, false);
    }

    /**
     * Appends the role's tasks to {@code into} and its handlers to {@code handlersInto}.
     *
     * @param entry the keywords written on the role entry or include; its vars join the role's vars
     * @param params role parameters (keys of a {@code roles:} entry that are not keywords)
     * @param inherited what the entry itself inherits (the play's, or the enclosing blocks')
     */
    private void load(Origin origin, String name, Keywords entry, Map<String, Object> params, Keywords inherited,
                      FileNames files, List<TaskNode> into, List<Task> handlersInto, boolean onceInPlay)
            throws InvalidInputException {
        YamlDocument doc = origin.doc();
        Located located = locate(origin, name);
        Path roleDir = located.directory().orElseThrow(() -> doc.error(origin.at(), "role '" + name
                + "' not found; looked in " + String.join(", ", located.looked())));
        Optional<Path> metaFile = file(roleDir.resolve("meta"), "main");
        Optional<YamlDocument> meta = metaFile.isPresent() ? Optional.of(YamlDocument.read(metaFile.get(), "role meta")) : Optional.empty();
        if (onceInPlay) {
            String key = roleDir.toAbsolutePath().normalize() + " " + files + " " + new java.util.TreeMap<>(entry.get(Keyword.VARS)) + " "
                    + new java.util.TreeMap<>(params);
            if (!playRoles.add(key) && !metaFlag(meta, "allow_duplicates")) {
                return; // the play has it already (Ansible runs a role once per play)
            }
        }
        Map<String, Object> defaults = optionalMapping(doc, origin.at(), roleDir.resolve("defaults"), files.defaults(),
                !files.defaults().equals("main"));
        Map<String, Object> roleVars = optionalMapping(doc, origin.at(), roleDir.resolve("vars"), files.vars(),
                !files.vars().equals("main"));
        roleVars.putAll(entry.get(Keyword.VARS));
        roleVars.putAll(params);
        RoleContext context = new RoleContext(name, roleDir.toAbsolutePath().normalize(), defaults, roleVars);
        // role vars live in the RoleContext; keep them out of each task's vars
        Keywords pushed = new Keywords().inherit(entry);
        pushed.clear(Keyword.VARS);
        Keywords below = inherited.inherit(pushed);
        Optional<SequenceNode> dependencies = dependencies(meta);
        if (dependencies.isPresent()) {
            Path metaPath = metaFile.orElseThrow().toAbsolutePath().normalize();
            if (origin.chain().contains(metaPath)) {
                throw doc.error(origin.at(), "role dependency cycle: role '" + name + "' depends on itself through "
                        + metaPath);
            }
            List<Path> chain = new ArrayList<>(origin.chain());
            chain.add(metaPath);
            // the role entry's keywords (when, tags, become, ...) apply to what it depends on too
            entries(meta.orElseThrow(), dependencies.get(), origin.playbookDirectory(), Optional.of(roleDir), chain, below,
                    into, handlersInto);
        }
        Optional<Path> tasksFile = file(roleDir.resolve("tasks"), files.tasks());
        if (tasksFile.isEmpty() && !files.tasks().equals("main")) {
            throw doc.error(origin.at(), "role '" + name + "' has no tasks file '" + files.tasks() + "' (looked for "
                    + files.tasks() + ".yml and " + files.tasks() + ".yaml in " + roleDir.resolve("tasks").toAbsolutePath().normalize() + ")");
        }
        if (tasksFile.isPresent() && origin.chain().contains(tasksFile.get().toAbsolutePath().normalize())) {
            throw doc.error(origin.at(), "role cycle: role '" + name + "' is imported again while its tasks ("
                    + tasksFile.get().getFileName() + ") are being read; remove one of the imports");
        }
        if (tasksFile.isPresent()) {
            into.addAll(roleTasks(origin, tasksFile.get(), roleDir, context, below, false, handlersInto));
        }
        Optional<Path> handlersFile = file(roleDir.resolve("handlers"), files.handlers());
        if (handlersFile.isPresent()) {
            for (TaskNode handler : roleTasks(origin, handlersFile.get(), roleDir, context, below, true, handlersInto)) {
                handlersInto.add((Task) handler);
            }
        }
    }

    /** Where a role was looked for, and the directory found (the first that exists), if any. */
    record Located(Optional<Path> directory, List<String> looked) {
        Located {
            requireNonNull(directory, "directory cannot be null");
            looked = List.copyOf(looked);
        }
    }

    /** Finds the role's directory in the order the class comment gives. */
    Located locate(Origin origin, String name) throws InvalidInputException {
        Path relative = roleName(origin.doc(), origin.at(), name);
        LinkedHashSet<Path> candidates = new LinkedHashSet<>();
        candidates.add(origin.playbookDirectory().resolve("roles").resolve(relative));
        rolesPath.forEach(dir -> candidates.add(dir.resolve(relative)));
        candidates.add(origin.playbookDirectory().resolve(relative));
        origin.askingRole().map(Path::getParent).ifPresent(siblings -> candidates.add(siblings.resolve(relative)));
        List<String> looked = candidates.stream().map(p -> p.toAbsolutePath().normalize().toString()).toList();
        return new Located(candidates.stream().filter(Files::isDirectory).findFirst(), looked);
    }

    /**
     * The role's directory relative to a roles directory: a name that is absolute or backs out with
     * {@code ..} would read tasks, vars and templates from anywhere on the controller.
     */
    private static Path roleName(YamlDocument doc, Node at, String name) throws InvalidInputException {
        Path relative = TaskParser.resolve(doc, at, Path.of(""), name).normalize();
        if (relative.isAbsolute() || relative.startsWith("..") || relative.toString().isEmpty()) {
            throw doc.error(at, "role '" + YamlDocument.printable(name) + "' is not allowed: a role is a directory "
                    + "under roles/ or beside the playbook, named without '..' or a leading '/'");
        }
        return relative;
    }

    private List<? extends TaskNode> roleTasks(Origin origin, Path file, Path roleDir, RoleContext context,
                                               Keywords inherited, boolean handlers, List<Task> handlersInto)
            throws InvalidInputException {
        YamlDocument doc = YamlDocument.read(file, handlers ? "handlers" : "task");
        if (doc.root().isEmpty()) {
            return List.of();
        }
        Node root = doc.root().get();
        if (!(root instanceof SequenceNode)) {
            throw doc.error(root, "a task file must be a list of tasks (each starting with '- '), not "
                    + YamlDocument.describe(root));
        }
        List<Path> chain = new ArrayList<>(origin.chain());
        chain.add(file.toAbsolutePath().normalize());
        TaskParser.Source source = new TaskParser.Source(doc, roleDir.toAbsolutePath().normalize(), Optional.of(context),
                List.of(roleDir.resolve("tasks")), chain,
                origin.playbookDirectory(), handlersInto);
        return handlers ? tasks.handlers(source, root, inherited) : tasks.tasks(source, root, inherited, "tasks");
    }

    private static Optional<SequenceNode> dependencies(Optional<YamlDocument> meta) throws InvalidInputException {
        if (meta.isPresent() && meta.get().root().isPresent() && meta.get().root().get() instanceof MappingNode m) {
            for (YamlDocument.Entry e : meta.get().entries(m)) {
                if (e.key().equals("dependencies")) {
                    if (e.value() instanceof SequenceNode s) {
                        return s.getValue().isEmpty() ? Optional.empty() : Optional.of(s);
                    }
                    if (!YamlDocument.isNull(e.value())) {
                        throw meta.get().error(e.value(), "'dependencies' must be a list of roles, not " + YamlDocument.describe(e.value()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static boolean metaFlag(Optional<YamlDocument> meta, String key) throws InvalidInputException {
        if (meta.isPresent() && meta.get().root().isPresent() && meta.get().root().get() instanceof MappingNode m) {
            for (YamlDocument.Entry e : meta.get().entries(m)) {
                if (e.key().equals(key)) {
                    return Values.bool(meta.get(), e.value(), key);
                }
            }
        }
        return false;
    }

    private static Map<String, Object> optionalMapping(YamlDocument origin, Node at, Path dir, String name, boolean required)
            throws InvalidInputException {
        Optional<Path> file = file(dir, name);
        if (file.isEmpty()) {
            if (required) {
                throw origin.error(at, "role file '" + name + "' not found (looked for " + name + ".yml and " + name
                        + ".yaml in " + dir.toAbsolutePath().normalize() + ")");
            }
            return new LinkedHashMap<>();
        }
        YamlDocument doc = YamlDocument.read(file.get(), "vars");
        return doc.root().isPresent() ? doc.mapping(doc.root().get(), "a role vars file") : new LinkedHashMap<>();
    }

    /** {@code DIR/NAME.yml}, else {@code DIR/NAME.yaml}, else {@code DIR/NAME} when it is written with its extension. */
    private static Optional<Path> file(Path dir, String name) {
        List<String> names = new ArrayList<>(List.of(name + ".yml", name + ".yaml"));
        if (name.endsWith(".yml") || name.endsWith(".yaml")) {
            names.add(0, name);
        }
        for (String candidateName : names) {
            Path candidate = dir.resolve(candidateName).normalize();
            if (candidate.startsWith(dir.normalize()) && Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
