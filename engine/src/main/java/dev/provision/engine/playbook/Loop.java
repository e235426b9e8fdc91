package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;

/**
 * {@code loop:} (or {@code with_items:}) with its {@code loop_control}.
 *
 * @param items a YAML list (items may hold {@code ${...}}) or a string expression that evaluates to one
 * @param loopVar the variable each item is bound to; {@code item} by default
 * @param label optional {@code loop_control.label} expression for the output; empty for none
 */
public record Loop(Object items, String loopVar, String label, SourcePosition position) {
    public Loop {
        requireNonNull(items, "items cannot be null");
        requireNonNull(loopVar, "loopVar cannot be null");
        requireNonNull(label, "label cannot be null");
        requireNonNull(position, "position cannot be null");
    }
}
