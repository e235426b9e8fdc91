package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;

/**
 * A template or expression that cannot be rendered or evaluated: a syntax error, an undefined
 * variable, a value of the wrong kind, a missing template, a refused template name or a refused
 * operation (the sandbox).
 *
 * <p>{@link #getMessage()} is one line, {@code file:line:column: what is wrong; what to do}, meant to
 * be shown to the user as it is. The position is the template file and the line and column inside it
 * when the failure is inside a template file, otherwise the {@code where} given by the caller. When
 * no position is known ({@link SourcePosition#UNKNOWN}), the message is the problem alone, so that the
 * caller can prefix the position of the task that asked. The FreeMarker exception, if any, is the
 * {@linkplain #getCause() cause}; its multi-line text never appears in the message.
 */
public class TemplateException extends Exception {
    private final SourcePosition position;
    private final String problem;

    public TemplateException(SourcePosition position, String problem) {
        this(position, problem, null);
    }

    public TemplateException(SourcePosition position, String problem, Throwable cause) {
        super(messageOf(position, problem), cause);
        this.position = position;
        this.problem = problem;
    }

    private static String messageOf(SourcePosition position, String problem) {
        requireNonNull(position, "position cannot be null");
        requireNonNull(problem, "problem cannot be null");
        return position.equals(SourcePosition.UNKNOWN) ? problem : position + ": " + problem;
    }

    /** Where the failure is; {@link SourcePosition#UNKNOWN} when no file position is known. */
    public SourcePosition position() {
        return position;
    }

    /** The message without the position prefix. */
    public String problem() {
        return problem;
    }
}
