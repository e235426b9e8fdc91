package dev.provision.engine.inventory;

import dev.provision.engine.source.InvalidInputException;
import dev.provision.engine.source.SourcePosition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Ansible host patterns, see {@link Inventory#select}. */
final class HostPatterns {
    private HostPatterns() {
    }

    static List<Host> select(Inventory inventory, String pattern) throws InvalidInputException {
        List<String> terms = new ArrayList<>();
        for (String term : pattern.split("[:,]")) {
            if (!term.isBlank()) {
                terms.add(term.trim());
            }
        }
        if (terms.isEmpty()) {
            throw new InvalidInputException(SourcePosition.UNKNOWN, "empty host pattern '" + pattern
                    + "'; write 'all', a group or a host name");
        }
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

    private static Set<String> match(Inventory inventory, String term) throws InvalidInputException {
        Set<String> names = new LinkedHashSet<>();
        if (term.equals("all") || term.equals("*")) {
            inventory.hosts().forEach(h -> names.add(h.name()));
            return names;
        }
        Pattern regex = null;
        if (term.startsWith("~")) {
            try {
                regex = Pattern.compile(term.substring(1));
            } catch (PatternSyntaxException e) {
                throw new InvalidInputException(SourcePosition.UNKNOWN, "bad regular expression in host pattern '"
                        + term + "': " + e.getDescription());
            }
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
