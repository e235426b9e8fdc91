package dev.provision.engine.playbook;

import dev.provision.engine.source.InvalidInputException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/** Reads keyword values of a known shape, with one-line errors that say what shape was expected. */
final class Values {
    private Values() {
    }

    /** A non-empty scalar as text ({@code become_user: 1000} is the string "1000"). */
    static String string(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        if (node instanceof ScalarNode s && !YamlDocument.isNull(node)) {
            doc.scalar(s); // rejects unsupported tags
            return s.getValue();
        }
        throw doc.error(node, "'" + keyword + "' must be a string, not " + YamlDocument.describe(node));
    }

    static boolean bool(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        if (node instanceof ScalarNode s) {
            switch (s.getValue().toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> {
                    return true;
                }
                case "false", "no", "off" -> {
                    return false;
                }
                default -> {
                }
            }
        }
        throw doc.error(node, "'" + keyword + "' must be true or false, not " + YamlDocument.describe(node));
    }

    /** A whole number ≥ 0, written as a number or as digits in a string. */
    static int count(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        if (node instanceof ScalarNode s && s.getValue().trim().matches("\\d{1,9}")) {
            return Integer.parseInt(s.getValue().trim());
        }
        throw doc.error(node, "'" + keyword + "' must be a whole number, not " + YamlDocument.describe(node));
    }

    /** A string or a list of strings ({@code notify}, {@code listen}). */
    static List<String> strings(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        List<String> result = new ArrayList<>();
        if (node instanceof SequenceNode seq) {
            for (Node item : seq.getValue()) {
                result.add(string(doc, item, keyword));
            }
            return result;
        }
        if (node instanceof ScalarNode && !YamlDocument.isNull(node)) {
            result.add(string(doc, node, keyword));
            return result;
        }
        throw doc.error(node, "'" + keyword + "' must be a string or a list of strings, not " + YamlDocument.describe(node));
    }

    /** Tags: a string (commas separate several, as in Ansible) or a list. */
    static Set<String> tags(YamlDocument doc, Node node) throws InvalidInputException {
        Set<String> tags = new LinkedHashSet<>();
        for (String written : strings(doc, node, "tags")) {
            for (String tag : written.split(",")) {
                if (!tag.isBlank()) {
                    tags.add(tag.trim());
                }
            }
        }
        return tags;
    }

    /**
     * Conditions: a string, a boolean ({@code true}/{@code false} as text) or a list of those. A
     * number is kept as written.
     */
    static List<Expression> conditions(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        List<Expression> result = new ArrayList<>();
        if (node instanceof SequenceNode seq) {
            if (seq.getValue().isEmpty()) {
                throw doc.error(node, "'" + keyword + "' is an empty list; write a condition or remove it");
            }
            for (Node item : seq.getValue()) {
                result.add(condition(doc, item, keyword));
            }
            return result;
        }
        result.add(condition(doc, node, keyword));
        return result;
    }

    /** One condition; a list is joined with {@code &&} (Ansible: all must hold). */
    static Expression joinedCondition(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        List<Expression> all = conditions(doc, node, keyword);
        if (all.size() == 1) {
            return all.getFirst();
        }
        StringBuilder text = new StringBuilder();
        for (Expression e : all) {
            text.append(text.isEmpty() ? "" : " && ").append('(').append(e.text()).append(')');
        }
        return new Expression(text.toString(), doc.position(node));
    }

    private static Expression condition(YamlDocument doc, Node node, String keyword) throws InvalidInputException {
        if (node instanceof ScalarNode s && !YamlDocument.isNull(node) && !s.getValue().isBlank()) {
            Object value = doc.scalar(s);
            String text = s.getTag().equals(Tag.BOOL) ? String.valueOf(value) : s.getValue().trim();
            return new Expression(text, doc.position(node));
        }
        throw doc.error(node, "'" + keyword + "' must be a condition (a string such as 'x == 1') or a list of them, not "
                + YamlDocument.describe(node));
    }
}
