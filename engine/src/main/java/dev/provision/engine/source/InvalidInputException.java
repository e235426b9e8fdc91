package dev.provision.engine.source;

import static java.util.Objects.requireNonNull;

/**
 * A mistake in what the user gave us (playbook, inventory, variables, options). The CLI prints
 * {@link #getMessage()} as one line, {@code file:line:column: what is wrong; what to do}, and exits
 * with the invalid-input code. Never shown with a stack trace below high verbosity.
 */
public class InvalidInputException extends Exception {
    private final SourcePosition position;
    private final String problem;

    public InvalidInputException(SourcePosition position, String problem) {
        super(position + ": " + problem);
        this.position = requireNonNull(position, "position cannot be null");
        this.problem = requireNonNull(problem, "problem cannot be null");
    }

    public InvalidInputException(SourcePosition position, String problem, Throwable cause) {
        super(position + ": " + problem, cause);
        this.position = requireNonNull(position, "position cannot be null");
        this.problem = requireNonNull(problem, "problem cannot be null");
    }

    public SourcePosition position() {
        return position;
    }

    /** The message without the position prefix. */
    public String problem() {
        return problem;
    }
}
