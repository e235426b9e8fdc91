package dev.provision.modules.spi;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a module derives from one of its arguments (parsed keys, checked entries), derived once for
 * all the hosts of a task instead of on each. The engine renders an argument that comes out the
 * same on every host once and hands every host that very object, so the argument, compared by
 * identity, is the key: a thousand hosts parsing the same thousand-entry list would cost a million
 * parses per task. The last few arguments are kept (hosts running ahead may be at different tasks
 * of the same module); a derivation must be a pure function of its argument.
 *
 * @param <A> the argument
 * @param <V> what is derived from it
 */
public final class DerivedOnce<A, V> {
    private static final int KEPT = 4;

    /** Derives the value; may refuse the argument. */
    public interface Derivation<A, V> {
        V derive(A argument) throws ModuleException;
    }

    private record Derived<A, V>(A argument, V value) {
    }

    private final Derivation<A, V> derivation;
    private final Deque<Derived<A, V>> kept = new ArrayDeque<>();

    public DerivedOnce(Derivation<A, V> derivation) {
        this.derivation = derivation;
    }

    /** The value derived from this very {@code argument}, derived now if it was not among the last few. */
    public V of(A argument) throws ModuleException {
        synchronized (kept) {
            for (Derived<A, V> d : kept) {
                if (d.argument() == argument) {
                    return d.value();
                }
            }
        }
        // Outside the lock: hosts with different arguments do not wait for each other. A refusal is
        // not kept; each host hears it itself.
        V value = derivation.derive(argument);
        synchronized (kept) {
            kept.addFirst(new Derived<>(argument, value));
            while (kept.size() > KEPT) {
                kept.removeLast();
            }
        }
        return value;
    }
}
