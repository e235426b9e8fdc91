package dev.provision.engine.inventory;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Ansible host patterns, see {@link Inventory#select}. Errors carry no position: the caller knows
 * whether the pattern came from a play's {@code hosts:} or from {@code --limit}.
 */
final class HostPatterns {
    /** Ansible's subscript, a group's hosts picked by position: {@code gpu[0]}, {@code gpu[0:3]}, {@code gpu[2:]}. */
    private static final Pattern SUBSCRIPT = Pattern.compile(".+(\\[(?:-?\\d+|\\d+[:-]\\d*)\\])");

    private HostPatterns() {
    }

    static List<Host> select(Inventory inventory, String pattern) throws InvalidInputException {
        List<String> terms = terms(pattern);
        List<String> unite = terms.stream().filter(t -> !t.startsWith("&") && !t.startsWith("!")).toList();
        Set<String> chosen = new LinkedHashSet<>();
        if (unite.isEmpty()) {
            inventory.hosts().forEach(h -> chosen.add(h.name()));
        }
        for (String term : unite) {
            chosen.addAll(match(inventory, term));
        }
        for (String term : terms) {
            if (term.startsWith("&")) {
                chosen.retainAll(match(inventory, term.substring(1)));
            }
        }
        for (String term : terms) {
            if (term.startsWith("!")) {
                chosen.removeAll(match(inventory, term.substring(1)));
            }
        }
        List<Host> result = new ArrayList<>();
        for (Host host : inventory.hosts()) {
            if (chosen.remove(host.name())) {
                result.add(host);
            }
        }
        // what is left is the implicit localhost, which is in no list
        if (!chosen.isEmpty()) {
            inventory.implicitLocalhost().ifPresent(result::add);
        }
        return result;
    }

    /**
     * The terms of a pattern, split at {@code :} and {@code ,} but inside brackets (a regular
     * expression's {@code [0-9]}, a subscript's {@code [0:3]}), each checked.
     *
     * @throws InvalidInputException an empty pattern, a malformed regular expression, a bracket
     *     outside one (Ansible's subscripts are not supported)
     */
    static List<String> terms(String pattern) throws InvalidInputException {
        List<String> split = new ArrayList<>();
        int start = 0;
        int depth = 0;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            depth += c == '[' ? 1 : c == ']' && depth > 0 ? -1 : 0;
            if ((c == ':' || c == ',') && depth == 0) {
                split.add(pattern.substring(start, i));
                start = i + 1;
            }
        }
        split.add(pattern.substring(start)); // an unclosed bracket keeps the rest in one term, refused below
        List<String> terms = new ArrayList<>();
        for (String term : split) {
            if (!term.isBlank()) {
                terms.add(checked(term.trim()));
            }
        }
        if (terms.isEmpty()) {
            throw new InvalidInputException(SourcePosition.UNKNOWN, "empty host pattern '" + pattern
                    + "'; write 'all', a group or a host name");
        }
        return terms;
    }

    private static String checked(String term) throws InvalidInputException {
        String bare = term.startsWith("&") || term.startsWith("!") ? term.substring(1) : term;
        if (bare.startsWith("~")) {
            regex(bare);
        } else if (bare.contains("[") || bare.contains("]")) {
            Matcher subscript = SUBSCRIPT.matcher(bare);
            throw new InvalidInputException(SourcePosition.UNKNOWN, "host pattern '" + term + "': " + (subscript.matches()
                    ? "a subscript ('" + subscript.group(1) + "': a group's hosts by their position) is not supported"
                    : "a bracket outside a regular expression") + "; name the hosts, or match their names with a"
                    + " wildcard or a regular expression (node0*, ~node0[1-4])");
        }
        return term;
    }

    private static Pattern regex(String term) throws InvalidInputException {
        try {
            return Pattern.compile(term.substring(1));
        } catch (PatternSyntaxException e) {
            throw new InvalidInputException(SourcePosition.UNKNOWN, "bad regular expression in host pattern '"
                    + term + "': " + e.getDescription());
        }
    }

    private static Set<String> match(Inventory inventory, String term) throws InvalidInputException {
        Set<String> names = new LinkedHashSet<>();
        if (term.equals("all") || term.equals("*")) {
            inventory.hosts().forEach(h -> names.add(h.name()));
            return names;
        }
        Pattern regex = null;
        if (term.startsWith("~")) {
            regex = regex(term);
        } else if (term.contains("*") || term.contains("?")) {
            regex = glob(term);
        }
        if (regex == null) {
            List<String> members = inventory.groups().get(term);
            if (members != null) {
                names.addAll(members);
            } else if (inventory.host(term).isPresent()) {
                names.add(term);
            }
            return names;
        }
        // a regular expression matches from the start (Ansible's re.match); a wildcard the whole name
        Pattern compiled = regex;
        boolean anchoredAtStartOnly = term.startsWith("~");
        java.util.function.Predicate<String> matches = name -> anchoredAtStartOnly
                ? compiled.matcher(name).lookingAt() : compiled.matcher(name).matches();
        for (var group : inventory.groups().entrySet()) {
            if (matches.test(group.getKey())) {
                names.addAll(group.getValue());
            }
        }
        for (Host host : inventory.hosts()) {
            if (matches.test(host.name())) {
                names.add(host.name());
            }
        }
        return names;
    }

    private static Pattern glob(String term) {
        StringBuilder regex = new StringBuilder();
        for (char c : term.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
