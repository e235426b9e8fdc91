package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The parameters a module accepts: names, types, defaults, choices, aliases, and which one takes
 * Ansible's free-form string ({@code command: ls -l}). Immutable; build with {@link #builder()}.
 */
public final class ParamSpec {

    /** The YAML shapes a parameter value may take. Strings coerce to the others as Ansible does. */
    public enum Type { STRING, BOOL, INT, LIST, MAP, ANY }

    /** One parameter. {@code defaultValue} is empty when there is none. */
    public record Param(String name, Type type, boolean required, Optional<Object> defaultValue,
                        List<String> choices, List<String> aliases, boolean secret) {
        public Param {
            requireNonNull(name, "name cannot be null");
            requireNonNull(type, "type cannot be null");
            requireNonNull(defaultValue, "defaultValue cannot be null");
            choices = List.copyOf(choices);
            aliases = List.copyOf(aliases);
        }
    }

    private final Map<String, Param> params;
    private final Optional<String> freeForm;
    private final List<Set<String>> mutuallyExclusive;
    private final List<Set<String>> requiredOneOf;
    private final boolean anyKeys;
    private final Map<String, String> refused;
    private final Map<String, String> ignored;
    private final Set<String> expressions;

    private ParamSpec(Builder b) {
        this.expressions = Set.copyOf(b.expressions);
        this.anyKeys = b.anyKeys;
        this.refused = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.refused));
        this.ignored = Map.copyOf(b.ignored);
        this.params = Map.copyOf(b.params);
        this.freeForm = Optional.ofNullable(b.freeForm);
        this.mutuallyExclusive = List.copyOf(b.mutuallyExclusive);
        this.requiredOneOf = List.copyOf(b.requiredOneOf);
    }

    public Map<String, Param> params() {
        return params;
    }

    /** The parameter that receives a free-form string, if this module takes one. */
    public Optional<String> freeForm() {
        return freeForm;
    }

    public List<Set<String>> mutuallyExclusive() {
        return mutuallyExclusive;
    }

    public List<Set<String>> requiredOneOf() {
        return requiredOneOf;
    }

    /**
     * Parameters whose values are bare expressions that the module evaluates itself through
     * {@link TaskContext#expressions()} ({@code assert}'s {@code that}, {@code debug}'s {@code var}):
     * the engine hands them over as written instead of interpolating them first.
     */
    public Set<String> expressions() {
        return expressions;
    }

    /** Whether undeclared keys are accepted as they are ({@code set_fact}). */
    public boolean acceptsAnyKeys() {
        return anyKeys;
    }

    /**
     * Parameters this module knows by name (Ansible's) and refuses, each with the reason and what to
     * do instead, in declaration order; aliases are keys of their own. A refused parameter given as
     * false, {@code no} or empty asks for nothing and is accepted as not given.
     */
    public Map<String, String> refused() {
        return refused;
    }

    /**
     * Parameters Ansible accepts and does nothing with (a warning in Ansible, one here, at load), each
     * with what to write instead.
     */
    public Map<String, String> ignored() {
        return ignored;
    }

    /**
     * Why {@code key} given as {@code value} is refused ({@code parameter 'deb' is not supported:
     * REASON}); empty when the key is not a refused one or the value asks for nothing.
     */
    public Optional<String> refusal(String key, Object value) {
        String reason = refused.get(key);
        if (reason == null || lookup(key).isPresent() || ParamValidator.asksForNothing(value)) {
            return Optional.empty();
        }
        return Optional.of("parameter '" + key + "' is not supported: " + reason);
    }

    /** Finds a parameter by name or alias. */
    public Optional<Param> lookup(String nameOrAlias) {
        Param direct = params.get(nameOrAlias);
        if (direct != null) {
            return Optional.of(direct);
        }
        return params.values().stream().filter(p -> p.aliases().contains(nameOrAlias)).findFirst();
    }

    /**
     * Validates raw YAML-shaped arguments (strings, numbers, booleans, lists, maps).
     *
     * @throws ParamException naming the offending parameter (as the user wrote it)
     */
    public Params validate(Map<String, Object> raw) throws ParamException {
        return ParamValidator.validate(this, raw);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects parameters in declaration order. */
    public static final class Builder {
        private final Map<String, Param> params = new LinkedHashMap<>();
        private String freeForm;
        private final List<Set<String>> mutuallyExclusive = new ArrayList<>();
        private final List<Set<String>> requiredOneOf = new ArrayList<>();
        private boolean anyKeys;
        private final Map<String, String> refused = new LinkedHashMap<>();
        private final Map<String, String> ignored = new LinkedHashMap<>();
        private final Set<String> expressions = new java.util.HashSet<>();

        private Builder() {
        }

        /** Marks declared parameters as bare expressions (see {@link ParamSpec#expressions()}). */
        public Builder expressions(String... names) {
            for (String name : names) {
                if (!params.containsKey(name)) {
                    throw new IllegalArgumentException("declare " + name + " before marking it an expression");
                }
                expressions.add(name);
            }
            return this;
        }

        public Builder add(Param p) {
            if (params.putIfAbsent(p.name(), p) != null) {
                throw new IllegalArgumentException("duplicate parameter " + p.name());
            }
            return this;
        }

        public Builder required(String name, Type type, String... aliases) {
            return add(new Param(name, type, true, Optional.empty(), List.of(), List.of(aliases), false));
        }

        public Builder optional(String name, Type type, String... aliases) {
            return add(new Param(name, type, false, Optional.empty(), List.of(), List.of(aliases), false));
        }

        public Builder withDefault(String name, Type type, Object defaultValue, String... aliases) {
            return add(new Param(name, type, false, Optional.of(defaultValue), List.of(), List.of(aliases), false));
        }

        /** A string parameter limited to {@code choices}; the first choice is the default unless required. */
        public Builder choice(String name, String defaultValue, String... choices) {
            return add(new Param(name, Type.STRING, false, Optional.ofNullable(defaultValue), List.of(choices), List.of(), false));
        }

        /** A parameter whose value is never shown (passwords, private keys). */
        public Builder secret(String name, Type type, boolean required) {
            return add(new Param(name, type, required, Optional.empty(), List.of(), List.of(), true));
        }

        public Builder freeForm(String name) {
            this.freeForm = name;
            return this;
        }

        /** Accept undeclared keys with any value ({@code set_fact: {name: value}}). */
        public Builder anyKeys() {
            this.anyKeys = true;
            return this;
        }

        /** A parameter Ansible accepts and ignores with a warning; {@code instead}: what to write (see {@link #ignored()}). */
        public Builder ignored(String name, String instead) {
            requireNonNull(instead, "instead cannot be null");
            if (params.containsKey(name) || refused.containsKey(name) || ignored.putIfAbsent(name, instead) != null) {
                throw new IllegalArgumentException("duplicate parameter " + name);
            }
            return this;
        }

        /**
         * A parameter (another module's, usually Ansible's) that this module refuses with
         * {@code reason}: what it would do and what to write instead (see {@link #refused()}).
         */
        public Builder refused(String name, String reason, String... aliases) {
            requireNonNull(reason, "reason cannot be null");
            for (String n : concat(name, aliases)) {
                if (params.containsKey(n) || refused.putIfAbsent(n, reason) != null) {
                    throw new IllegalArgumentException("duplicate parameter " + n);
                }
            }
            return this;
        }

        private static List<String> concat(String name, String... more) {
            List<String> all = new ArrayList<>(List.of(name));
            all.addAll(List.of(more));
            return all;
        }

        public Builder mutuallyExclusive(String... names) {
            mutuallyExclusive.add(Set.of(names));
            return this;
        }

        public Builder requiredOneOf(String... names) {
            requiredOneOf.add(Set.of(names));
            return this;
        }

        public ParamSpec build() {
            if (freeForm != null && !params.containsKey(freeForm)) {
                throw new IllegalArgumentException("free-form parameter " + freeForm + " is not declared");
            }
            return new ParamSpec(this);
        }
    }
}
