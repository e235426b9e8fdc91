package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import dev.provision.engine.source.TextFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * One YAML file read as a tree of snakeyaml nodes, with what every loader of user files needs: the
 * {@link SourcePosition} of each node, mapping entries in order with duplicate keys rejected and
 * {@code <<} merge keys applied, and conversion of a node to plain Java values.
 *
 * <p>Scalars resolve as YAML 1.1 (what Ansible users expect): {@code true/false/yes/no/on/off} are
 * {@link Boolean}s, integers are {@link Integer} (or {@link Long} when too large), floats
 * {@link Double}, {@code ~}/{@code null}/empty are {@code null} (only as values: map values and list
 * items may be null in the converted tree, keys never are), everything else a {@link String}. One
 * deliberate difference: an integer written with a leading zero ({@code 0644}) stays the string
 * {@code "0644"}, because in this domain it is a file mode far more often than an octal number.
 * Mappings convert to {@link LinkedHashMap} (keys are strings), sequences to {@link ArrayList}.
 *
 * <p>Every problem is an {@link InvalidInputException} whose message is one line; a document read
 * {@link #readWithoutQuoting without quoting} never puts a piece of the file in it. Instances are
 * immutable; not thread-safe to share while converting (they hold no state, but snakeyaml nodes are
 * mutable objects).
 */
public final class YamlDocument {
    /** Levels of nesting, aliases followed: deep enough for any real file, far from the end of the stack. */
    private static final int MAX_DEPTH = 64;
    /** A real file reads in milliseconds; see {@link TimedReader} for what takes longer. */
    private static final Duration MAX_READING = Duration.ofSeconds(10);
    private static final Pattern LEADING_ZERO_INT = Pattern.compile("[-+]?0[0-9_]+");
    /**
     * A word snakeyaml quotes from the file in its problem (an alias, a tag, an escape, what it found
     * instead of what it expected); one without a letter or a digit (a tab, a '?') tells nothing of
     * the file and helps find the mistake, and {@code '<scalar>'} is a token's name.
     */
    private static final Pattern FILE_WORD = Pattern.compile("(?<=undefined alias |undefined tag handle |unknown escape"
            + " character |but found |but found: |not allowed: |found character '|Do not use )"
            + "(?!'?<[\\w ]+>|\\\\t\\(TAB\\))'?[^\\s']*[\\p{L}\\p{N}][^\\s']*'?");

    private final String displayName;
    private final Path file;
    private final Optional<Node> root;
    private final boolean quotesContent;

    private YamlDocument(Path file, Optional<Node> root, boolean quotesContent) {
        this.file = file;
        this.displayName = file.toString();
        this.root = root;
        this.quotesContent = quotesContent;
    }

    /**
     * Reads and parses one file holding at most one YAML document.
     *
     * @param file shown in positions as given (keep it relative when the user gave it relative)
     * @param what what the file is, for the not-found message ({@code "playbook"}, {@code "inventory"})
     * @throws InvalidInputException when the file cannot be read or is not valid YAML
     */
    public static YamlDocument read(Path file, String what) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(what, "what cannot be null");
        return parse(file, TextFiles.read(file, what), true);
    }

    /**
     * As {@link #read}, for a file that may be anything a path names ({@code include_vars: /etc/shadow}):
     * its errors say where and what was expected, never what is there: no key, value, alias, tag or
     * line of the file.
     */
    public static YamlDocument readWithoutQuoting(Path file, String what) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(what, "what cannot be null");
        return parse(file, TextFiles.read(file, what), false);
    }

    /** Parses text as if it had been read from {@code file} (positions name {@code file}). */
    public static YamlDocument parse(Path file, String text) throws InvalidInputException {
        return parse(file, text, true);
    }

    private static YamlDocument parse(Path file, String text, boolean quotesContent) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(text, "text cannot be null");
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        options.setCodePointLimit(TextFiles.MAX_BYTES);
        // The composer recurses once per level; this keeps it far from the end of the stack.
        options.setNestingDepthLimit(MAX_DEPTH);
        // What aliases cost is bounded by Expansion below; a bare count would refuse inventories that
        // give a few hundred hosts '<<: *defaults'.
        options.setMaxAliasesForCollections(Integer.MAX_VALUE);
        MarkTrackingParser parser = new MarkTrackingParser(
                new ParserImpl(new StreamReader(new TimedReader(text, MAX_READING)), options));
        Node node;
        try {
            node = new Composer(parser, new Resolver(), options).getSingleNode();
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            SourcePosition at = mark == null ? parser.position(file) : positionOf(file, mark);
            String problem = e.getProblem() != null ? e.getProblem() : String.valueOf(e.getContext());
            String context = e.getContext() != null && e.getProblem() != null ? " (" + e.getContext() + ")" : "";
            // the problem and its context only: snakeyaml's full message adds the line itself
            String said = oneLine(problem + context);
            throw new InvalidInputException(at, "invalid YAML: " + (quotesContent ? said : FILE_WORD.matcher(said).replaceAll("…"))
                    + "; check the indentation and quoting here", e);
        } catch (YAMLException e) {
            // The limits (size, nesting) carry no position: the last event read is where the parser was.
            throw new InvalidInputException(parser.position(file), "invalid YAML: " + limitMessage(e), e);
        } catch (TimedReader.OutOfTime e) {
            throw new InvalidInputException(parser.position(file), "reading the YAML from here takes more than "
                    + MAX_READING.toSeconds() + " s; a word or a line of hundreds of thousands of characters is "
                    + "slow to read: split it, or give the data in a file of its own", e);
        }
        YamlDocument doc = new YamlDocument(file, Optional.ofNullable(node).filter(n -> !isNull(n)), quotesContent);
        if (doc.root.isPresent()) {
            new Expansion(doc, MAX_DEPTH).check(doc.root.get());
        }
        return doc;
    }

    private static String limitMessage(YAMLException e) {
        String message = oneLine(String.valueOf(e.getMessage()));
        if (message.startsWith("Nesting Depth exceeded")) {
            return "nested more than " + MAX_DEPTH + " levels deep; flatten it";
        }
        if (message.startsWith("The incoming YAML document exceeds the limit")) {
            return "the document is longer than " + (TextFiles.MAX_BYTES >> 20) + " Mi characters";
        }
        return message;
    }

    private static SourcePosition positionOf(Path file, Mark mark) {
        return new SourcePosition(file.toString(), mark.getLine() + 1, mark.getColumn() + 1);
    }

    /** A parser that remembers where its last event started, for errors that snakeyaml gives no mark. */
    private static final class MarkTrackingParser implements Parser {
        private final Parser parser;
        private Mark last;

        MarkTrackingParser(Parser parser) {
            this.parser = parser;
        }

        SourcePosition position(Path file) {
            return last == null ? new SourcePosition(file.toString(), 1, 1) : positionOf(file, last);
        }

        @Override
        public boolean checkEvent(Event.ID choice) {
            return parser.checkEvent(choice);
        }

        @Override
        public Event peekEvent() {
            return parser.peekEvent();
        }

        @Override
        public Event getEvent() {
            Event event = parser.getEvent();
            if (event != null && event.getStartMark() != null) {
                last = event.getStartMark();
            }
            return event;
        }
    }

    /** The file as given to {@link #read}. */
    public Path file() {
        return file;
    }

    /** The document's root node; empty when the file holds nothing (or only comments, or null). */
    public Optional<Node> root() {
        return root;
    }

    /** Where the node starts, 1-based. */
    public SourcePosition position(Node node) {
        Mark mark = node.getStartMark();
        return mark == null ? new SourcePosition(displayName, 0, 0)
                : new SourcePosition(displayName, mark.getLine() + 1, mark.getColumn() + 1);
    }

    /** The start of the file, for problems with the file as a whole (empty, wrong top level). */
    public SourcePosition start() {
        return new SourcePosition(displayName, 1, 1);
    }

    /** An error about {@code node}. */
    public InvalidInputException error(Node node, String problem) {
        return new InvalidInputException(position(node), problem);
    }

    /** One key of a mapping with its nodes. */
    public record Entry(String key, Node keyNode, Node value) {
        public Entry {
            requireNonNull(key, "key cannot be null");
            requireNonNull(keyNode, "keyNode cannot be null");
            requireNonNull(value, "value cannot be null");
        }
    }

    /**
     * The entries of a mapping in written order, {@code <<} merge keys applied (keys written in the
     * mapping win over merged ones).
     *
     * @throws InvalidInputException on a duplicate key (at the second one) or a key that is not a scalar
     */
    public List<Entry> entries(MappingNode mapping) throws InvalidInputException {
        Map<String, Entry> own = new LinkedHashMap<>();
        List<Entry> merged = new ArrayList<>();
        for (NodeTuple tuple : mapping.getValue()) {
            Node keyNode = tuple.getKeyNode();
            if (keyNode.getTag().equals(Tag.MERGE)) {
                collectMerge(tuple.getValueNode(), merged);
                continue;
            }
            if (!(keyNode instanceof ScalarNode scalar)) {
                throw error(keyNode, "a key must be a plain name, not " + describe(keyNode));
            }
            String key = scalar.getValue();
            Entry previous = own.get(key);
            if (previous != null) {
                throw error(keyNode, "duplicate key " + (quotesContent ? "'" + key + "' " : "") + "(first written at line "
                        + position(previous.keyNode()).line() + "); remove one of them");
            }
            own.put(key, new Entry(key, keyNode, tuple.getValueNode()));
        }
        if (merged.isEmpty()) {
            return List.copyOf(own.values());
        }
        Map<String, Entry> result = new LinkedHashMap<>();
        for (Entry e : merged) {
            result.putIfAbsent(e.key(), e);
        }
        result.putAll(own);
        return List.copyOf(result.values());
    }

    private void collectMerge(Node value, List<Entry> into) throws InvalidInputException {
        switch (value) {
            case MappingNode m -> into.addAll(entries(m));
            case SequenceNode s -> {
                for (Node item : s.getValue()) {
                    if (!(item instanceof MappingNode m)) {
                        throw error(item, "'<<' merges mappings only, not " + shown(item));
                    }
                    into.addAll(entries(m));
                }
            }
            default -> throw error(value, "'<<' merges mappings only, not " + shown(value));
        }
    }

    /** Converts a node and everything under it to plain Java values (see the class comment). */
    public Object value(Node node) throws InvalidInputException {
        return value(node, 0, new IdentityHashMap<>());
    }

    /** Converts a mapping node to a map of plain values; a null node (empty value) is an empty map. */
    public Map<String, Object> mapping(Node node, String what) throws InvalidInputException {
        if (isNull(node)) {
            return new LinkedHashMap<>();
        }
        if (!(node instanceof MappingNode m)) {
            throw error(node, what + " must be a mapping (key: value lines), not " + shown(node));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        for (Entry e : entries(m)) {
            result.put(e.key(), value(e.value()));
        }
        return result;
    }

    private Object value(Node node, int depth, IdentityHashMap<Node, Boolean> open) throws InvalidInputException {
        if (depth > MAX_DEPTH || open.containsKey(node)) {
            throw error(node, "value nests more than " + MAX_DEPTH + " levels deep (through aliases?); flatten it");
        }
        return switch (node) {
            case ScalarNode s -> scalar(s);
            case SequenceNode s -> {
                open.put(node, Boolean.TRUE);
                List<Object> list = new ArrayList<>();
                for (Node item : s.getValue()) {
                    list.add(value(item, depth + 1, open));
                }
                open.remove(node);
                yield list;
            }
            case MappingNode m -> {
                open.put(node, Boolean.TRUE);
                Map<String, Object> map = new LinkedHashMap<>();
                for (Entry e : entries(m)) {
                    map.put(e.key(), value(e.value(), depth + 1, open));
                }
                open.remove(node);
                yield map;
            }
            default -> throw error(node, "unsupported YAML node " + describe(node));
        };
    }

    /** The plain value of a scalar; {@code null} for YAML null. */
    public Object scalar(ScalarNode node) throws InvalidInputException {
        Tag tag = node.getTag();
        String text = node.getValue();
        if (!tag.getValue().startsWith(Tag.PREFIX)) {
            String hint = tag.getValue().equals("!vault") ? " (Ansible Vault is not supported yet)" : "";
            throw error(node, "YAML tag " + (quotesContent ? "'" + tag.getValue() + "' " : "") + "is not supported" + hint
                    + "; remove it");
        }
        if (tag.equals(Tag.NULL)) {
            return null;
        }
        if (tag.equals(Tag.BOOL)) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on", "y" -> Boolean.TRUE;
                default -> Boolean.FALSE;
            };
        }
        if (tag.equals(Tag.INT)) {
            return integer(node, text);
        }
        if (tag.equals(Tag.FLOAT)) {
            return floating(text);
        }
        return text;
    }

    private Object integer(ScalarNode node, String text) throws InvalidInputException {
        if (LEADING_ZERO_INT.matcher(text).matches() || text.contains(":")) {
            return text; // file modes (0644) and sexagesimal (1:30) stay as written
        }
        String digits = text.replace("_", "");
        boolean negative = digits.startsWith("-");
        if (digits.startsWith("-") || digits.startsWith("+")) {
            digits = digits.substring(1);
        }
        int radix = 10;
        if (digits.startsWith("0x")) {
            radix = 16;
            digits = digits.substring(2);
        } else if (digits.startsWith("0o")) {
            radix = 8;
            digits = digits.substring(2);
        } else if (digits.startsWith("0b")) {
            radix = 2;
            digits = digits.substring(2);
        }
        try {
            long value = Long.parseLong((negative ? "-" : "") + digits, radix);
            return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? (Object) (int) value : (Object) value;
        } catch (NumberFormatException e) {
            return text; // beyond long: keep what the user wrote rather than lose digits
        }
    }

    private static Object floating(String text) {
        String t = text.replace("_", "").toLowerCase(Locale.ROOT);
        return switch (t) {
            case ".inf", "+.inf" -> Double.POSITIVE_INFINITY;
            case "-.inf" -> Double.NEGATIVE_INFINITY;
            case ".nan" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(t);
                } catch (NumberFormatException e) {
                    yield text;
                }
            }
        };
    }

    /** Whether the node is YAML null ({@code ~}, {@code null} or nothing). */
    public static boolean isNull(Node node) {
        return node instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    /** "a mapping", "a list", "a string", ... for messages about a wrongly typed value. */
    public static String describe(Node node) {
        return switch (node) {
            case MappingNode m -> "a mapping";
            case SequenceNode s -> "a list";
            case ScalarNode s when s.getTag().equals(Tag.NULL) -> "an empty value";
            case ScalarNode s when s.getTag().equals(Tag.BOOL) -> "a boolean (" + s.getValue() + ")";
            case ScalarNode s when s.getTag().equals(Tag.INT) || s.getTag().equals(Tag.FLOAT) -> "a number (" + s.getValue() + ")";
            case ScalarNode s -> "a string ('" + abbreviate(s.getValue()) + "')";
            default -> "a " + node.getNodeId();
        };
    }

    /** {@link #describe}, without the value in a document read without quoting. */
    private String shown(Node node) {
        String described = describe(node);
        return quotesContent ? described : described.replaceFirst(" \\(.*\\)$", "");
    }

    private static String abbreviate(String s) {
        String line = printable(oneLine(s));
        return line.length() > 40 ? line.substring(0, 37) + "..." : line;
    }

    /** Collapses line breaks so that every message stays one line. */
    static String oneLine(String s) {
        return s.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
    }

    /** The text with control characters (a NUL, a terminal escape) written as {@code \\uXXXX}, for messages. */
    static String printable(String s) {
        StringBuilder text = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                text.append(String.format("\\u%04x", c));
            } else {
                text.appendCodePoint(c);
            }
        });
        return text.toString();
    }

    /** Keys written in a mapping, for "did you mean" among siblings. */
    static Set<String> keysOf(List<Entry> entries) {
        Set<String> keys = new java.util.LinkedHashSet<>();
        entries.forEach(e -> keys.add(e.key()));
        return keys;
    }
}
