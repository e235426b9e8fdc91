package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Validated parameter values keyed by canonical name (aliases resolved, defaults applied, values
 * coerced to their declared {@link ParamSpec.Type}). Absent optional parameters have no entry.
 */
public final class Params {
    private final Map<String, Object> values;

    Params(Map<String, Object> values) {
        this.values = Map.copyOf(values);
    }

    /** For tests and for modules that build parameters for another module. */
    public static Params of(Map<String, Object> values) {
        return new Params(values);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public Map<String, Object> asMap() {
        return values;
    }

    public String string(String name) {
        return (String) need(name);
    }

    public Optional<String> optString(String name) {
        return Optional.ofNullable((String) values.get(name));
    }

    public boolean bool(String name) {
        return (Boolean) need(name);
    }

    public long integer(String name) {
        return ((Number) need(name)).longValue();
    }

    public Optional<Long> optInteger(String name) {
        return Optional.ofNullable((Number) values.get(name)).map(Number::longValue);
    }

    @SuppressWarnings("unchecked")
    public List<Object> list(String name) {
        Object v = values.get(name);
        return v == null ? List.of() : (List<Object>) v;
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> map(String name) {
        Object v = values.get(name);
        return v == null ? Map.of() : (Map<String, Object>) v;
    }

    public Object raw(String name) {
        return need(name);
    }

    private Object need(String name) {
        return requireNonNull(values.get(name), () -> "parameter " + name + " has no value");
    }

    @Override
    public String toString() {
        return "Params" + values.keySet();
    }
}
