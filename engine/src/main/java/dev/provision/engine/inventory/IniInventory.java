package dev.provision.engine.inventory;

import dev.provision.engine.inventory.InventoryBuilder.GroupDraft;
import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.modules.spi.Suggestions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Ansible's INI inventory format, as its {@code ini} inventory plugin does.
 *
 * <ul>
 *   <li>Lines whose first non-blank character is {@code #} or {@code ;} are comments.</li>
 *   <li>{@code [name]} starts the hosts of group {@code name}, {@code [name:children]} its child groups
 *       (one per line), {@code [name:vars]} its variables ({@code key=value}, one per line). Hosts before
 *       the first header belong to {@code ungrouped}.</li>
 *   <li>A host line is a name or a {@link HostRanges range}, optionally {@code :PORT}, then
 *       {@code key=value} words split like a shell would ({@link ShellWords}); an unquoted {@code #}
 *       ends it.</li>
 *   <li>Every value, inline or under {@code :vars}, is read as a {@link PythonLiteral Python literal}
 *       ({@code 5} is a number, {@code True} a boolean, {@code "'5'"} the text 5), text otherwise.
 *       Note that Ansible's documentation says {@code :vars} values are always strings; its code, and
 *       {@code ansible-inventory}, say otherwise, and we do what it does.</li>
 *   <li>A group named under {@code :children} or given {@code :vars} must be declared by a
 *       {@code [name]} or {@code [name:children]} section somewhere in the file, before or after.</li>
 * </ul>
 */
final class IniInventory {
    private static final Pattern SECTION = Pattern.compile("\\[([^:\\]\\s]+)(?::(\\w+))?\\]\\s*(?:#.*)?");
    private static final Pattern GROUP_NAME = Pattern.compile("([^:\\]\\s]+)\\s*(?:#.*)?");
    private static final List<String> KINDS = List.of("hosts", "children", "vars");

    private enum Kind { HOSTS, CHILDREN, VARS }

    /** A group named before its declaration; an error if the file never declares it. */
    private static final class Pending {
        final Kind kind;
        final SourcePosition position;
        final List<GroupDraft> parents = new ArrayList<>();

        Pending(Kind kind, SourcePosition position) {
            this.kind = kind;
            this.position = position;
        }
    }

    private final String file;
    private final InventoryBuilder builder;
    private final Map<String, Pending> pending = new LinkedHashMap<>();
    private GroupDraft group;
    private Kind kind = Kind.HOSTS;
    private int lineNumber;

    private IniInventory(Path file, InventoryBuilder builder) {
        this.file = file.toString();
        this.builder = builder;
        this.group = builder.groups.get(InventoryBuilder.UNGROUPED);
    }

    /** Reads one INI file's text into the builder; every error names file:line:column. */
    static void read(Path file, String text, InventoryBuilder builder) throws InvalidInputException {
        IniInventory reader = new IniInventory(file, builder);
        for (String line : text.lines().toList()) {
            reader.lineNumber++;
            reader.line(line);
        }
        reader.checkDeclared();
    }

    private void line(String line) throws InvalidInputException {
        String content = line.strip();
        if (content.isEmpty() || content.startsWith("#") || content.startsWith(";")) {
            return;
        }
        int indent = line.indexOf(content.charAt(0));
        Matcher section = SECTION.matcher(content);
        if (section.matches()) {
            header(section, indent);
        } else if (content.startsWith("[") && content.endsWith("]")) {
            throw error(indent, "malformed section header '" + content + "'; write [group], [group:vars] or"
                    + " [group:children], with no spaces inside the brackets");
        } else {
            switch (kind) {
                case HOSTS -> hostLine(line);
                case VARS -> varLine(content, indent);
                case CHILDREN -> childLine(content, indent);
            }
        }
    }

    private void header(Matcher section, int indent) throws InvalidInputException {
        String name = section.group(1);
        String written = section.group(2) == null ? "hosts" : section.group(2);
        if (!KINDS.contains(written)) {
            throw error(indent + section.start(2), "unknown section kind ':" + written + "' in [" + name + ":"
                    + written + "]" + Suggestions.closest(written, KINDS).map(s -> " (did you mean ':" + s + "'?)").orElse("")
                    + "; a section is [group], [group:vars] or [group:children]");
        }
        kind = Kind.valueOf(written.toUpperCase(Locale.ROOT));
        SourcePosition at = position(indent + 1);
        if (!builder.groups.containsKey(name) && kind == Kind.VARS && !pending.containsKey(name)) {
            pending.put(name, new Pending(Kind.VARS, at)); // [g:vars] alone does not declare g
        }
        group = builder.group(name, at);
        Pending waiting = pending.get(name);
        if (waiting != null && kind != Kind.VARS) {
            declared(name);
        }
    }

    /** A group named earlier is declared now: link it to the parents that named it. */
    private void declared(String name) throws InvalidInputException {
        Pending waiting = pending.remove(name);
        for (GroupDraft parent : waiting.parents) {
            builder.addChild(parent, builder.groups.get(name), waiting.position);
        }
    }

    private void hostLine(String line) throws InvalidInputException {
        List<ShellWords.Word> words;
        try {
            words = ShellWords.split(line);
        } catch (ShellWords.MalformedException bad) {
            throw error(bad.column() - 1, bad.getMessage());
        }
        if (words.isEmpty()) {
            return; // only characters that Java strips but the shell does not
        }
        ShellWords.Word first = words.getFirst();
        String written = first.text();
        HostPattern pattern;
        try {
            pattern = HostPattern.parse(written);
        } catch (IllegalArgumentException bad) {
            throw error(first.column() - 1, "bad host range '" + written + "': " + bad.getMessage());
        }
        if (written.endsWith(":") && pattern.port().isEmpty()) {
            throw error(first.column() - 1, "host '" + written + "' ends in ':', which must be followed by a port"
                    + " (node1:2222)");
        }
        if (written.equals("---")) {
            throw error(first.column() - 1, "'---' starts a YAML document, but this file reads as INI (its first line"
                    + " is a section header or a host); write the whole file in one format");
        }
        for (String name : pattern.names()) {
            try {
                HostNames.check(name);
            } catch (IllegalArgumentException bad) {
                throw error(first.column() - 1, bad.getMessage());
            }
        }
        Map<String, Object> vars = new LinkedHashMap<>();
        for (ShellWords.Word word : words.subList(1, words.size())) {
            int equals = word.text().indexOf('=');
            if (equals < 0) {
                throw error(word.column() - 1, "expected key=value after host '" + written + "', got '" + word.text()
                        + "' (quote values that hold blanks: key=\"a b\")");
            }
            if (equals == 0) {
                throw error(word.column() - 1, "'" + word.text() + "' has no variable name before '='");
            }
            String key = word.text().substring(0, equals);
            vars.put(key, value(key, word.text().substring(equals + 1), word.column() + equals + 1));
        }
        for (String name : pattern.names()) {
            builder.addHost(group, name, position(first.column()), vars, pattern.port());
        }
    }

    private void varLine(String content, int indent) throws InvalidInputException {
        int equals = content.indexOf('=');
        if (equals < 0) {
            throw error(indent, "expected key=value in [" + group.name + ":vars], got '" + content + "'");
        }
        String key = content.substring(0, equals).strip();
        if (key.isEmpty()) {
            throw error(indent, "'" + content + "' has no variable name before '='");
        }
        String rest = content.substring(equals + 1);
        String value = rest.strip();
        int valueColumn = indent + equals + 1 + (rest.length() - rest.stripLeading().length()) + 1;
        group.vars.put(key, value(key, value, valueColumn));
    }

    private void childLine(String content, int indent) throws InvalidInputException {
        Matcher m = GROUP_NAME.matcher(content);
        if (!m.matches()) {
            throw error(indent, "expected a group name in [" + group.name + ":children], got '" + content + "'");
        }
        String child = m.group(1);
        SourcePosition at = position(indent + 1);
        GroupDraft known = builder.groups.get(child);
        if (known != null) {
            builder.addChild(group, known, at);
            return;
        }
        pending.computeIfAbsent(child, c -> new Pending(Kind.CHILDREN, at)).parents.add(group);
    }

    /** A value as Ansible reads it; {@code column} is where it starts, 1-based. */
    private Object value(String key, String text, int column) throws InvalidInputException {
        Object value;
        try {
            value = PythonLiteral.read(text);
            HostNames.checkVariable(key, value);
        } catch (IllegalArgumentException bad) {
            throw error(column - 1, bad.getMessage());
        }
        return value;
    }

    private void checkDeclared() throws InvalidInputException {
        for (var entry : pending.entrySet()) {
            String name = entry.getKey();
            Pending waiting = entry.getValue();
            if (waiting.kind == Kind.VARS) {
                throw new InvalidInputException(waiting.position, "[" + name + ":vars] sets variables of group '"
                        + name + "', which no [" + name + "] or [" + name + ":children] section declares");
            }
            String parent = waiting.parents.getFirst().name;
            String what = builder.hosts.containsKey(name)
                    ? "'" + name + "' is a host, not a group; hosts go under [" + parent + "]"
                    : "no [" + name + "] or [" + name + ":children] section declares group '" + name
                    + "'; declare it (an empty [" + name + "] section will do)";
            throw new InvalidInputException(waiting.position, "[" + parent + ":children] lists '" + name + "', but "
                    + what);
        }
    }

    private SourcePosition position(int column) {
        return new SourcePosition(file, lineNumber, column);
    }

    /** An error at a 0-based index into the current line. */
    private InvalidInputException error(int index, String problem) {
        return new InvalidInputException(position(index + 1), problem);
    }
}
