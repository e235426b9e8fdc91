package dev.provision.modules.spi;

/**
 * A task that cannot be planned; the message is shown to the user as the failure reason. The engine
 * puts the task's file:line:column before it, unless it names a place already or is
 * {@linkplain #asWritten the user's own words}.
 */
public class ModuleException extends Exception {
    private final boolean asWritten;

    public ModuleException(String message) {
        this(message, null, false);
    }

    public ModuleException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private ModuleException(String message, Throwable cause, boolean asWritten) {
        super(message, cause);
        this.asWritten = asWritten;
    }

    /** A failure whose message the user wrote ({@code fail: msg:}): shown exactly as written, no position added. */
    public static ModuleException asWritten(String message) {
        return new ModuleException(message, null, true);
    }

    public boolean isAsWritten() {
        return asWritten;
    }
}
