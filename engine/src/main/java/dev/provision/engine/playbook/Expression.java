package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;

/** A bare FreeMarker expression as written in {@code when:}, {@code until:} and the like. */
public record Expression(String text, SourcePosition position) {
    public Expression {
        requireNonNull(text, "text cannot be null");
        requireNonNull(position, "position cannot be null");
    }
}
