package dev.provision.engine.playbook;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The keywords ({@link Keyword}) as one task sees them once everything above it is applied: the
 * parser makes it ({@link Keywords#freeze}), the model keeps it ({@link Task#keywords()}), the runner
 * reads it ({@link #get}). Immutable.
 */
public final class TaskKeywords {
    /** Nothing set: what a task outside any block with no keywords of its own sees. */
    public static final TaskKeywords NONE = new TaskKeywords(Map.of());

    private final Map<Keyword<?>, Object> values;

    TaskKeywords(Map<Keyword<?>, Object> values) {
        Map<Keyword<?>, Object> set = new LinkedHashMap<>(values);
        // a keyword set to the value it has when unset is the same task as one that never set it
        set.entrySet().removeIf(e -> e.getKey().unset().equals(e.getValue()));
        this.values = Collections.unmodifiableMap(set);
    }

    /** {@code keyword}'s value for the task, or its value when set nowhere above it. */
    @SuppressWarnings("unchecked") // put only by Keywords, each keyword with a value of its own type
    public <T> T get(Keyword<T> keyword) {
        return values.containsKey(keyword) ? (T) values.get(keyword) : keyword.unset();
    }

    /** Where the task's commands run instead of its host: {@code delegate_to}, or localhost for {@code connection: local}. */
    public Optional<String> delegateTo() {
        return get(Keyword.DELEGATE_TO).or(() -> get(Keyword.CONNECTION_LOCAL) ? Optional.of("localhost") : Optional.empty());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskKeywords other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "TaskKeywords" + values;
    }
}
