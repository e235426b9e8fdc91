package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A fact about a host: the program that reads it and a pure parser of what that program answers.
 * The argument vector is the fact's key: the host view asks the host once per task for it, reading
 * ahead asks for it before the task's turn, and a dry run forecasts it by it ({@link Plan#afterwards}).
 * Modules read a fact instead of probing and parsing each in its own way; the facts the modules share
 * are in {@link Facts}, each parser tested on captured answers.
 *
 * @param <T> what the fact says
 */
public record Fact<T>(List<String> argv, Parser<T> parser) {
    /** What a program's answer says; pure: the same answer always says the same. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(ProbeResult answer) throws ModuleException;
    }

    public Fact {
        argv = List.copyOf(argv);
        requireNonNull(parser, "parser cannot be null");
    }

    /** The fact as {@code host} holds it now (or as a dry run forecasts it). */
    public T read(HostView host) throws ModuleException {
        return parser.parse(host.probe(argv.toArray(String[]::new)));
    }

    /** What {@code answer}, an answer of this fact's program, says. */
    public T of(ProbeResult answer) throws ModuleException {
        return parser.parse(answer);
    }
}
