package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.InvalidInputException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Bounds what a composed document costs the code that reads it. Aliases make the node tree a graph:
 * a few hundred bytes of doubling aliases stand for billions of values (a "billion laughs"), and an
 * alias or a {@code <<} merge inside its own anchor stands for a value that contains itself. Readers
 * walk the graph as a tree, so both are refused here, before anyone reads: one pass over the distinct
 * nodes (sizes are remembered per node) counts what the aliases add, finds cycles and measures depth.
 */
final class Expansion {
    /** Values that aliases may add to a document: thousands of hosts sharing defaults stay far below. */
    static final long MAX_ALIAS_VALUES = 1_000_000;
    /** Sizes stop growing here, so that sums of doubling aliases cannot overflow. */
    private static final long SATURATED = Long.MAX_VALUE / 4;

    private final YamlDocument doc;
    private final int maxDepth;
    private final Map<Node, Measure> measured = new IdentityHashMap<>();
    private final Map<Node, Boolean> open = new IdentityHashMap<>();

    Expansion(YamlDocument doc, int maxDepth) {
        this.doc = requireNonNull(doc, "doc cannot be null");
        this.maxDepth = maxDepth;
    }

    /** @throws InvalidInputException at the alias that recurses, nests too deeply or expands too much */
    /** A node with everything under it, aliases expanded: how many nodes, how many levels. */
    private record Measure(long size, int height) {
    }

    void check(Node root) throws InvalidInputException {
        long expanded = measure(root, root, 0).size();
        if (expanded - measured.size() > MAX_ALIAS_VALUES) {
            throw doc.error(culprit(root), "aliases here expand to more than " + MAX_ALIAS_VALUES
                    + " values (a 'billion laughs'?); write the values out or use fewer aliases");
        }
    }

    /**
     * Measures the node once; a node met again (through an alias) is measured already.
     *
     * @param at where the edge to {@code node} was written (the key of its entry), for messages
     * @param depth levels above the node
     */
    private Measure measure(Node node, Node at, int depth) throws InvalidInputException {
        if (open.containsKey(node)) {
            throw doc.error(at, at.getTag().equals(Tag.MERGE)
                    ? "'<<' merges a mapping into itself (a recursive merge); remove it"
                    : "this alias refers to a value that contains it (a recursive alias); remove it");
        }
        Measure known = measured.get(node);
        if (known == null) {
            if (depth > maxDepth) {
                throw doc.error(at, "value nests more than " + maxDepth + " levels deep; flatten it");
            }
            open.put(node, Boolean.TRUE);
            known = measureChildren(node, depth);
            open.remove(node);
            measured.put(node, known);
        }
        if (depth + known.height() > maxDepth) {
            throw doc.error(at, "value nests more than " + maxDepth + " levels deep (through aliases?); flatten it");
        }
        return known;
    }

    private Measure measureChildren(Node node, int depth) throws InvalidInputException {
        long size = 1;
        int height = 0;
        switch (node) {
            case SequenceNode s -> {
                for (Node item : s.getValue()) {
                    Measure child = measure(item, s, depth + 1);
                    size = plus(size, child.size());
                    height = Math.max(height, child.height() + 1);
                }
            }
            case MappingNode m -> {
                for (NodeTuple tuple : m.getValue()) {
                    Measure key = measure(tuple.getKeyNode(), tuple.getKeyNode(), depth + 1);
                    Measure value = measure(tuple.getValueNode(), tuple.getKeyNode(), depth + 1);
                    size = plus(plus(size, key.size()), value.size());
                    height = Math.max(height, Math.max(key.height(), value.height()) + 1);
                }
            }
            default -> {
            }
        }
        return new Measure(size, height);
    }

    private static long plus(long a, long b) {
        return Math.min(SATURATED, a + b);
    }

    /** Down the largest branch while it alone is too large: the line a user should look at. */
    private Node culprit(Node root) {
        Node node = root;
        while (true) {
            Node largest = null;
            for (Node child : children(node)) {
                if (largest == null || measured.get(child).size() > measured.get(largest).size()) {
                    largest = child;
                }
            }
            if (largest == null || measured.get(largest).size() <= MAX_ALIAS_VALUES) {
                return node;
            }
            node = largest;
        }
    }

    private static List<Node> children(Node node) {
        List<Node> children = new ArrayList<>();
        switch (node) {
            case SequenceNode s -> children.addAll(s.getValue());
            case MappingNode m -> m.getValue().forEach(t -> children.add(t.getValueNode()));
            default -> {
            }
        }
        return children;
    }
}
