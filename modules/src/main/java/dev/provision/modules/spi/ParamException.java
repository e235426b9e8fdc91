package dev.provision.modules.spi;

import static java.util.Objects.requireNonNull;

/**
 * A parameter that does not fit the module's {@link ParamSpec}. {@link #param()} is the name as the
 * user wrote it (the engine points at its position in the playbook), or empty for the whole task.
 */
public class ParamException extends Exception {
    private final String param;

    public ParamException(String param, String message) {
        super(message);
        this.param = requireNonNull(param, "param cannot be null");
    }

    public String param() {
        return param;
    }
}
