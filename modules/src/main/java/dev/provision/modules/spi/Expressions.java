package dev.provision.modules.spi;

/** Bare boolean and value expressions (FreeMarker syntax) evaluated with the host's variables. */
public interface Expressions {
    /** @throws ModuleException when the expression is malformed or names an undefined variable */
    boolean test(String expression) throws ModuleException;

    /** @throws ModuleException when the expression is malformed or names an undefined variable */
    Object value(String expression) throws ModuleException;
}
