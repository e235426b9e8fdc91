package dev.provision.modules.spi;

/** A task that cannot be planned; the message is shown to the user as the failure reason. */
public class ModuleException extends Exception {
    public ModuleException(String message) {
        super(message);
    }

    public ModuleException(String message, Throwable cause) {
        super(message, cause);
    }
}
