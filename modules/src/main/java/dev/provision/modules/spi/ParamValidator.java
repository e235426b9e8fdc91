package dev.provision.modules.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Coerces and checks raw arguments against a {@link ParamSpec}, with Ansible's coercions. */
final class ParamValidator {
    private ParamValidator() {
    }

    static Params validate(ParamSpec spec, Map<String, Object> raw) throws ParamException {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, String> writtenAs = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            String key = e.getKey();
            Optional<ParamSpec.Param> declared = spec.lookup(key);
            if (declared.isEmpty() && spec.refused().containsKey(key)) {
                Optional<String> refusal = spec.refusal(key, e.getValue());
                if (refusal.isPresent()) {
                    throw new ParamException(key, refusal.get());
                }
                continue;
            }
            if (declared.isEmpty() && spec.acceptsAnyKeys()) {
                // YAML `x:` with no value: an empty string, since Params holds no nulls
                out.put(key, e.getValue() == null ? "" : e.getValue());
                writtenAs.put(key, key);
                continue;
            }
            ParamSpec.Param p = declared.orElseThrow(() -> new ParamException(key, unknown(spec, key)));
            String previous = writtenAs.putIfAbsent(p.name(), key);
            if (previous != null) {
                throw new ParamException(key, "parameter '" + key + "' repeats '" + previous + "' (an alias of the same parameter)");
            }
            if (e.getValue() == null) {
                continue; // `name:` with no value means "not given", as in Ansible
            }
            if ("".equals(e.getValue()) && p.type() != ParamSpec.Type.STRING) {
                continue; // `"${x!''}"` rendered empty: "not given" (Ansible's default(omit)) for non-text params
            }
            out.put(p.name(), coerce(p, key, e.getValue()));
        }
        for (ParamSpec.Param p : spec.params().values()) {
            if (!out.containsKey(p.name())) {
                if (p.defaultValue().isPresent()) {
                    out.put(p.name(), p.defaultValue().get());
                } else if (p.required()) {
                    throw new ParamException("", "missing required parameter '" + p.name() + "'");
                }
            }
        }
        for (Set<String> group : spec.mutuallyExclusive()) {
            List<String> given = group.stream().filter(writtenAs::containsKey).sorted().toList();
            if (given.size() > 1) {
                throw new ParamException(writtenAs.get(given.get(1)), "parameters are mutually exclusive: " + String.join(", ", given));
            }
        }
        for (Set<String> group : spec.requiredOneOf()) {
            if (group.stream().noneMatch(writtenAs::containsKey)) {
                throw new ParamException("", "one of these parameters is required: " + String.join(", ", new TreeSet<>(group)));
            }
        }
        return new Params(out);
    }

    /** {@code false}, {@code no}, empty: a refused parameter given so changes nothing and is accepted. */
    static boolean asksForNothing(Object value) {
        if (value == null || value instanceof Boolean b && !b) {
            return true;
        }
        return value instanceof String s && switch (s.strip().toLowerCase(Locale.ROOT)) {
            case "", "no", "false", "off", "0", "n" -> true;
            default -> false;
        };
    }

    private static Object coerce(ParamSpec.Param p, String key, Object v) throws ParamException {
        Object value = switch (p.type()) {
            case STRING -> {
                if (v instanceof Map || v instanceof List) {
                    throw typeError(key, "a string", v);
                }
                yield String.valueOf(v);
            }
            case BOOL -> toBool(key, v);
            case INT -> toInt(key, v);
            case LIST -> {
                if (v instanceof List<?> l) {
                    yield copyWithoutNulls(key, l);
                }
                if (v instanceof String s) { // Ansible accepts "a,b,c"
                    yield s.isBlank() ? List.of() : List.of((Object[]) s.split("\\s*,\\s*"));
                }
                if (v instanceof Map) {
                    throw typeError(key, "a list", v);
                }
                yield List.of(v);
            }
            case MAP -> {
                if (!(v instanceof Map<?, ?> m)) {
                    throw typeError(key, "a mapping", v);
                }
                yield m;
            }
            case ANY -> v;
        };
        if (!p.choices().isEmpty() && !p.choices().contains(String.valueOf(value))) {
            throw new ParamException(key, "value of '" + key + "' must be one of: " + String.join(", ", p.choices()) + "; got '" + v + "'");
        }
        return value;
    }

    /** A YAML list may hold {@code null} ({@code [echo, ~]}, {@code - } with nothing after it); Params holds none. */
    private static List<Object> copyWithoutNulls(String key, List<?> items) throws ParamException {
        List<Object> copy = new ArrayList<>(items.size());
        for (Object item : items) {
            if (item == null) {
                throw new ParamException(key, "item " + (copy.size() + 1) + " of parameter '" + key
                        + "' is empty (null); remove it, or write '' for an empty string");
            }
            copy.add(item);
        }
        return List.copyOf(copy);
    }

    private static Boolean toBool(String key, Object v) throws ParamException {
        if (v instanceof Boolean b) {
            return b;
        }
        return switch (String.valueOf(v).toLowerCase(Locale.ROOT)) {
            case "yes", "true", "on", "1", "y" -> true;
            case "no", "false", "off", "0", "n" -> false;
            default -> throw typeError(key, "a boolean (true/false, yes/no)", v);
        };
    }

    private static Long toInt(String key, Object v) throws ParamException {
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(v).trim());
        } catch (NumberFormatException e) {
            throw typeError(key, "an integer", v);
        }
    }

    private static ParamException typeError(String key, String expected, Object v) {
        String kind = v instanceof Map ? "a mapping" : v instanceof List ? "a list" : "'" + v + "'";
        return new ParamException(key, "parameter '" + key + "' must be " + expected + ", got " + kind);
    }

    private static String unknown(ParamSpec spec, String key) {
        List<String> names = new ArrayList<>();
        spec.params().values().forEach(p -> {
            names.add(p.name());
            names.addAll(p.aliases());
        });
        Optional<String> close = Suggestions.closest(key, names);
        return "unsupported parameter '" + key + "'" + close.map(c -> " (did you mean '" + c + "'?)").orElse("")
                + "; supported: " + String.join(", ", new TreeSet<>(spec.params().keySet()));
    }
}
