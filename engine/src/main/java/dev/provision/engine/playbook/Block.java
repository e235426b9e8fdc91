package dev.provision.engine.playbook;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;
import java.util.List;

/**
 * {@code block}/{@code rescue}/{@code always}. The block's own keywords ({@code when}, {@code tags},
 * {@code vars}, {@code become}, {@code ignore_errors}, ...) have been pushed down onto its tasks by the
 * loader; the block itself only orders them. {@code rescue} runs when a task of {@code block} failed;
 * {@code always} runs in any case.
 */
public record Block(String name, List<TaskNode> block, List<TaskNode> rescue, List<TaskNode> always,
                    SourcePosition position) implements TaskNode {
    public Block {
        requireNonNull(name, "name cannot be null");
        block = List.copyOf(block);
        rescue = List.copyOf(rescue);
        always = List.copyOf(always);
        requireNonNull(position, "position cannot be null");
    }
}
